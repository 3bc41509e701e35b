package vpafidelity

import (
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/updater/restriction"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/updater/utils"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kscale/kscale/internal/vpa/updater"
)

// InPlaceCase is one input of the in-place comparison: a budget case whose
// first pod is worth updating (it passed the priority), an in-place update
// mode, the pod's resize conditions, the VPA's recommendation and the
// recommendation of the pod's last infeasible resize, if any. The
// updater sees the pod's current resize for the first time.
type InPlaceCase struct {
	*BudgetCase
	Mode           vpav1.UpdateMode
	Conditions     []corev1.PodCondition
	Recommendation *vpav1.RecommendedPodResources
	LastInfeasible *vpav1.RecommendedPodResources
}

// String prints the case as a reproducer.
func (c *InPlaceCase) String() string {
	var last any = "-"
	if c.LastInfeasible != nil {
		last = listString(c.LastInfeasible.ContainerRecommendations[0].Target)
	}
	return fmt.Sprintf("%s mode %s conditions %v target %s last infeasible %v", c.BudgetCase, c.Mode, c.Conditions,
		listString(c.Recommendation.ContainerRecommendations[0].Target), last)
}

// Decision is what one loop of the updater does with the pod.
type Decision string

// The decisions compared.
const (
	DecideNothing Decision = "nothing"
	DecideResize  Decision = "resize"
	DecideEvict   Decision = "evict"
)

// GenerateInPlaceCase returns the random in-place case of seed.
func GenerateInPlaceCase(seed int64) *InPlaceCase {
	r := rand.New(rand.NewPCG(uint64(seed), 0x3c6ef372fe94f82b))
	b := GenerateBudgetCase(seed)
	for len(b.Pods) == 0 {
		seed += 1 << 40
		b = GenerateBudgetCase(seed)
	}
	c := &InPlaceCase{BudgetCase: b, Mode: []vpav1.UpdateMode{vpav1.UpdateModeInPlace, vpav1.UpdateModeInPlaceOrRecreate}[r.IntN(2)]}
	status := func() corev1.ConditionStatus {
		return []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionTrue, corev1.ConditionFalse}[r.IntN(3)]
	}
	switch r.IntN(4) {
	case 1:
		c.Conditions = append(c.Conditions, corev1.PodCondition{Type: corev1.PodResizePending, Status: status(),
			Reason: []string{corev1.PodReasonDeferred, corev1.PodReasonInfeasible, "Other"}[r.IntN(3)]})
	case 2:
		c.Conditions = append(c.Conditions, corev1.PodCondition{Type: corev1.PodResizeInProgress, Status: status(),
			Reason: []string{"", "", corev1.PodReasonError, "Other"}[r.IntN(4)]})
	}
	b.Pods[0].Status.Conditions = c.Conditions
	target := func(cpu int64) *vpav1.RecommendedPodResources {
		l := randList(r, 0)
		l[corev1.ResourceCPU] = *resourceMilli(cpu)
		return &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{{ContainerName: "c0", Target: l}}}
	}
	// Always a recommendation: without one no pod passes the priority.
	c.Recommendation = target(500)
	if r.IntN(3) == 0 {
		c.LastInfeasible = target([]int64{400, 500, 600}[r.IntN(3)])
	}
	return c
}

// CompareInPlace compares the decision for the case's first pod: upstream's
// PodsInPlaceRestriction.CanInPlaceUpdate as its updater loop acts on it
// (filterNonInPlaceUpdatablePods, then the loop's switch; pkg/updater/logic
// /updater.go) against kscale's DecideResize and the group's budget (as
// updateInPlace acts on them).
//
// Upstream's loop resizes a pod of an InPlace VPA whatever deferred it
// (its filter keeps deferred pods of InPlace VPAs so that a resize in
// progress gets the newest recommendation, and its switch does not skip
// them), so its InPlace mode passes over minReplicas, the eviction
// tolerance and the Pending phase; kscale keeps them for InPlace as for
// every mode. That is the documented deliberate difference
// inplace-mode-disruption-rules (docs/vpa.md).
func CompareInPlace(c *InPlaceCase) []Diff {
	up, raw, err := upstreamInPlace(c)
	if err != nil {
		panic(err.Error())
	}
	ks := kscaleInPlace(c)
	switch {
	case up == ks:
		return nil
	case c.Mode == vpav1.UpdateModeInPlace && (raw == utils.InPlaceDeferred || raw == utils.InPlaceInfeasible) && ks == DecideNothing:
		return []Diff{{Kind: Deliberate + "inplace-mode-disruption-rules", Detail: "upstream resizes a deferred pod of an InPlace VPA"}}
	}
	return []Diff{{Kind: "updater-inplace", Detail: fmt.Sprintf("upstream %s (%s), kscale %s", up, raw, ks)}}
}

func inPlaceVPA(c *InPlaceCase) *vpav1.VerticalPodAutoscaler {
	v := budgetVPA(c.BudgetCase)
	v.Spec.UpdatePolicy.UpdateMode = &c.Mode
	v.Status.Recommendation = c.Recommendation
	return v
}

func upstreamInPlace(c *InPlaceCase) (Decision, utils.InPlaceDecision, error) {
	client := fake.NewClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	if err := f.Apps().V1().ReplicaSets().Informer().GetStore().Add(budgetReplicaSet(c.BudgetCase)); err != nil {
		return "", "", fmt.Errorf("adding the ReplicaSet: %w", err)
	}
	factory := restriction.NewPodsRestrictionFactory(client, f, c.MinReplicas, c.Tolerance, nil, false)
	vpa := inPlaceVPA(c)
	groups, pods, err := factory.GetCreatorMaps(c.Pods, vpa)
	if err != nil {
		return "", "", fmt.Errorf("grouping the pods: %w", err)
	}
	attempts := map[types.UID]*vpav1.RecommendedPodResources{}
	if c.LastInfeasible != nil {
		attempts[c.Pods[0].UID] = c.LastInfeasible
	}
	d := factory.NewPodsInPlaceRestriction(groups, pods).CanInPlaceUpdate(c.Pods[0], vpa, attempts)
	inPlace := c.Mode == vpav1.UpdateModeInPlace
	switch d {
	case utils.InPlaceApproved:
		return DecideResize, d, nil
	case utils.InPlaceInfeasible, utils.InPlaceDeferred:
		// Kept by the filter for InPlace only, then resized (the loop's
		// switch does not skip a deferred pod of an InPlace VPA).
		if inPlace {
			return DecideResize, d, nil
		}
	case utils.InPlaceEvict:
		if !inPlace {
			return DecideEvict, d, nil
		}
	}
	return DecideNothing, d, nil
}

func kscaleInPlace(c *InPlaceCase) Decision {
	minReplicas := c.MinReplicas
	if c.VPAMin != nil {
		minReplicas = int(*c.VPAMin)
	}
	if !updater.EnoughReplicas(len(c.Pods), minReplicas) {
		return DecideNothing
	}
	configured, err := updater.ConfiguredReplicas(c.Pods[0].OwnerReferences[0], &c.Replicas, len(c.Pods))
	if err != nil {
		return DecideNothing
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	budget := updater.NewBudget(configured, len(c.Pods), countPhase(c.Pods, corev1.PodPending), c.Tolerance)
	switch updater.DecideResize(updater.ResizeInput{Mode: c.Mode, Pod: c.Pods[0], Recommendation: c.Recommendation,
		LastInfeasible: c.LastInfeasible, FirstSeen: now, Now: now}) {
	case updater.ResizeDefer, updater.ResizeSkipInfeasible:
		return DecideNothing
	case updater.ResizeEvict:
		// evictWithin: the eviction takes the budget.
		if budget.CanEvict(c.Pods[0].Status.Phase == corev1.PodPending) {
			return DecideEvict
		}
		return DecideNothing
	}
	if !budget.CanDisrupt(false) {
		return DecideNothing
	}
	return DecideResize
}
