package mismatch

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
)

var t0 = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

func tmpl(opts ...fixture.NodeOption) *template.Template {
	base := []fixture.NodeOption{fixture.WithNodeLabels(map[string]string{"team": "a", nodetemplate.LabelZone: "z1"})}
	return &template.Template{Node: fixture.Node("template-node-for-g", append(base, opts...)...)}
}

func realNode(name string, created time.Time, opts ...fixture.NodeOption) *corev1.Node {
	base := []fixture.NodeOption{fixture.WithNodeLabels(map[string]string{"team": "a", nodetemplate.LabelZone: "z1"})}
	n := fixture.Node(name, append(base, opts...)...)
	n.CreationTimestamp = metav1.NewTime(created)
	return n
}

var dsGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}

func TestCompare(t *testing.T) {
	ignore := func(k string) bool { return k == "startup.example/not-ready" }
	cases := []struct {
		name string
		node *corev1.Node
		pods []*corev1.Pod
		want string
	}{
		{name: "identical", node: realNode("n", t0)},
		{name: "extra taint", node: realNode("n", t0, fixture.WithTaints(fixture.Taint("dedicated", "infra", corev1.TaintEffectNoExecute))),
			want: "taint dedicated=infra:NoExecute not on the template"},
		{name: "ignored and lifecycle taints", node: realNode("n", t0, fixture.WithTaints(fixture.Taint("startup.example/not-ready", "", corev1.TaintEffectNoSchedule),
			fixture.Taint(corev1.TaintNodeDiskPressure, "", corev1.TaintEffectNoSchedule)))},
		{name: "label missing", node: realNode("n", t0, func(n *corev1.Node) { delete(n.Labels, "team") }),
			want: "label team=a of the template missing"},
		{name: "label other value", node: realNode("n", t0, fixture.WithNodeLabels(map[string]string{"team": "b"})),
			want: "label team is b, the template says a"},
		{name: "zone of the group", node: realNode("n", t0, fixture.WithZone("z2"))},
		{name: "zone outside the group", node: realNode("n", t0, fixture.WithZone("z9")),
			want: "label topology.kubernetes.io/zone is z9, the template says z1"},
		{name: "less cpu", node: realNode("n", t0, fixture.WithAllocatable(corev1.ResourceCPU, "3500m")),
			want: "allocatable cpu is 3500m, the template says 4"},
		{name: "more memory is no difference", node: realNode("n", t0, fixture.WithAllocatable(corev1.ResourceMemory, "32Gi"))},
		{name: "daemonset pod not on the template", node: realNode("n", t0),
			pods: []*corev1.Pod{fixture.Pod("agent-n", fixture.OnNode("n"), fixture.WithOwner(dsGVK, "agent", "uid-agent"), fixture.WithRequests("cpu", "1")),
				fixture.Pod("web-1", fixture.OnNode("n"), fixture.WithRequests("cpu", "1"))},
			want: "pod default/agent-n not on the template"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Describe(Compare(tmpl(), []string{"z1", "z2"}, tc.node, tc.pods, ignore))
			if got != tc.want {
				t.Fatalf("Compare = %q, want %q", got, tc.want)
			}
		})
	}
}

func guardInput(nodes []*corev1.Node, pending []*corev1.Pod, pods map[string][]*corev1.Pod, now time.Time, fp string) Input {
	return Input{Groups: []Group{{ID: "g", Fingerprint: fp, Zones: []string{"z1"}, Template: tmpl(), Nodes: nodes}},
		PodsOn: func(n string) []*corev1.Pod { return pods[n] }, Pending: pending, Now: now}
}

func kinds(ts []Transition) string {
	var out []string
	for _, t := range ts {
		out = append(out, string(t.Type))
	}
	return strings.Join(out, ",")
}

func TestGuardLearnsAndRecovers(t *testing.T) {
	g, err := New(Config{Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	taint := fixture.WithTaints(fixture.Taint("dedicated", "infra", corev1.TaintEffectNoExecute))
	old := realNode("old", t0.Add(-time.Hour), taint)
	if got := kinds(g.Observe(guardInput([]*corev1.Node{old}, nil, nil, t0, "v1"))); got != "" {
		t.Fatalf("a node older than the template's first sight taught %q", got)
	}
	tainted := realNode("new", t0.Add(time.Minute), taint)
	if got := kinds(g.Observe(guardInput([]*corev1.Node{old, tainted}, nil, nil, t0.Add(time.Minute), "v1"))); got != "TemplateMismatch" {
		t.Fatalf("transitions %q, want TemplateMismatch", got)
	}
	learnt := g.Template("g", tmpl())
	if len(learnt.Node.Spec.Taints) != 1 || learnt.Node.Spec.Taints[0].Key != "dedicated" {
		t.Fatalf("learnt template taints %v, want the real node's", learnt.Node.Spec.Taints)
	}
	if _, ok := g.Status("g"); !ok {
		t.Fatal("Status reports no mismatch")
	}
	// The node is removed: what it taught stays until the timeout.
	if got := kinds(g.Observe(guardInput(nil, nil, nil, t0.Add(30*time.Minute), "v1"))); got != "" {
		t.Fatalf("transitions %q before the timeout", got)
	}
	if got := kinds(g.Observe(guardInput(nil, nil, nil, t0.Add(2*time.Hour), "v1"))); got != "TemplateMismatchCleared" {
		t.Fatalf("transitions %q after the timeout, want TemplateMismatchCleared", got)
	}
	// Learnt again, then a new matching node clears it (the cause is gone).
	g.Observe(guardInput([]*corev1.Node{tainted}, nil, nil, t0.Add(2*time.Hour), "v1"))
	clean := realNode("clean", t0.Add(3*time.Hour))
	if got := kinds(g.Observe(guardInput([]*corev1.Node{tainted, clean}, nil, nil, t0.Add(3*time.Hour), "v1"))); got != "TemplateMismatchCleared" {
		t.Fatalf("transitions %q with a matching new node, want TemplateMismatchCleared", got)
	}
	// A template change forgets everything and old nodes teach nothing.
	g.Observe(guardInput([]*corev1.Node{tainted}, nil, nil, t0.Add(4*time.Hour), "v1"))
	if got := kinds(g.Observe(guardInput([]*corev1.Node{tainted}, nil, nil, t0.Add(5*time.Hour), "v2"))); got != "TemplateMismatchCleared" {
		t.Fatalf("transitions %q after a template change, want TemplateMismatchCleared", got)
	}
	if g.Template("g", tmpl()).Node.Spec.Taints != nil {
		t.Fatal("the template still carries what old nodes taught")
	}
}

func TestGuardBlocksPodsItCannotLearn(t *testing.T) {
	g, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	// The real node serves the pod's host port through a pod the template
	// cannot learn (a bare pod nobody schedules elsewhere).
	pod := fixture.Pod("web-1", fixture.WithRequests("cpu", "1"), fixture.WithHostPort(8080, corev1.ProtocolTCP),
		fixture.WithOwner(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, "web", "uid-web"), fixture.UnschedulablePod())
	g.Observe(guardInput(nil, []*corev1.Pod{pod}, nil, t0, "v1"))
	g.ScaledUp("g", []*corev1.Pod{pod}, t0)
	n := realNode("n1", t0.Add(2*time.Minute))
	squatter := fixture.Pod("squatter", fixture.OnNode("n1"), fixture.WithHostPort(8080, corev1.ProtocolTCP),
		fixture.WithAnnotations(map[string]string{corev1.MirrorPodAnnotationKey: "x"}))
	// The static pod is learnt (a pod difference), so the learnt template
	// already refuses the port: no block is needed.
	in := guardInput([]*corev1.Node{n}, []*corev1.Pod{pod}, map[string][]*corev1.Pod{"n1": {squatter}}, t0.Add(2*time.Minute), "v1")
	if got := kinds(g.Observe(in)); got != "TemplateMismatch" {
		t.Fatalf("transitions %q, want TemplateMismatch only (learnt)", got)
	}
	// A node that refuses the pod for a reason Compare does not look at
	// (here spec.unschedulable; the loop never hands the guard cordoned
	// nodes, which makes it a stand-in for any such reason) blocks the
	// group for the pod's owner.
	g2, _ := New(Config{})
	g2.Observe(guardInput(nil, []*corev1.Pod{pod}, nil, t0, "v1"))
	g2.ScaledUp("g", []*corev1.Pod{pod}, t0)
	cordoned := realNode("n2", t0.Add(2*time.Minute), fixture.Unschedulable())
	in = guardInput([]*corev1.Node{cordoned}, []*corev1.Pod{pod}, nil, t0.Add(2*time.Minute), "v1")
	if got := kinds(g2.Observe(in)); got != "TemplateMismatchBlocked" {
		t.Fatalf("transitions %q, want TemplateMismatchBlocked", got)
	}
	if b := g2.Blocked("g")[OwnerKey(pod)]; b == nil || !strings.Contains(b.Reason, "NodeUnschedulable") {
		t.Fatalf("block %+v, want one naming NodeUnschedulable", b)
	}
	// The node becomes schedulable: the block lifts.
	in = guardInput([]*corev1.Node{realNode("n2", t0.Add(2*time.Minute))}, []*corev1.Pod{pod}, nil, t0.Add(3*time.Minute), "v1")
	if got := kinds(g2.Observe(in)); got != "TemplateMismatchCleared" {
		t.Fatalf("transitions %q, want TemplateMismatchCleared", got)
	}
}

func TestNewRejectsNegativeTimeout(t *testing.T) {
	if _, err := New(Config{Timeout: -time.Second}); err == nil {
		t.Fatal("New accepted a negative timeout")
	}
}
