package offline

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/scenario"
)

// budget is one PodDisruptionBudget of the world: a workload's pdb or a
// podDisruptionBudgets entry, with its selector parsed once.
type budget struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

// newBudgets builds the scenario's budgets as policy/v1 objects: the
// workloads' pdb shorthands, then the listed ones. Parse validated them.
func newBudgets(scn *scenario.Scenario) []budget {
	var specs []scenario.PodDisruptionBudget
	for i := range scn.Workloads {
		if b, ok := scn.Workloads[i].Budget(); ok {
			specs = append(specs, b)
		}
	}
	specs = append(specs, scn.PodDisruptionBudgets...)
	out := make([]budget, 0, len(specs))
	for _, s := range specs {
		pdb := PDBObject(s)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			sel = labels.Nothing()
		}
		out = append(out, budget{pdb: pdb, selector: sel})
	}
	return out
}

// PDBObject is the policy/v1 PodDisruptionBudget of a scenario budget, as
// the world creates it (without status).
func PDBObject(s scenario.PodDisruptionBudget) *policyv1.PodDisruptionBudget {
	b := &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, CreationTimestamp: metav1.NewTime(Start)},
	}
	if s.Selector != nil {
		b.Spec.Selector = s.Selector.Value.DeepCopy()
	}
	if v := s.MinAvailable; v != "" {
		b.Spec.MinAvailable = budgetValue(v)
	}
	if v := s.MaxUnavailable; v != "" {
		b.Spec.MaxUnavailable = budgetValue(v)
	}
	if v := s.UnhealthyPodEvictionPolicy; v != "" {
		policy := policyv1.UnhealthyPodEvictionPolicyType(v)
		b.Spec.UnhealthyPodEvictionPolicy = &policy
	}
	return b
}

// budgetValue is an int or, with a % sign, a percentage.
func budgetValue(v string) *intstr.IntOrString {
	x := intstr.Parse(v)
	return &x
}

// PDBs returns the world's PodDisruptionBudgets (the workloads' pdb
// shorthands, then the listed ones) with their status computed now, as
// the disruption controller would have it: what the autoscaler lists.
func (w *World) PDBs() []*policyv1.PodDisruptionBudget { return w.pdbs() }

// pdbs returns the budgets with their status computed now, as the
// disruption controller would have it.
func (w *World) pdbs() []*policyv1.PodDisruptionBudget {
	if len(w.budgets) == 0 {
		return nil
	}
	now := w.clock.Now()
	byNamespace := map[string][]*corev1.Pod{}
	for _, k := range w.cluster.podOrder {
		p := w.cluster.pods[k]
		byNamespace[p.Namespace] = append(byNamespace[p.Namespace], p)
	}
	out := make([]*policyv1.PodDisruptionBudget, 0, len(w.budgets))
	for _, b := range w.budgets {
		var selected []*corev1.Pod
		for _, p := range byNamespace[b.pdb.Namespace] {
			if b.selector.Matches(labels.Set(p.Labels)) {
				selected = append(selected, w.readyCopy(p, now))
			}
		}
		cp := *b.pdb
		cp.Status = scaledown.BudgetStatus(b.pdb, selected, w.controllerScale)
		out = append(out, &cp)
	}
	return out
}

// readyCopy returns a copy of the pod whose Ready condition says whether
// it is ready now: bound, not finished, running for at least its
// workload's startup time and not one of the pods that stay not Ready.
func (w *World) readyCopy(p *corev1.Pod, now time.Time) *corev1.Pod {
	cp := *p
	cp.Status.Conditions = nil
	var startup time.Duration
	if wl := w.byName[p.Labels["app"]]; wl != nil {
		startup = wl.spec.StartupTime.Duration
	}
	if !finished(p) && podReady(p, startup, now) && !w.unreadyPods[podKey(p)] {
		cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	return &cp
}

// controllerScale implements scaledown.ControllerScale for the world's
// pods: a workload's ReplicaSet, StatefulSet or ReplicationController
// has a scale (its replicas, or its desired replicas until an event
// scales it); a missing controller, a Job, a DaemonSet and a custom
// controller (the simulation has no custom resource with the scale
// subresource) have none.
func (w *World) controllerScale(p *corev1.Pod) (key string, replicas int, managed, found bool) {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return "", 0, false, true
	}
	wl := w.byName[ref.Name]
	if wl == nil || wl.spec.Namespace != p.Namespace || ref.UID != wl.uid() || !scaled(wl.spec, ref) {
		return "", 0, true, false
	}
	replicas = wl.replicas
	if d := wl.spec.Desired; d != nil && wl.replicas == wl.spec.Replicas {
		replicas = *d
	}
	return string(ref.UID), replicas, true, true
}

// scaled reports whether the disruption controller finds a scale for the
// pods' controller: the kinds it knows, when the controller exists.
func scaled(s scenario.Workload, ref *metav1.OwnerReference) bool {
	if s.Controller != nil && s.Controller.Missing {
		return false
	}
	switch ref.APIVersion + " " + ref.Kind {
	case "apps/v1 ReplicaSet", "apps/v1 StatefulSet", "apps/v1 Deployment", "v1 ReplicationController":
		return true
	}
	return false
}
