package ha

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/operator"
)

// Config configures the Endpoints and the Lease of the active/passive
// pair.
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

// FieldError is an invalid Config field.
type FieldError struct {
	// Field is the field's name, first letter lower case (for example
	// "leaseDuration").
	Field string
	// Detail says what is wrong with its value.
	Detail string
}

// Error implements error.
func (e *FieldError) Error() string { return e.Field + ": " + e.Detail }

// Validate reports the first invalid field as a *FieldError.
func (c *Config) Validate() error {
	if c.Client == nil {
		return &FieldError{Field: "client", Detail: "required"}
	}
	return c.ValidateSettings()
}

// ValidateSettings is Validate without the client: it checks the fields a
// command line sets, before there is a client.
func (c *Config) ValidateSettings() error {
	switch {
	case c.Namespace == "":
		return &FieldError{Field: "namespace", Detail: "required"}
	case net.ParseIP(c.Address) == nil:
		return &FieldError{Field: "address", Detail: fmt.Sprintf("%q is not an IP address", c.Address)}
	case c.Port < 1 || c.Port > 65535:
		return &FieldError{Field: "port", Detail: fmt.Sprintf("%d is not a TCP port", c.Port)}
	case c.LeaseDuration <= c.RenewDeadline:
		return &FieldError{Field: "leaseDuration", Detail: fmt.Sprintf("%v must be longer than the renew deadline, %v", c.LeaseDuration, c.RenewDeadline)}
	case c.RenewDeadline <= c.RetryPeriod:
		return &FieldError{Field: "renewDeadline", Detail: fmt.Sprintf("%v must be longer than the retry period, %v", c.RenewDeadline, c.RetryPeriod)}
	}
	return nil
}

// Election returns the leader election of the Lease this Config names,
// which the host (internal/operator) runs.
func (c Config) Election() leaderelection.Config {
	return leaderelection.Config{Enabled: true, Namespace: c.LeaseNamespace, Name: c.LeaseName, Identity: c.Identity,
		LeaseDuration: c.LeaseDuration, RenewDeadline: c.RenewDeadline, RetryPeriod: c.RetryPeriod, ResourceLock: "leases"}
}

// Endpoints points the Service at the leader.
type Endpoints struct {
	cfg Config
}

// New returns the Endpoints keeper of cfg, defaulted and validated.
func New(cfg Config) (*Endpoints, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating HA config: %w", err)
	}
	return &Endpoints{cfg: cfg}, nil
}

// Config returns the defaulted configuration.
func (e *Endpoints) Config() Config { return e.cfg }

// LeadTerm is a leader's term: work beside the Endpoints keeper, and once
// both ended (the Lease lost or the process stopping) the Endpoints
// withdrawn if they still list this replica; the host releases the Lease
// after that.
func (e *Endpoints) LeadTerm(ctx context.Context, work func(context.Context) error) *operator.Term {
	log := klog.FromContext(ctx).WithValues("identity", e.cfg.Identity)
	withdraw := func() {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := e.withdraw(wctx); err != nil {
			log.Error(err, "Withdrawing the Endpoints failed")
		}
	}
	keep := func(ctx context.Context) error {
		e.keepEndpoints(ctx)
		return nil
	}
	return &operator.Term{Tasks: []operator.Task{work, keep}, Cleanup: []func(){withdraw}}
}

// keepEndpoints publishes the Endpoints and re-checks them until ctx ends, retrying
// failures with exponential backoff.
func (e *Endpoints) keepEndpoints(ctx context.Context) {
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
