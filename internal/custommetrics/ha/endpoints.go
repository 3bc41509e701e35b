package ha

import (
	"context"
	"fmt"
	"net"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ManagedBy is the endpointslice.kubernetes.io/managed-by value of the slice.
const ManagedBy = "custom-metrics.kscale.io"

// desiredSlice is the EndpointSlice pointing the Service at this replica.
func (e *Elector) desiredSlice() *discoveryv1.EndpointSlice {
	addrType := discoveryv1.AddressTypeIPv4
	if ip := net.ParseIP(e.cfg.Address); ip != nil && ip.To4() == nil {
		addrType = discoveryv1.AddressTypeIPv6
	}
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      e.cfg.ServiceName,
			Namespace: e.cfg.Namespace,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: e.cfg.ServiceName,
				discoveryv1.LabelManagedBy:   ManagedBy,
			},
		},
		AddressType: addrType,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{e.cfg.Address},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		}},
		Ports: []discoveryv1.EndpointPort{{
			Name: ptr.To(e.cfg.PortName), Port: ptr.To(e.cfg.Port), Protocol: ptr.To(corev1.ProtocolTCP),
		}},
	}
}

// pointsAtSelf reports whether s lists exactly this replica and nothing else.
func (e *Elector) pointsAtSelf(s *discoveryv1.EndpointSlice) bool {
	if len(s.Endpoints) != 1 || len(s.Endpoints[0].Addresses) != 1 || s.Endpoints[0].Addresses[0] != e.cfg.Address {
		return false
	}
	if len(s.Ports) != 1 || s.Ports[0].Port == nil || *s.Ports[0].Port != e.cfg.Port {
		return false
	}
	return s.Labels[discoveryv1.LabelServiceName] == e.cfg.ServiceName
}

// publish makes the slice point at this replica, creating it when absent.
func (e *Elector) publish(ctx context.Context) error {
	slices := e.cfg.Client.DiscoveryV1().EndpointSlices(e.cfg.Namespace)
	want := e.desiredSlice()
	cur, err := slices.Get(ctx, want.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err := slices.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating EndpointSlice %s/%s: %w", want.Namespace, want.Name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading EndpointSlice %s/%s: %w", want.Namespace, want.Name, err)
	}
	if e.pointsAtSelf(cur) && cur.Labels[discoveryv1.LabelManagedBy] == ManagedBy {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Labels, upd.AddressType, upd.Endpoints, upd.Ports = want.Labels, want.AddressType, want.Endpoints, want.Ports
	if _, err := slices.Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating EndpointSlice %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// withdraw deletes the slice if it still lists only this replica; the UID
// and resourceVersion preconditions make sure a newer leader's slice is
// never removed.
func (e *Elector) withdraw(ctx context.Context) error {
	slices := e.cfg.Client.DiscoveryV1().EndpointSlices(e.cfg.Namespace)
	cur, err := slices.Get(ctx, e.cfg.ServiceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading EndpointSlice %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
	}
	if !e.pointsAtSelf(cur) {
		return nil
	}
	pre := metav1.Preconditions{UID: &cur.UID, ResourceVersion: &cur.ResourceVersion}
	err = slices.Delete(ctx, cur.Name, metav1.DeleteOptions{Preconditions: &pre})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting EndpointSlice %s/%s: %w", e.cfg.Namespace, e.cfg.ServiceName, err)
	}
	return nil
}

func metav1ObjectMeta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}
