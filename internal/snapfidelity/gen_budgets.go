package snapfidelity

import (
	"fmt"
	"math/rand/v2"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Budget is a PodDisruptionBudget with a selector of its own, over the
// pods' tier labels: it may select the pods of several workloads, or be a
// second budget on a workload that has one.
type Budget struct {
	// Name names the budget (b1, b2, ...) in Namespace.
	Name, Namespace string
	// Selector selects pods of the namespace.
	Selector metav1.LabelSelector
	// MinAvailable or MaxUnavailable is set: an int or a percentage.
	MinAvailable, MaxUnavailable *intstr.IntOrString
}

// Tiers a workload's pods may be labelled with (label TierLabel). The
// disruption controller finds no scale for Job, DaemonSet, custom and
// missing controllers and then never writes the status of a budget that
// needs one (maxUnavailable, a percentage), which the harness's wait for
// budget status would not survive: such pods get TierBatch, which only
// budgets with an int minAvailable select.
const (
	TierLabel = "tier"
	TierFront = "front"
	TierBack  = "back"
	TierBatch = "batch"
	// ShardLabel labels the first Shard pods of a workload ShardA: a
	// budget selecting it covers part of the workload.
	ShardLabel = "shard"
	ShardA     = "a"
)

// drawBudgets labels the workloads' pods with tiers (and the first few
// pods of some with a shard) and draws 0 to 2
// budgets over them, from a stream of their own so that the rest of the
// seed's cluster stays what it was before budgets had selectors.
func drawBudgets(seed int64, c *Cluster) {
	r := rand.New(rand.NewPCG(uint64(seed), 0xb0d6e7))
	for i := range c.Workloads {
		w := &c.Workloads[i]
		switch tier := []string{"", TierFront, TierBack}[r.IntN(3)]; {
		case tier == "":
		case !scaled(*w):
			w.Tier = TierBatch
		default:
			w.Tier = tier
		}
		if pods := len(w.Bound) + w.Pending; r.IntN(3) == 0 && pods > 1 && scaled(*w) {
			w.Shard = 1 + r.IntN(pods-1)
		}
	}
	for i := range r.IntN(3) {
		c.Budgets = append(c.Budgets, drawBudget(r, fmt.Sprintf("b%d", i+1), c.Workloads))
	}
}

// drawBudget draws one budget: minAvailable as an int or a percentage,
// or maxUnavailable as either, over tiers by matchLabels or
// matchExpressions (In, NotIn, Exists), or over the shard label.
func drawBudget(r *rand.Rand, name string, ws []Workload) Budget {
	b := Budget{Name: name, Namespace: Namespaces[r.IntN(len(Namespaces))]}
	intMin := false
	switch r.IntN(4) {
	case 0:
		v := intstr.FromInt32(int32(r.IntN(4)))
		b.MinAvailable, intMin = &v, true
	case 1:
		v := intstr.FromString([]string{"50%", "80%", "100%"}[r.IntN(3)])
		b.MinAvailable = &v
	case 2:
		v := intstr.FromInt32(int32(r.IntN(2)))
		b.MaxUnavailable = &v
	default:
		v := intstr.FromString([]string{"25%", "50%"}[r.IntN(2)])
		b.MaxUnavailable = &v
	}
	tiers := []string{TierFront, TierBack}
	if intMin {
		tiers = append(tiers, TierBatch)
	}
	switch r.IntN(4) {
	case 3:
		b.Selector.MatchLabels = map[string]string{ShardLabel: ShardA}
	case 0:
		b.Selector.MatchLabels = map[string]string{TierLabel: TierFront}
	case 1:
		b.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: TierLabel, Operator: metav1.LabelSelectorOpIn, Values: tiers}}
	default:
		b.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: TierLabel, Operator: metav1.LabelSelectorOpExists}}
		if !intMin {
			b.Selector.MatchExpressions = append(b.Selector.MatchExpressions,
				metav1.LabelSelectorRequirement{Key: TierLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{TierBatch}})
		}
		if len(ws) > 0 {
			b.Selector.MatchExpressions = append(b.Selector.MatchExpressions,
				metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{ws[r.IntN(len(ws))].Name}})
		}
	}
	return b
}

// scaled reports whether the disruption controller finds a scale for the
// workload's pods' controller (bare pods have none and need none).
func scaled(w Workload) bool {
	switch w.Kind {
	case KindJob, KindDaemonSet:
		return false
	case KindReplicaSet:
		return w.Owner != OwnerCustom && w.Owner != OwnerMissing
	}
	return true
}

// object is the budget as the harness creates it.
func (b Budget) object() *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: b.Name},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: b.Selector.DeepCopy(), MinAvailable: b.MinAvailable, MaxUnavailable: b.MaxUnavailable}}
}

// podLabels are the labels of a workload's pods and of its controller's
// pod template: app=<name> (the controller's selector) and its tier.
func podLabels(w Workload) map[string]string {
	l := map[string]string{"app": w.Name}
	if w.Tier != "" {
		l[TierLabel] = w.Tier
	}
	return l
}

// podLabelsAt are the labels of a workload's i-th pod (from 0): its
// template's, and the shard label on the first Shard pods.
func podLabelsAt(w Workload, i int) map[string]string {
	l := podLabels(w)
	if i < w.Shard {
		l[ShardLabel] = ShardA
	}
	return l
}

// dropBudget removes the i-th budget.
func dropBudget(c *Cluster, i int) (bool, bool) {
	if i >= len(c.Budgets) {
		return false, false
	}
	c.Budgets = append(c.Budgets[:i:i], c.Budgets[i+1:]...)
	return true, true
}
