package admission

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// statusLease renews the Lease that tells the updater the webhook is alive.
type statusLease struct {
	client    client.Client
	namespace string
	name      string
	holder    string
	interval  time.Duration
	clock     clock.Clock
}

// run renews the Lease every interval until ctx ends.
func (l *statusLease) run(ctx context.Context) {
	log := klog.FromContext(ctx)
	for {
		if err := l.renew(ctx); err != nil {
			log.Error(err, "Renewing the admission status Lease")
		}
		select {
		case <-ctx.Done():
			return
		case <-l.clock.After(l.interval):
		}
	}
}

// renew sets the Lease's holder and renew time, creating it when missing.
func (l *statusLease) renew(ctx context.Context) error {
	now := metav1.NewMicroTime(l.clock.Now())
	seconds := int32(l.interval / time.Second)
	lease := &coordinationv1.Lease{}
	err := l.client.Get(ctx, client.ObjectKey{Namespace: l.namespace, Name: l.name}, lease)
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: l.namespace, Name: l.name},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &l.holder, LeaseDurationSeconds: &seconds, RenewTime: &now},
		}
		if err := l.client.Create(ctx, lease); err != nil {
			return fmt.Errorf("creating Lease %s/%s: %w", l.namespace, l.name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading Lease %s/%s: %w", l.namespace, l.name, err)
	}
	lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds, lease.Spec.RenewTime = &l.holder, &seconds, &now
	if err := l.client.Update(ctx, lease); err != nil {
		return fmt.Errorf("renewing Lease %s/%s: %w", l.namespace, l.name, err)
	}
	return nil
}
