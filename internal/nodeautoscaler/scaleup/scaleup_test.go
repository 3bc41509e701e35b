package scaleup

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/simulator"
)

var now = time.Date(2020, 1, 1, 1, 0, 0, 0, time.UTC)

func group(id string, prio string, target, upcoming, maxSize int) Group {
	labels := map[string]string{"pool": "x"}
	if prio != "" {
		labels[expander.PriorityLabel] = prio
	}
	n := fixture.Node("template-"+id, fixture.WithCapacity(corev1.ResourceCPU, "4"),
		fixture.WithCapacity(corev1.ResourceMemory, "32Gi"), fixture.WithNodeLabels(labels))
	return Group{ID: id, Target: target, Max: maxSize, Upcoming: upcoming, Template: &template.Template{Node: n}}
}

func pods(n int, mem string, opts ...fixture.PodOption) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		o := append([]fixture.PodOption{fixture.WithRequests("cpu", "1", "memory", mem),
			fixture.WithCreationTime(metav1.NewTime(now.Add(-time.Minute + time.Duration(i)*time.Second)))}, opts...)
		out = append(out, fixture.Pod("p-"+mem+"-"+string(rune('a'+i)), o...))
	}
	return out
}

func withResourceClaim(p *corev1.Pod) {
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &p.Name}}
}

func run(t *testing.T, in Input) Plan {
	t.Helper()
	if in.Snapshot == nil {
		in.Snapshot = simulator.NewSnapshot()
	}
	chain, err := expander.NewChain([]string{"highest-priority"}, expander.Sources{}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	in.Expander, in.Now = chain, now
	if in.Limits.MaxNodesPerScaleUp == 0 {
		in.Limits.MaxNodesPerScaleUp = 1000
	}
	plan, err := Compute(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if in.Snapshot.NodeCount() != 0 && in.Snapshot.Forked() != 0 {
		t.Fatal("snapshot left forked")
	}
	return plan
}

func increases(p Plan) string {
	var parts []string
	for _, i := range p.Increases {
		parts = append(parts, i.Group+"+"+string(rune('0'+i.Delta)))
	}
	return strings.Join(parts, ",")
}

func TestCompute(t *testing.T) {
	existing := simulator.NewSnapshot()
	if err := existing.AddNode(fixture.Node("n1", fixture.WithCapacity(corev1.ResourceMemory, "32Gi"))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		in     Input
		want   string
		reason string
	}{
		{"highest priority wins, one node per 24Gi pod",
			Input{Pending: pods(2, "24Gi"), Groups: []Group{group("ng-1", "100", 0, 0, 10), group("ng-3", "120", 0, 0, 10), group("ng-f", "", 0, 0, 10)}},
			"ng-3+2", ""},
		{"pods fitting an existing node trigger nothing",
			Input{Snapshot: existing, Pending: pods(1, "24Gi"), Groups: []Group{group("ng-1", "", 0, 0, 10)}}, "", ""},
		{"pods fitting upcoming nodes trigger nothing",
			Input{Pending: pods(2, "24Gi"), Groups: []Group{group("ng-1", "", 2, 2, 10)}}, "", ""},
		{"backed-off group is skipped with its reason",
			Input{Pending: pods(1, "24Gi"), Groups: []Group{func() Group {
				g := group("ng-1", "100", 0, 0, 10)
				g.SkipReason = "in backoff after failed scale-up (timeout)"
				return g
			}(), group("ng-f", "", 0, 0, 10)}},
			"ng-f+1", ""},
		{"max size reached explains the pod",
			Input{Pending: pods(1, "24Gi"), Groups: []Group{group("ng-1", "", 1, 0, 1)}}, "", "ng-1: max size reached"},
		{"pod larger than the template explains why",
			Input{Pending: pods(1, "48Gi"), Groups: []Group{group("ng-1", "", 0, 0, 10)}}, "", "Insufficient memory"},
		{"max size caps the increase",
			Input{Pending: pods(3, "24Gi"), Groups: []Group{group("ng-1", "", 8, 0, 10)}}, "ng-1+2", ""},
		{"balancing spreads over similar groups, smallest first",
			Input{Pending: pods(4, "24Gi"), Balance: true, Similarity: DefaultSimilarity(), Groups: []Group{group("a", "", 2, 0, 10), group("b", "", 0, 0, 10), group("c", "", 0, 0, 10)}},
			"b+2,c+2", ""},
		{"max-nodes-total trims",
			Input{Pending: pods(5, "24Gi"), Limits: Limits{MaxNodesTotal: 3, Nodes: 1}, Groups: []Group{group("ng-1", "", 0, 0, 10)}},
			"ng-1+2", ""},
		{"too new and expendable pods are skipped",
			Input{Pending: append(pods(1, "24Gi", fixture.WithPriority(-20)), fixture.Pod("new", fixture.WithRequests("memory", "24Gi"),
				fixture.WithCreationTime(metav1.NewTime(now)))),
				Filter: PodFilter{NewPodScaleUpDelay: 30 * time.Second, ExpendablePriorityCutoff: -10}, Groups: []Group{group("ng-1", "", 0, 0, 10)}},
			"", ""},
		{"max-nodes-total cutting the estimate short says so at once",
			Input{Pending: pods(5, "24Gi"), Limits: Limits{MaxNodesTotal: 3, Nodes: 2}, Groups: []Group{group("ng-1", "", 2, 0, 10)}},
			"ng-1+1", "ng-1: max nodes total reached"},
		{"max size cutting the estimate short says so",
			Input{Pending: pods(5, "24Gi"), Groups: []Group{group("ng-1", "", 8, 0, 10)}}, "ng-1+2", "ng-1: max size reached"},
		{"max-nodes-per-scaleup cutting the estimate short says so",
			Input{Pending: pods(5, "24Gi"), Limits: Limits{MaxNodesPerScaleUp: 2}, Groups: []Group{group("ng-1", "", 0, 0, 10)}},
			"ng-1+2", "ng-1: max nodes per scale-up reached"},
		{"the time budget cutting the estimate short says so",
			Input{Pending: pods(5, "24Gi"), Deadline: func() bool { return true }, Groups: []Group{group("ng-1", "", 0, 0, 10)}},
			"", "ng-1: estimate cut short: time budget"},
		{"a pod the simulator does not model (resource claims) triggers nothing and says why",
			Input{Pending: pods(1, "1Gi", withResourceClaim), Groups: []Group{group("ng-1", "", 0, 0, 10)}}, "", "NotSimulated: dynamic resource allocation"},
		{"only the oldest pods are considered",
			Input{Pending: pods(5, "24Gi"), MaxPodsConsidered: 2, Groups: []Group{group("ng-1", "", 0, 0, 10)}}, "ng-1+2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkPlan(t, tt.in, tt.want, tt.reason)
		})
	}
}

// checkPlan runs in and checks the increases it plans ("group+n", joined)
// and, when reason is set, that the first unhelped pod's reasons name it.
func checkPlan(t *testing.T, in Input, want, reason string) {
	t.Helper()
	plan := run(t, in)
	if got := increases(plan); got != want {
		t.Fatalf("increases %q, want %q (plan %+v)", got, want, plan)
	}
	if reason == "" {
		return
	}
	if len(plan.NoScaleUp) == 0 {
		t.Fatalf("no explanation, want %q", reason)
	}
	var all []string
	for _, r := range plan.NoScaleUp[0].Reasons {
		all = append(all, r.Group+": "+r.Reason)
	}
	if joined := strings.Join(all, "; "); !strings.Contains(joined, reason) {
		t.Fatalf("reasons %q, want %q", joined, reason)
	}
}
