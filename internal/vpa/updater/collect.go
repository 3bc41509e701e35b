package updater

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/boost"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/recommendation"
	"github.com/kscale/kscale/internal/vpa/target"
)

// modeAuto is the deprecated alias of Recreate (the upstream constant is
// marked deprecated); it is still honoured.
const modeAuto vpav1.UpdateMode = "Auto"

// vpaWork is one VPA's pods, grouped by their direct controller.
type vpaWork struct {
	vpa    *vpav1.VerticalPodAutoscaler
	groups map[types.UID]*group
	limits recommendation.Limits
}

// group is the live pods of one controller.
type group struct {
	owner metav1.OwnerReference
	pods  []*corev1.Pod
}

type workList []*vpaWork

// UpdateMode returns the VPA's update mode, Recreate when unset.
func UpdateMode(vpa *vpav1.VerticalPodAutoscaler) vpav1.UpdateMode {
	if p := vpa.Spec.UpdatePolicy; p != nil && p.UpdateMode != nil {
		return *p.UpdateMode
	}
	return vpav1.UpdateModeRecreate
}

// acting reports whether the updater acts on pods of a VPA in mode m:
// Recreate, Auto, InPlaceOrRecreate, and InPlace when its gate is on.
func acting(m vpav1.UpdateMode, gates features.Gates) bool {
	switch m {
	case vpav1.UpdateModeRecreate, modeAuto, vpav1.UpdateModeInPlaceOrRecreate:
		return true
	case vpav1.UpdateModeInPlace:
		return gates.InPlace
	}
	return false
}

// boosting reports whether the updater undoes the VPA's startup boosts:
// gate CPUStartupBoost is on and the VPA has a boost (in any mode).
func (u *Updater) boosting(vpa *vpav1.VerticalPodAutoscaler) bool {
	return u.cfg.Features.CPUStartupBoost && boost.Has(vpa)
}

// handles reports whether the updater has work on the VPA's pods: updates
// in its mode, or startup boosts to undo.
func (u *Updater) handles(vpa *vpav1.VerticalPodAutoscaler) bool {
	return acting(UpdateMode(vpa), u.cfg.Features) || u.boosting(vpa)
}

// resizesInPlace reports whether mode m updates pods in place.
func resizesInPlace(m vpav1.UpdateMode) bool {
	return m == vpav1.UpdateModeInPlaceOrRecreate || m == vpav1.UpdateModeInPlace
}

// collect lists the VPAs and live pods and assigns every pod to the VPA
// that controls it (the same rule as the admission webhook), keeping only
// VPAs whose mode lets the updater act.
func (u *Updater) collect(ctx context.Context) (workList, error) {
	candidates, err := u.candidates(ctx)
	if err != nil {
		return nil, err
	}
	pods, err := u.livePods(ctx)
	if err != nil {
		return nil, err
	}
	byVPA := map[types.UID]*vpaWork{}
	tops := map[types.UID]*target.ObjectRef{}
	for _, pod := range pods {
		owner := metav1.GetControllerOf(pod)
		if owner == nil {
			continue
		}
		top, ok := tops[owner.UID]
		if !ok {
			if top, err = u.resolver.TopLevelController(ctx, pod); err != nil {
				return nil, fmt.Errorf("finding the top-level controller of pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			tops[owner.UID] = top
		}
		vpa := target.Controlling(pod, top, candidates)
		if vpa == nil || !u.handles(vpa) {
			continue
		}
		w := byVPA[vpa.UID]
		if w == nil {
			w = &vpaWork{vpa: vpa, groups: map[types.UID]*group{}}
			byVPA[vpa.UID] = w
		}
		g := w.groups[owner.UID]
		if g == nil {
			g = &group{owner: *owner}
			w.groups[owner.UID] = g
		}
		g.pods = append(g.pods, pod)
	}
	return u.withLimits(ctx, byVPA)
}

// candidates returns every VPA not in mode Off with its resolved target.
// VPAs whose target cannot be resolved are logged and left out, so their
// pods are never evicted by mistake.
func (u *Updater) candidates(ctx context.Context) ([]target.Candidate, error) {
	var list vpav1.VerticalPodAutoscalerList
	if err := u.client.List(ctx, &list, u.namespaceOpts()...); err != nil {
		return nil, fmt.Errorf("listing VPAs: %w", err)
	}
	var out []target.Candidate
	for i := range list.Items {
		vpa := &list.Items[i]
		if slices.Contains(u.cfg.IgnoredNamespaces, vpa.Namespace) || (UpdateMode(vpa) == vpav1.UpdateModeOff && !u.boosting(vpa)) {
			continue
		}
		if UpdateMode(vpa) == vpav1.UpdateModeInPlace && !u.cfg.Features.InPlace {
			klog.FromContext(ctx).Info("Warning: update mode InPlace needs feature gate InPlace, which is off; the VPA's pods are left alone", "vpa", klog.KObj(vpa))
		}
		t, err := u.resolver.Resolve(ctx, vpa)
		if err != nil {
			klog.FromContext(ctx).Info("Skipping VPA: its target cannot be resolved", "vpa", klog.KObj(vpa), "reason", target.ReasonOf(err), "err", err)
			continue
		}
		out = append(out, target.Candidate{VPA: vpa, Target: t})
	}
	return out, nil
}

// livePods lists scheduled pods that are neither finished nor terminating.
func (u *Updater) livePods(ctx context.Context) ([]*corev1.Pod, error) {
	var list corev1.PodList
	if err := u.client.List(ctx, &list, u.namespaceOpts()...); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	var out []*corev1.Pod
	for i := range list.Items {
		p := &list.Items[i]
		if p.Spec.NodeName == "" || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if slices.Contains(u.cfg.IgnoredNamespaces, p.Namespace) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func (u *Updater) namespaceOpts() []client.ListOption {
	if u.cfg.VPAObjectNamespace != "" {
		return []client.ListOption{client.InNamespace(u.cfg.VPAObjectNamespace)}
	}
	return nil
}

// withLimits reads each namespace's LimitRanges once and returns the work
// sorted by VPA namespace and name.
func (u *Updater) withLimits(ctx context.Context, byVPA map[types.UID]*vpaWork) (workList, error) {
	limits := map[string]recommendation.Limits{}
	out := make(workList, 0, len(byVPA))
	for _, w := range byVPA {
		l, ok := limits[w.vpa.Namespace]
		if !ok {
			var ranges corev1.LimitRangeList
			if err := u.client.List(ctx, &ranges, client.InNamespace(w.vpa.Namespace)); err != nil {
				return nil, fmt.Errorf("listing LimitRanges in %s: %w", w.vpa.Namespace, err)
			}
			l = recommendation.MergeLimitRanges(ranges.Items)
			limits[w.vpa.Namespace] = l
		}
		w.limits = l
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b *vpaWork) int {
		if c := compareStrings(a.vpa.Namespace, b.vpa.Namespace); c != 0 {
			return c
		}
		return compareStrings(a.vpa.Name, b.vpa.Name)
	})
	return out, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// configured returns the number of replicas the controller wants
// (ConfiguredReplicas), reading the controller.
func (u *Updater) configured(ctx context.Context, ns string, owner metav1.OwnerReference, live int) (int, error) {
	key := client.ObjectKey{Namespace: ns, Name: owner.Name}
	var want *int32
	var err error
	switch owner.Kind {
	case "ReplicaSet":
		var rs appsv1.ReplicaSet
		err = u.client.Get(ctx, key, &rs)
		want = rs.Spec.Replicas
	case "StatefulSet":
		var sts appsv1.StatefulSet
		err = u.client.Get(ctx, key, &sts)
		want = sts.Spec.Replicas
	case "ReplicationController":
		var rc corev1.ReplicationController
		err = u.client.Get(ctx, key, &rc)
		want = rc.Spec.Replicas
	case "DaemonSet":
		var ds appsv1.DaemonSet
		err = u.client.Get(ctx, key, &ds)
		want = &ds.Status.DesiredNumberScheduled
	}
	if err != nil {
		return 0, wrapOwnerErr(err, owner)
	}
	return ConfiguredReplicas(owner, want, live)
}

// ConfiguredReplicas returns the replica count the eviction budget of
// owner's pods is computed from, as upstream's PodsRestrictionFactory
// reads it: want is spec.replicas of a ReplicaSet, StatefulSet or
// ReplicationController and status.desiredNumberScheduled of a DaemonSet;
// a Job counts its live pods. As upstream, a count that is unset or zero
// is an error, so the controller's pods are not evicted (a ReplicaSet
// scaled to zero whose pods still run keeps them).
func ConfiguredReplicas(owner metav1.OwnerReference, want *int32, live int) (int, error) {
	switch owner.Kind {
	case "Job":
		return live, nil
	case "ReplicaSet", "StatefulSet", "ReplicationController", "DaemonSet":
		if want == nil || *want == 0 {
			return 0, fmt.Errorf("%s %s has no replicas configured (unset or 0)", owner.Kind, owner.Name)
		}
		return int(*want), nil
	default:
		return 0, fmt.Errorf("controller kind %s of %s is not supported for eviction", owner.Kind, owner.Name)
	}
}

func wrapOwnerErr(err error, owner metav1.OwnerReference) error {
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", owner.Kind, owner.Name, err)
	}
	return nil
}
