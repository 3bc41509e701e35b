package vpafidelity

import (
	"fmt"
	"math/rand/v2"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/updater/restriction"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/kscale/kscale/internal/vpa/updater"
)

// BudgetCase is one input of the eviction-budget comparison: a ReplicaSet's
// configured replicas, its live pods in the order the updater tries them
// (some Pending), the eviction tolerance and the global and per-VPA
// minReplicas.
type BudgetCase struct {
	Seed        int64
	Replicas    int32
	Pods        []*corev1.Pod
	Tolerance   float64
	MinReplicas int
	VPAMin      *int32
}

// String prints the case as a reproducer.
func (c *BudgetCase) String() string {
	var phases []string
	for _, p := range c.Pods {
		phases = append(phases, string(p.Status.Phase))
	}
	return fmt.Sprintf("seed %d replicas %d pods %v tolerance %v min-replicas %d vpa minReplicas %v",
		c.Seed, c.Replicas, phases, c.Tolerance, c.MinReplicas, deref(c.VPAMin))
}

const budgetOwner = "rs"

// GenerateBudgetCase returns the random budget case of seed: 0-8 replicas,
// up to two more or fewer live pods (a rollout or a scale-down under way),
// a quarter of them Pending, tolerance and minReplicas from the values
// operators use.
func GenerateBudgetCase(seed int64) *BudgetCase {
	r := rand.New(rand.NewPCG(uint64(seed), 0x2b7e151628aed2a6))
	c := &BudgetCase{Seed: seed, Replicas: int32(r.IntN(9)),
		Tolerance:   []float64{0, 0.1, 0.25, 0.5, 1}[r.IntN(5)],
		MinReplicas: []int{1, 2, 3}[r.IntN(3)]}
	if r.IntN(3) == 0 {
		m := int32(r.IntN(4))
		c.VPAMin = &m
	}
	live := max(0, int(c.Replicas)+r.IntN(5)-2)
	controller := true
	for i := range live {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("p%d", i), UID: types.UID(fmt.Sprintf("u%d", i)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: budgetOwner, Controller: &controller}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		if r.IntN(4) == 0 {
			p.Status.Phase = corev1.PodPending
		}
		c.Pods = append(c.Pods, p)
	}
	return c
}

// CompareBudget tries every pod of c for eviction in order, on upstream's
// PodsEvictionRestriction (GetCreatorMaps, CanEvict, Evict on a fake
// client) and on kscale's updater rules (minReplicas, ConfiguredReplicas,
// Budget), and compares which pods each evicts.
func CompareBudget(c *BudgetCase) []Diff {
	up, err := upstreamEvictions(c)
	if err != nil {
		panic(err.Error())
	}
	if ks := kscaleEvictions(c); strings.Join(up, ",") != strings.Join(ks, ",") {
		return []Diff{{Kind: "updater-budget", Detail: fmt.Sprintf("evicted: upstream %v, kscale %v", up, ks)}}
	}
	return nil
}

func budgetVPA(c *BudgetCase) *vpav1.VerticalPodAutoscaler {
	v := vpaObject()
	mode := vpav1.UpdateModeRecreate
	v.Spec.UpdatePolicy = &vpav1.PodUpdatePolicy{UpdateMode: &mode, MinReplicas: c.VPAMin}
	return v
}

// budgetReplicaSet returns the ReplicaSet that owns the case's pods.
func budgetReplicaSet(c *BudgetCase) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: budgetOwner}, Spec: appsv1.ReplicaSetSpec{Replicas: &c.Replicas}}
}

// countPhase counts the pods in phase.
func countPhase(pods []*corev1.Pod, phase corev1.PodPhase) int {
	n := 0
	for _, p := range pods {
		if p.Status.Phase == phase {
			n++
		}
	}
	return n
}

// resourceMilli returns a CPU quantity of m millicores.
func resourceMilli(m int64) *resource.Quantity {
	return resource.NewMilliQuantity(m, resource.DecimalSI)
}

func upstreamEvictions(c *BudgetCase) ([]string, error) {
	rs := budgetReplicaSet(c)
	objs := []runtime.Object{rs}
	for _, p := range c.Pods {
		objs = append(objs, p.DeepCopy())
	}
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	if err := f.Apps().V1().ReplicaSets().Informer().GetStore().Add(rs); err != nil {
		return nil, fmt.Errorf("adding the ReplicaSet: %w", err)
	}
	factory := restriction.NewPodsRestrictionFactory(client, f, c.MinReplicas, c.Tolerance, nil, false)
	vpa := budgetVPA(c)
	groups, pods, err := factory.GetCreatorMaps(c.Pods, vpa)
	if err != nil {
		return nil, fmt.Errorf("grouping the pods: %w", err)
	}
	er := factory.NewPodsEvictionRestriction(groups, pods)
	rec := record.NewFakeRecorder(4 * len(c.Pods))
	var out []string
	for _, p := range c.Pods {
		if er.CanEvict(p) {
			if err := er.Evict(p, vpa, rec); err != nil {
				return nil, fmt.Errorf("evicting %s: %w", p.Name, err)
			}
			out = append(out, p.Name)
		}
	}
	return out, nil
}

// kscaleEvictions repeats what kscale's updater plans for one controller
// (internal/vpa/updater, plan and evictWithin) for a Recreate VPA.
func kscaleEvictions(c *BudgetCase) []string {
	minReplicas := c.MinReplicas
	if c.VPAMin != nil {
		minReplicas = int(*c.VPAMin)
	}
	if len(c.Pods) == 0 || !updater.EnoughReplicas(len(c.Pods), minReplicas) {
		return nil
	}
	owner := c.Pods[0].OwnerReferences[0]
	configured, err := updater.ConfiguredReplicas(owner, &c.Replicas, len(c.Pods))
	if err != nil {
		return nil
	}
	b := updater.NewBudget(configured, len(c.Pods), countPhase(c.Pods, corev1.PodPending), c.Tolerance)
	var out []string
	for _, p := range c.Pods {
		isPending := p.Status.Phase == corev1.PodPending
		if b.CanEvict(isPending) {
			b.Disrupted(isPending)
			out = append(out, p.Name)
		}
	}
	return out
}
