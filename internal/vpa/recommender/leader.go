package recommender

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// LeaderElection configures leader election on a Lease.
type LeaderElection struct {
	// Enabled turns leader election on (--leader-elect).
	Enabled bool
	// Namespace and Name locate the Lease (kube-system/vpa-recommender-lease).
	Namespace string
	// Name is the Lease name.
	Name string
	// Identity names this candidate; it must be unique (the pod name).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are the usual timings (15s, 10s, 2s).
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader retries renewing before giving up.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts.
	RetryPeriod time.Duration
}

// Default fills unset fields.
func (l *LeaderElection) Default() {
	if l.Namespace == "" {
		l.Namespace = metav1.NamespaceSystem
	}
	if l.Name == "" {
		l.Name = "vpa-recommender-lease"
	}
	if l.LeaseDuration == 0 {
		l.LeaseDuration = 15 * time.Second
	}
	if l.RenewDeadline == 0 {
		l.RenewDeadline = 10 * time.Second
	}
	if l.RetryPeriod == 0 {
		l.RetryPeriod = 2 * time.Second
	}
}

// Validate reports the first invalid field.
func (l *LeaderElection) Validate() error {
	if !l.Enabled {
		return nil
	}
	switch {
	case l.Identity == "":
		return errors.New("leader election: identity is required")
	case l.LeaseDuration <= l.RenewDeadline:
		return errors.New("leader-elect-lease-duration: must be greater than the renew deadline")
	case l.RenewDeadline <= l.RetryPeriod:
		return errors.New("leader-elect-renew-deadline: must be greater than the retry period")
	}
	return nil
}

// ErrLeadershipLost is returned when this candidate stops being the leader
// before ctx ended.
var ErrLeadershipLost = errors.New("leader election: leadership lost")

// RunLeading runs run while this process holds the Lease (or directly when
// election is disabled). It returns when ctx ends or leadership is lost.
func RunLeading(ctx context.Context, client kubernetes.Interface, le LeaderElection, run func(ctx context.Context)) error {
	if !le.Enabled {
		run(ctx)
		return nil
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
	}
	log := klog.FromContext(ctx)
	lost := false
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true, Name: le.Name,
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				log.Info("Became leader", "lease", klog.KRef(le.Namespace, le.Name), "identity", le.Identity)
				run(ctx)
			},
			OnStoppedLeading: func() {
				lost = runCtx.Err() == nil
				cancel()
			},
		},
	})
	if err != nil {
		return fmt.Errorf("creating leader elector: %w", err)
	}
	elector.Run(runCtx)
	if lost {
		return ErrLeadershipLost
	}
	return nil
}
