// Package leaderelection runs a component's work only while its replica
// holds a coordination.k8s.io Lease, with the flags every Kubernetes
// component uses for it (--leader-elect, --leader-elect-resource-name, ...).
// The node autoscaler and the VPA recommender use it; a replica that loses
// the Lease stops its work and reports ErrLeadershipLost so the process can
// exit and come back as a standby with fresh state.
package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Config configures leader election on a Lease.
type Config struct {
	// Enabled turns leader election on (--leader-elect).
	Enabled bool
	// Namespace is the Lease's namespace (--leader-elect-resource-namespace).
	Namespace string
	// Name is the Lease's name (--leader-elect-resource-name).
	Name string
	// Identity names this candidate; it must be unique. Default: the hostname
	// (the pod name in a Deployment) and a random suffix, as Kubernetes
	// components do, so two candidates on one host never collide.
	Identity string
	// LeaseDuration is how long a Lease is valid without renewal (15s).
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader retries renewing before giving up (10s).
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts (2s).
	RetryPeriod time.Duration
	// ResourceLock is --leader-elect-resource-lock; only "leases" (the
	// default) is supported.
	ResourceLock string
	// fromFlags is set by AddFlags: the timings are what the user wrote,
	// so Default leaves a 0 for Validate to reject.
	fromFlags bool
}

// AddFlags registers the standard leader election flags with the
// component's defaults for --leader-elect and the Lease name.
func (c *Config) AddFlags(fs *pflag.FlagSet, enabled bool, leaseName string) {
	c.fromFlags = true
	fs.BoolVar(&c.Enabled, "leader-elect", enabled, "Elect a leader on a Lease before running; run two replicas for availability.")
	fs.StringVar(&c.Namespace, "leader-elect-resource-namespace", metav1.NamespaceSystem, "Namespace of the leader election Lease.")
	fs.StringVar(&c.Name, "leader-elect-resource-name", leaseName, "Name of the leader election Lease.")
	fs.DurationVar(&c.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "Leader election lease duration.")
	fs.DurationVar(&c.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "Leader election renew deadline.")
	fs.DurationVar(&c.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "Leader election retry period.")
	fs.StringVar(&c.ResourceLock, "leader-elect-resource-lock", resourcelock.LeasesResourceLock, "Kind of the leader election lock; only leases is supported.")
}

// Default fills unset fields: the namespace, the timings and, when election
// is on, the identity from the hostname.
func (c *Config) Default() error {
	if c.Namespace == "" {
		c.Namespace = metav1.NamespaceSystem
	}
	if !c.fromFlags {
		if c.LeaseDuration == 0 {
			c.LeaseDuration = 15 * time.Second
		}
		if c.RenewDeadline == 0 {
			c.RenewDeadline = 10 * time.Second
		}
		if c.RetryPeriod == 0 {
			c.RetryPeriod = 2 * time.Second
		}
	}
	if c.Enabled && c.Identity == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("--leader-elect: no identity: %w", err)
		}
		c.Identity = host + "_" + string(uuid.NewUUID())
	}
	return nil
}

// Validate reports the first invalid field, by its flag. The durations
// are checked even with leader election off, so a bad flag is never
// accepted silently.
func (c *Config) Validate() error {
	switch {
	case c.ResourceLock != "" && c.ResourceLock != resourcelock.LeasesResourceLock:
		return fmt.Errorf("--leader-elect-resource-lock: only %s is supported, got %q", resourcelock.LeasesResourceLock, c.ResourceLock)
	case c.LeaseDuration <= 0:
		return fmt.Errorf("--leader-elect-lease-duration: must be positive, got %v", c.LeaseDuration)
	case c.RenewDeadline <= 0:
		return fmt.Errorf("--leader-elect-renew-deadline: must be positive, got %v", c.RenewDeadline)
	case c.RetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-retry-period: must be positive, got %v", c.RetryPeriod)
	}
	if !c.Enabled {
		return nil
	}
	switch {
	case c.Name == "":
		return errors.New("--leader-elect-resource-name: required")
	case c.Identity == "":
		return errors.New("--leader-elect: an identity is required")
	case c.LeaseDuration <= c.RenewDeadline:
		return errors.New("--leader-elect-lease-duration: must be greater than the renew deadline")
	case c.RenewDeadline <= c.RetryPeriod:
		return errors.New("--leader-elect-renew-deadline: must be greater than the retry period")
	}
	return nil
}

// ErrLeadershipLost is returned when this candidate stops being the leader
// before ctx ended.
var ErrLeadershipLost = errors.New("leader election: leadership lost")

// Run runs work while this process holds the Lease (or directly when
// election is disabled). It returns when ctx ends, when work returns, or
// when leadership is lost, and always after work returned: work's context
// ends with ctx or the Lease, and only then is the Lease released (on a
// clean stop), so whatever work does last (withdrawing an endpoint,
// flushing state) happens while this process still holds it, and a
// standby takes over at once. A lost Lease returns ErrLeadershipLost.
func Run(ctx context.Context, client kubernetes.Interface, c Config, work func(ctx context.Context)) error {
	if !c.Enabled {
		work(ctx)
		return nil
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: c.Identity},
	}
	log := klog.FromContext(ctx)
	// The elector runs on a context of its own, cancelled after work
	// returned, so the Lease is released last.
	electCtx, cancelElect := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelElect()
	var lost atomic.Bool
	// gate decides once whether work runs: a term the elector starts after
	// Run began to stop never runs, so work never outlives Run.
	var gate struct {
		sync.Mutex
		started, stopping bool
	}
	workDone := make(chan struct{})
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true, Name: c.Name,
		LeaseDuration: c.LeaseDuration, RenewDeadline: c.RenewDeadline, RetryPeriod: c.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leadCtx context.Context) {
				defer close(workDone)
				gate.Lock()
				gate.started = !gate.stopping
				run := gate.started
				gate.Unlock()
				if !run {
					return
				}
				workCtx, cancel := context.WithCancel(leadCtx)
				defer cancel()
				defer context.AfterFunc(ctx, cancel)()
				log.Info("Became leader", "lease", klog.KRef(c.Namespace, c.Name), "identity", c.Identity)
				work(workCtx)
			},
			OnStoppedLeading: func() { lost.Store(electCtx.Err() == nil) },
		},
	})
	if err != nil {
		return fmt.Errorf("creating leader elector: %w", err)
	}
	electorDone := make(chan struct{})
	go func() { elector.Run(electCtx); close(electorDone) }()
	select {
	case <-ctx.Done():
	case <-workDone:
	case <-electorDone:
	}
	gate.Lock()
	gate.stopping = true
	started := gate.started
	gate.Unlock()
	if started {
		<-workDone
	}
	cancelElect()
	<-electorDone
	if ctx.Err() == nil && lost.Load() {
		return ErrLeadershipLost
	}
	return nil
}
