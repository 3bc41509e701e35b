package custommetrics

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/bits"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/metrics"
	"github.com/kscale/kscale/internal/custommetrics/parse"
	"github.com/kscale/kscale/internal/custommetrics/rate"
	"github.com/kscale/kscale/internal/custommetrics/scrape"
)

// sink stores scrape results, counts them in metrics and logs failures
// (only when a target's consecutive fault count is a power of two).
type sink struct {
	log     logr.Logger
	store   *rate.Store
	metrics *metrics.Metrics
	pods    interface {
		InNamespace(string) []discovery.Target
	}
	forgetTransport func(namespace string)
	health          *Health

	mu     sync.Mutex
	faults map[types.NamespacedName]int
}

// Observe implements scrape.Sink.
func (s *sink) Observe(t discovery.Target, res scrape.Result, err error, took time.Duration) int {
	s.metrics.ObserveScrape(t.Key.Namespace, took, reason(err), err == nil && res.Filtered)
	s.health.scraped()
	s.mu.Lock()
	if err != nil {
		s.faults[t.Key]++
		n := s.faults[t.Key]
		s.mu.Unlock()
		if bits.OnesCount(uint(n)) == 1 {
			s.log.Info("Scrape failed", "pod", klog.KRef(t.Key.Namespace, t.Key.Name), "consecutiveFaults", n, "err", err.Error())
		}
		return 0
	}
	delete(s.faults, t.Key)
	s.mu.Unlock()
	outcome, n := s.store.Add(t.Key, t.UID, rate.Sample{Value: res.Value, Weighted: res.Weighted, At: res.At})
	if outcome == rate.Started {
		s.log.V(1).Info("Started series", "pod", klog.KRef(t.Key.Namespace, t.Key.Name), "uid", t.UID)
	}
	return n
}

// Forget implements scrape.Sink.
func (s *sink) Forget(t discovery.Target) {
	s.store.Delete(t.Key)
	s.mu.Lock()
	delete(s.faults, t.Key)
	s.mu.Unlock()
	if len(s.pods.InNamespace(t.Key.Namespace)) == 0 {
		s.forgetTransport(t.Key.Namespace)
		s.metrics.ForgetNamespace(t.Key.Namespace)
	}
}

// reason classifies a scrape error into a low-cardinality label value.
func reason(err error) string {
	var status *scrape.StatusError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var alert tls.AlertError
	switch {
	case err == nil:
		return ""
	case credentials.IsMissing(err):
		return "credentials"
	case errors.As(err, &status):
		return "http_status"
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &alert):
		return "tls"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, scrape.ErrBodyTooLarge):
		return "too_large"
	case parse.IsSyntaxError(err), parse.IsNoSeries(err):
		return "parse"
	}
	return "transport"
}
