package kwok_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/testenv"
)

const providerConfig = `
nodeGroups:
- name: pool
  max: 3
  instanceTypes: [m5.large]
  labels: {pool: a}
  taints: [{key: dedicated, value: batch, effect: NoSchedule}]
  reserved: {cpu: 100m}
  bootTime: 30s
  deleteTime: 20s
  capacity: 2
  stockoutError: {code: InsufficientInstanceCapacity}
- name: fixed
  min: 1
  max: 2
  target: 1
  resources: {cpu: "3", memory: 6Gi}
  bootTime: 0s
`

// TestProvider scales groups of the kwok provider on a real API server: nodes
// appear after the boot time with the template, vanish on deletion, capacity
// limits report errors, and a new provider adopts the existing nodes.
func TestProvider(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	cfg, err := kwok.ParseCloudConfig([]byte(providerConfig))
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	p := newProvider(t, env, cfg, clk)
	// min 1 of "fixed" boots at once.
	expectNodes(t, env, map[string]int{"fixed": 1})
	if err := p.IncreaseSize(ctx, "pool", 3); err != nil {
		t.Fatal(err)
	}
	// The target is written when IncreaseSize returns; the launched
	// machines' nodes with the next sync: NotReady, tainted not-ready and
	// annotated with the end of their boot.
	expectTargets(t, env, `{"fixed":1,"pool":3}`)
	sync(t, p)
	for _, n := range expectNodes(t, env, map[string]int{"fixed": 1, "pool": 2})["pool"] {
		if nodeReady(&n) != corev1.ConditionFalse || n.Annotations[kwok.AnnotationReadyAt] == "" || n.Annotations[kwokstages.NodeAnnotation] != kwokstages.NodeAnnotationValue ||
			!slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady }) {
			t.Errorf("booting node %s: ready %v, annotations %v, taints %v", n.Name, nodeReady(&n), n.Annotations, n.Spec.Taints)
		}
	}
	expectTargets(t, env, `{"fixed":1,"pool":3}`)
	clk.Step(30 * time.Second)
	sync(t, p)
	nodes := expectNodes(t, env, map[string]int{"fixed": 1, "pool": 2})
	n := nodes["pool"][0]
	wantCPU := resource.MustParse("1900m")
	switch {
	case n.Labels["pool"] != "a" || n.Labels["node.kubernetes.io/instance-type"] != "m5.large":
		t.Errorf("labels %v", n.Labels)
	case !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == "dedicated" && t.Value == "batch" }):
		t.Errorf("taints %v", n.Spec.Taints)
	case n.Status.Allocatable.Cpu().Cmp(wantCPU) != 0:
		t.Errorf("allocatable cpu %v, want %v", n.Status.Allocatable.Cpu(), wantCPU.String())
	case !strings.HasPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix+"pool/"):
		t.Errorf("providerID %q", n.Spec.ProviderID)
	case nodeReady(&n) != corev1.ConditionTrue || n.Annotations[kwok.AnnotationReadyAt] != "":
		t.Errorf("node not Ready after its boot: %v, annotations %v", n.Status.Conditions, n.Annotations)
	case n.Annotations[kwokstages.NodeAnnotation] != kwokstages.NodeAnnotationValue:
		t.Errorf("booted node not annotated for kwok: annotations %v", n.Annotations)
	case slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady }):
		t.Errorf("booted node keeps the not-ready taint: %v", n.Spec.Taints)
	}
	// The third instance exceeds the capacity: its placeholder reports the stock-out.
	insts, err := p.Instances(ctx, "pool")
	if err != nil {
		t.Fatal(err)
	}
	if got := placeholderError(insts); got != "InsufficientInstanceCapacity" {
		t.Errorf("placeholder error %q, want the stock-out", got)
	}
	// Deleting an instance deletes its node once the instance is gone,
	// after the group's deleteTime.
	id := strings.TrimPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix+"pool/")
	if err := p.DeleteInstances(ctx, "pool", []string{id}); err != nil {
		t.Fatal(err)
	}
	sync(t, p)
	if got := expectNodes(t, env, map[string]int{"fixed": 1, "pool": 2})["pool"]; !slices.ContainsFunc(got, func(m corev1.Node) bool { return m.Name == n.Name }) {
		t.Errorf("the deleting instance's node %s is gone before deleteTime; pool nodes %v", n.Name, got)
	}
	clk.Step(20 * time.Second)
	sync(t, p)
	expectNodes(t, env, map[string]int{"fixed": 1, "pool": 1})
	expectTargets(t, env, `{"fixed":1,"pool":2}`)
	// A restarted provider adopts the nodes instead of creating new ones and
	// restores the targets, so the open request of pool stays open (the new
	// process's cloud has capacity again and fulfils it).
	p2 := newProvider(t, env, cfg, clk)
	expectNodes(t, env, map[string]int{"fixed": 1, "pool": 2})
	groups, err := p2.NodeGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if want := map[string]int{"fixed": 1, "pool": 2}[g.ID]; g.TargetSize != want {
			t.Errorf("adopted group %s has target %d, want %d", g.ID, g.TargetSize, want)
		}
	}
	// A provider restarted while a machine boots resumes the boot.
	clk.Step(10 * time.Second)
	p3 := newProvider(t, env, cfg, clk)
	booting := func() int {
		n := 0
		for _, m := range p3.Machines() {
			if m.Group == "pool" && !m.Running {
				n++
			}
		}
		return n
	}
	if booting() != 1 {
		t.Fatalf("%d booting pool machines after the restart, want 1", booting())
	}
	clk.Step(20 * time.Second)
	sync(t, p3)
	if booting() != 0 {
		t.Errorf("the adopted machine did not finish its boot at its original time")
	}
	for _, n := range expectNodes(t, env, map[string]int{"fixed": 1, "pool": 2})["pool"] {
		if nodeReady(&n) != corev1.ConditionTrue {
			t.Errorf("node %s not Ready after the resumed boot", n.Name)
		}
	}
}

// expectTargets checks the target sizes the provider persisted.
func expectTargets(t *testing.T, env *testenv.Env, want string) {
	t.Helper()
	cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(t.Context(), kwok.StateConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cm.Data["targets.json"]; got != want {
		t.Errorf("persisted targets %s, want %s", got, want)
	}
}

func newProvider(t *testing.T, env *testenv.Env, cfg *kwok.CloudConfig, clk *clocktesting.FakeClock) *kwok.Provider {
	t.Helper()
	p, err := kwok.New(kwok.Config{Client: env.Client, Clock: clk, NodeGroups: cfg.NodeGroups})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	sync(t, p)
	return p
}

func sync(t *testing.T, p *kwok.Provider) {
	t.Helper()
	if err := p.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// expectNodes checks the kwok nodes per group and returns them.
func expectNodes(t *testing.T, env *testenv.Env, want map[string]int) map[string][]corev1.Node {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(context.WithoutCancel(t.Context()), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]corev1.Node{}
	for _, n := range list.Items {
		rest, ok := strings.CutPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix)
		if !ok {
			continue
		}
		g, _, _ := strings.Cut(rest, "/")
		got[g] = append(got[g], n)
	}
	if c := counts(got); !maps.Equal(c, want) {
		t.Fatalf("nodes per group %v, want %v", c, want)
	}
	return got
}

func counts(m map[string][]corev1.Node) map[string]int {
	out := map[string]int{}
	for g, ns := range m {
		out[g] = len(ns)
	}
	return out
}

func placeholderError(insts []cloudprovider.Instance) string {
	for _, i := range insts {
		if i.Placeholder && i.Error != nil {
			return i.Error.Code
		}
	}
	return ""
}
