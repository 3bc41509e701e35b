package machinesim

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// mark lets a Marker flavor mark the deployment's machines, writes what
// changed, and puts the written machines back into machines so the set
// pass that follows sees them.
func (s *Simulator) mark(ctx context.Context, mk Marker, d *unstructured.Unstructured, sets, machines []unstructured.Unstructured) error {
	dGVR, _, mGVR := s.cfg.Flavor.Resources()
	var own []*unstructured.Unstructured
	index := map[string]int{}
	for i := range machines {
		m := &machines[i]
		for j := range sets {
			if ownedBy(&sets[j], d) && ownedBy(m, &sets[j]) {
				own = append(own, m)
				index[m.GetName()] = i
			}
		}
	}
	changedD, changed := mk.Mark(d, own)
	if changedD {
		if _, err := s.cfg.Management.Resource(dGVR).Namespace(d.GetNamespace()).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("updating deployment %s: %w", d.GetName(), err)
		}
	}
	for _, m := range changed {
		updated, err := s.cfg.Management.Resource(mGVR).Namespace(m.GetNamespace()).Update(ctx, m, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("marking machine %s: %w", m.GetName(), err)
		}
		machines[index[m.GetName()]] = *updated
	}
	return nil
}
