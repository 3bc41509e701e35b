package snapshot

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/offline"
)

// budgetCluster has budgets of every shape: over two workloads (int
// minAvailable), over one with a percentage, a second one on a workload
// (maxUnavailable, AlwaysAllow), one over part of a workload (whose pods
// differ in a label, written as podLabels), one in
// another namespace selecting everything there, and two the scenario
// cannot hold (no selector, no budget).
func budgetCluster() *Cluster {
	front := map[string]string{"tier": "front"}
	withApp := func(app string, l map[string]string) fixture.PodOption {
		m := map[string]string{"app": app}
		for k, v := range l {
			m[k] = v
		}
		return fixture.WithLabels(m)
	}
	pods := []*corev1.Pod{
		ownedPod("web-1", "ReplicaSet", "web", "n", withApp("web", front)),
		ownedPod("web-2", "ReplicaSet", "web", "n", withApp("web", front)),
		ownedPod("api-1", "ReplicaSet", "api", "n", withApp("api", front)),
		ownedPod("db-0", "StatefulSet", "db", "n", withApp("db", map[string]string{"role": "primary"})),
		ownedPod("db-1", "StatefulSet", "db", "n", withApp("db", map[string]string{"role": "replica"})),
		ownedPod("q-1", "ReplicaSet", "q", "n", withApp("q", nil), fixture.InNamespace("jobs")),
	}
	sel := func(s *metav1.LabelSelector) fixture.PDBOption {
		return func(p *policyv1.PodDisruptionBudget) { p.Spec.Selector = s }
	}
	inJobs := func(p *policyv1.PodDisruptionBudget) { p.Namespace = "jobs" }
	always := func(p *policyv1.PodDisruptionBudget) {
		p.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
	}
	neither := func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = nil }
	return cluster([]*corev1.Node{fixture.Node("n", fixture.WithCapacity(corev1.ResourceCPU, "16"), fixture.WithCapacity(corev1.ResourceMemory, "64Gi"))}, pods,
		fixture.PDB("front", "", sel(&metav1.LabelSelector{MatchLabels: front}), fixture.MinAvailable(intstr.FromInt32(2))),
		fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromString("50%"))),
		fixture.PDB("web-too", "", sel(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}, {Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist}}}), always),
		fixture.PDB("primary", "", sel(&metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}})),
		fixture.PDB("all", "", sel(&metav1.LabelSelector{}), inJobs),
		fixture.PDB("none", "", sel(nil)),
		fixture.PDB("unbounded", "web", neither),
	)
}

// TestConvertBudgets checks the round trip of budgets: cluster ->
// snapshot -> scenario file -> offline world gives the same
// PodDisruptionBudget objects (name, namespace, selector, budget, policy)
// for every budget the scenario can hold, and notes the others and the
// one whose selection the simulation changes.
func TestConvertBudgets(t *testing.T) {
	c := budgetCluster()
	res, err := Convert(c, defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	scn := roundTrip(t, res)
	w, err := offline.New(scn)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]policyv1.PodDisruptionBudgetSpec{}
	for _, b := range w.PDBs() {
		got[b.Namespace+"/"+b.Name] = b.Spec
		if b.Name == "primary" && b.Status.CurrentHealthy != 1 {
			t.Errorf("budget primary counts %d healthy pods, want db-0 alone (podLabels)", b.Status.CurrentHealthy)
		}
	}
	want := map[string]policyv1.PodDisruptionBudgetSpec{}
	for _, b := range c.PDBs {
		if b.Name != "none" && b.Name != "unbounded" {
			want[b.Namespace+"/"+b.Name] = b.Spec
		}
	}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("budgets in the simulation:\n got %+v\nwant %+v", got, want)
	}
	for _, note := range []string{"PodDisruptionBudget default/none is left out: it has no selector",
		"PodDisruptionBudget default/unbounded is left out: it sets neither minAvailable nor maxUnavailable",
		"2 pods are selected by several PodDisruptionBudgets (default/front, default/web, default/web-too)"} {
		if !containsNote(res.Notes, note) {
			t.Errorf("notes %q lack %q", res.Notes, note)
		}
	}
	for _, n := range res.Notes {
		if containsNote([]string{n}, "PodDisruptionBudget default/front") || containsNote([]string{n}, "PodDisruptionBudget jobs/all") ||
			containsNote([]string{n}, "PodDisruptionBudget default/primary") || containsNote([]string{n}, "differ from pod") {
			t.Errorf("note %q: the budget survives as it is", n)
		}
	}
}

// FuzzConvertBudgets checks that any budget the API server accepts gives
// a file that parses and loads: odd names, namespaces, selector keys,
// values and operators, and budget values.
func FuzzConvertBudgets(f *testing.F) {
	f.Add("front", "default", "tier", "front", "In", "50%", true)
	f.Add("a.b", "ns-1", "example.com/role", "", "Exists", "0", false)
	f.Add("x", "default", "app", "web", "NotIn", "100%", true)
	f.Add("y", "default", "k", "", "DoesNotExist", "3", false)
	f.Fuzz(func(t *testing.T, name, namespace, key, value, op, budget string, minAvailable bool) {
		req := metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(op)}
		if value != "" {
			req.Values = []string{value}
		}
		pdb := fixture.PDB(name, "", func(p *policyv1.PodDisruptionBudget) {
			p.Namespace = namespace
			p.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{key: value}, MatchExpressions: []metav1.LabelSelectorRequirement{req}}
		})
		v := intstr.Parse(budget)
		if minAvailable {
			fixture.MinAvailable(v)(pdb)
		} else {
			fixture.MaxUnavailable(v)(pdb)
		}
		if !acceptedBudget(pdb, budget) {
			return // the API server rejects such objects
		}
		c := cluster([]*corev1.Node{fixture.Node("n")}, []*corev1.Pod{
			ownedPod("w-1", "ReplicaSet", "w", "n", fixture.WithLabels(map[string]string{key: value}), fixture.InNamespace(namespace)),
		}, pdb)
		convertRoundTrip(t, c)
	})
}

// acceptedBudget reports whether the API server would accept the budget
// written with the value budget.
func acceptedBudget(pdb *policyv1.PodDisruptionBudget, budget string) bool {
	if len(validation.IsDNS1123Subdomain(pdb.Name)) > 0 || len(validation.IsDNS1123Label(pdb.Namespace)) > 0 {
		return false
	}
	if errs := metav1validation.ValidateLabelSelector(pdb.Spec.Selector, metav1validation.LabelSelectorValidationOptions{}, nil); len(errs) > 0 {
		return false
	}
	num, _ := strings.CutSuffix(budget, "%")
	n, err := strconv.Atoi(num)
	return err == nil && n >= 0 && n <= 100 && strconv.Itoa(n)+budget[len(num):] == budget
}
