package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/boost"
	"github.com/kscale/kscale/internal/vpa/target"
)

// Resolver is what the webhook needs from target resolution.
type Resolver interface {
	// Resolve returns the VPA's target controller and selector.
	Resolve(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler) (*target.Target, error)
	// TopLevelController returns the pod's top-most controller, or nil.
	TopLevelController(ctx context.Context, pod *corev1.Pod) (*target.ObjectRef, error)
}

// vpaMatcher finds the VPA controlling a pod by listing the VPAs of the
// pod's namespace.
type vpaMatcher struct {
	reader   client.Reader
	resolver Resolver
	// boost keeps VPAs in mode Off that have a startup boost (gate
	// CPUStartupBoost).
	boost bool
}

// match returns the VPA that controls the pod, or nil. VPAs in mode Off
// are skipped unless they have a startup boost and its gate is on; VPAs
// whose target cannot be resolved are skipped and logged.
func (m *vpaMatcher) match(ctx context.Context, pod *corev1.Pod) (*vpav1.VerticalPodAutoscaler, error) {
	owner, err := m.resolver.TopLevelController(ctx, pod)
	if err != nil {
		return nil, fmt.Errorf("finding the pod's top-level controller: %w", err)
	}
	if owner == nil {
		return nil, nil
	}
	var list vpav1.VerticalPodAutoscalerList
	if err := m.reader.List(ctx, &list, client.InNamespace(pod.Namespace)); err != nil {
		return nil, fmt.Errorf("listing VPAs: %w", err)
	}
	var candidates []target.Candidate
	for i := range list.Items {
		vpa := &list.Items[i]
		ref := vpa.Spec.TargetRef
		if !m.serves(vpa) || ref == nil || ref.Kind != owner.Kind || ref.Name != owner.Name {
			continue
		}
		t, err := m.resolver.Resolve(ctx, vpa)
		if err != nil {
			klog.FromContext(ctx).V(1).Info("Skipping VPA with unresolvable target", "vpa", klog.KObj(vpa), "err", err)
			continue
		}
		candidates = append(candidates, target.Candidate{VPA: vpa, Target: t})
	}
	return target.Controlling(pod, owner, candidates), nil
}

// serves reports whether the webhook sets the resources of the VPA's pods:
// any mode but Off, and Off for a startup boost when its gate is on.
func (m *vpaMatcher) serves(vpa *vpav1.VerticalPodAutoscaler) bool {
	return UpdateMode(vpa) != vpav1.UpdateModeOff || (m.boost && boost.Has(vpa))
}

// UpdateMode returns the VPA's update mode, Recreate when unset.
func UpdateMode(vpa *vpav1.VerticalPodAutoscaler) vpav1.UpdateMode {
	if p := vpa.Spec.UpdatePolicy; p != nil && p.UpdateMode != nil {
		return *p.UpdateMode
	}
	return vpav1.UpdateModeRecreate
}
