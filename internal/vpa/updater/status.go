package updater

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AdmissionAlive reports whether the lease shows an admission webhook that
// renewed it less than timeout before now. It is pure.
func AdmissionAlive(lease *coordinationv1.Lease, now time.Time, timeout time.Duration) bool {
	if lease == nil || lease.Spec.RenewTime == nil {
		return false
	}
	return now.Sub(lease.Spec.RenewTime.Time) < timeout
}

// admissionAlive reads the admission webhook's status Lease and checks it.
func (u *Updater) admissionAlive(ctx context.Context) (bool, error) {
	if !u.cfg.UseAdmissionStatus {
		return true, nil
	}
	lease := &coordinationv1.Lease{}
	err := u.client.Get(ctx, client.ObjectKey{Namespace: u.cfg.StatusNamespace, Name: u.cfg.StatusLease}, lease)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading the admission status Lease %s/%s: %w", u.cfg.StatusNamespace, u.cfg.StatusLease, err)
	}
	return AdmissionAlive(lease, u.clock.Now(), u.cfg.AdmissionStatusTimeout), nil
}
