package ha

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// ErrLeadershipLost reports that the lease was lost while the process was
// still running; the process should exit and be restarted as a standby.
var ErrLeadershipLost = errors.New("leadership lost")

// IsLeadershipLost reports whether err is or wraps ErrLeadershipLost.
func IsLeadershipLost(err error) bool { return errors.Is(err, ErrLeadershipLost) }

// Config configures an Elector.
type Config struct {
	// Client writes the Lease and the Endpoints.
	Client kubernetes.Interface
	// Namespace holds the Service and its Endpoints.
	Namespace string
	// LeaseNamespace holds the Lease; default Namespace.
	LeaseNamespace string
	// LeaseName is the Lease's name; default gardener-custom-metrics-leader-election.
	LeaseName string
	// ServiceName is the selector-less Service; its Endpoints have the same name. Default gardener-custom-metrics, upstream's.
	ServiceName string
	// Identity identifies this replica in the Lease; default hostname plus a random suffix.
	Identity string
	// Address is this replica's IP as published in the Endpoints.
	Address string
	// Port is the published port; default 6443.
	Port int32
	// PortName must equal the Service port's name; default "" (unnamed).
	PortName string
	// LeaseDuration, RenewDeadline and RetryPeriod are the election timings; default 15s, 10s, 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ReassertPeriod is how often the leader re-checks its Endpoints; default 10s.
	ReassertPeriod time.Duration
	// Clock paces the Endpoints re-checks; default the real clock.
	Clock clock.Clock
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.LeaseNamespace == "" {
		c.LeaseNamespace = c.Namespace
	}
	if c.LeaseName == "" {
		c.LeaseName = "gardener-custom-metrics-leader-election"
	}
	if c.ServiceName == "" {
		c.ServiceName = "gardener-custom-metrics"
	}
	if c.Identity == "" {
		host, _ := os.Hostname()
		c.Identity = host + "_" + string(uuid.NewUUID())
	}
	if c.Port == 0 {
		c.Port = 6443
	}
	c.LeaseDuration = cmp(c.LeaseDuration, 15*time.Second)
	c.RenewDeadline = cmp(c.RenewDeadline, 10*time.Second)
	c.RetryPeriod = cmp(c.RetryPeriod, 2*time.Second)
	c.ReassertPeriod = cmp(c.ReassertPeriod, 10*time.Second)
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
}

func cmp(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("client: required")
	case c.Namespace == "":
		return errors.New("namespace: required")
	case net.ParseIP(c.Address) == nil:
		return fmt.Errorf("address: %q is not an IP address", c.Address)
	case c.Port < 1 || c.Port > 65535:
		return fmt.Errorf("port: %d is not a TCP port", c.Port)
	case c.LeaseDuration <= c.RenewDeadline || c.RenewDeadline <= c.RetryPeriod:
		return errors.New("leaseDuration > renewDeadline > retryPeriod: violated")
	}
	return nil
}

// Elector runs leading work while holding the Lease.
type Elector struct {
	cfg Config
}

// New returns an Elector.
func New(cfg Config) (*Elector, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating HA config: %w", err)
	}
	return &Elector{cfg: cfg}, nil
}

// Run competes for the Lease until ctx ends. While leading it runs lead and
// keeps the Endpoints pointing here. It returns nil after a graceful
// stop, ErrLeadershipLost when the Lease was lost, or lead's error.
func (e *Elector) Run(ctx context.Context, lead func(context.Context) error) error {
	electCtx, cancelElect := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelElect()
	var started atomic.Bool
	leading := make(chan error, 1)
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1ObjectMeta(e.cfg.LeaseNamespace, e.cfg.LeaseName),
			Client:     e.cfg.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: e.cfg.Identity},
		},
		LeaseDuration:   e.cfg.LeaseDuration,
		RenewDeadline:   e.cfg.RenewDeadline,
		RetryPeriod:     e.cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            e.cfg.LeaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				started.Store(true)
				leading <- e.lead(ctx, lctx, lead)
			},
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		return fmt.Errorf("creating leader elector: %w", err)
	}
	electorDone := make(chan struct{})
	go func() { le.Run(electCtx); close(electorDone) }()
	var result error
	select {
	case <-ctx.Done():
		if started.Load() {
			result = <-leading
		}
	case result = <-leading:
	}
	cancelElect() // releases the Lease
	<-electorDone
	if ctx.Err() != nil {
		return nil
	}
	return result
}

// lead runs the leading work and the Endpoints keeper until the Lease is lost
// (lctx) or the process stops (ctx), then withdraws the Endpoints if they are still ours.
func (e *Elector) lead(ctx, lctx context.Context, work func(context.Context) error) error {
	log := klog.FromContext(ctx).WithValues("identity", e.cfg.Identity)
	log.Info("Became leader")
	workCtx, cancel := context.WithCancel(lctx)
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	errs := make(chan error, 2)
	go func() { errs <- work(workCtx) }()
	go func() { e.keepEndpoints(workCtx); errs <- nil }()
	first := <-errs
	cancel()
	second := <-errs
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer wcancel()
	if err := e.withdraw(wctx); err != nil {
		log.Error(err, "Withdrawing the Endpoints failed")
	}
	switch {
	case ctx.Err() != nil:
		return nil
	case lctx.Err() != nil:
		return ErrLeadershipLost
	}
	return errors.Join(first, second)
}

// keepEndpoints publishes the Endpoints and re-checks them until ctx ends, retrying
// failures with exponential backoff.
func (e *Elector) keepEndpoints(ctx context.Context) {
	log := klog.FromContext(ctx)
	backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Steps: 64, Cap: e.cfg.ReassertPeriod}
	for {
		delay := e.cfg.ReassertPeriod
		if ctx.Err() != nil {
			return
		}
		if err := e.publish(ctx); err != nil {
			log.Error(err, "Publishing the Endpoints failed")
			delay = backoff.Step()
		} else {
			backoff = wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Steps: 64, Cap: e.cfg.ReassertPeriod}
		}
		select {
		case <-ctx.Done():
			return
		case <-e.cfg.Clock.After(delay):
		}
	}
}
