package metricsfilter

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the sidecar's own metrics.
type metrics struct {
	requests *prometheus.CounterVec
	in, out  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	bytes := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kscale_metrics_filter_body_bytes_total",
		Help: "Uncompressed /metrics body bytes read from the target (in) and written to callers (out).",
	}, []string{"direction"})
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kscale_metrics_filter_requests_total",
			Help: "Requests answered, by HTTP status code.",
		}, []string{"code"}),
		in:  bytes.WithLabelValues("in"),
		out: bytes.WithLabelValues("out"),
	}
	for _, c := range []prometheus.Collector{m.requests, bytes} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering metrics filter metrics: %w", err)
		}
	}
	return m, nil
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
