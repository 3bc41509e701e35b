//nolint:staticcheck // core/v1 Endpoints are deprecated, but upstream writes them and its RBAC grants nothing else.
package ha

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AppLabel is the label upstream (gardener-custom-metrics) sets on the
// Endpoints, with the Service's name as its value.
const AppLabel = "app"

// The leader publishes itself as upstream does: in the core/v1 Endpoints
// of the selector-less Service, which kube-controller-manager's
// EndpointSlice mirroring turns into the slice the aggregator and
// kube-proxy read. Upstream's Role grants create, and get and update on
// that name only, so nothing here patches, lists or deletes.

// desiredSubsets is the one subset pointing the Service at this replica.
func (e *Endpoints) desiredSubsets() []corev1.EndpointSubset {
	return []corev1.EndpointSubset{{
		Addresses: []corev1.EndpointAddress{{IP: e.cfg.Address}},
		Ports:     []corev1.EndpointPort{{Name: e.cfg.PortName, Port: e.cfg.Port, Protocol: corev1.ProtocolTCP}},
	}}
}

// pointsAtSelf reports whether ep lists exactly this replica and nothing else.
func (e *Endpoints) pointsAtSelf(ep *corev1.Endpoints) bool {
	if len(ep.Subsets) != 1 {
		return false
	}
	s := ep.Subsets[0]
	return len(s.Addresses) == 1 && s.Addresses[0].IP == e.cfg.Address && len(s.NotReadyAddresses) == 0 &&
		len(s.Ports) == 1 && s.Ports[0].Port == e.cfg.Port && s.Ports[0].Name == e.cfg.PortName
}

// publish makes the Endpoints point at this replica, creating them when absent.
func (e *Endpoints) publish(ctx context.Context) error {
	api := e.cfg.Client.CoreV1().Endpoints(e.cfg.Namespace)
	cur, err := api.Get(ctx, e.cfg.ServiceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		want := &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: e.cfg.ServiceName, Namespace: e.cfg.Namespace, Labels: map[string]string{AppLabel: e.cfg.ServiceName}},
			Subsets:    e.desiredSubsets(),
		}
		if _, err := api.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Endpoints %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading Endpoints %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
	}
	if e.pointsAtSelf(cur) && cur.Labels[AppLabel] == e.cfg.ServiceName {
		return nil
	}
	upd := cur.DeepCopy()
	if upd.Labels == nil {
		upd.Labels = map[string]string{}
	}
	upd.Labels[AppLabel] = e.cfg.ServiceName
	upd.Subsets = e.desiredSubsets()
	if _, err := api.Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating Endpoints %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
	}
	return nil
}

// withdraw empties the Endpoints if they still list only this replica. The
// update carries the read resourceVersion, so a newer leader's Endpoints
// are never emptied (the update conflicts and is dropped).
func (e *Endpoints) withdraw(ctx context.Context) error {
	api := e.cfg.Client.CoreV1().Endpoints(e.cfg.Namespace)
	cur, err := api.Get(ctx, e.cfg.ServiceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading Endpoints %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
	}
	if !e.pointsAtSelf(cur) {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Subsets = nil
	_, err = api.Update(ctx, upd, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("emptying Endpoints %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
	}
	return nil
}
