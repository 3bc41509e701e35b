package actuation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation/memcluster"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

var (
	t0     = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	rsKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
)

// cloud records deletions; it is the fake cloud of these tests.
type cloud struct {
	calls []string
	err   error
}

func (c *cloud) DeleteInstances(_ context.Context, group string, ids []string) error {
	c.calls = append(c.calls, fmt.Sprintf("%s%v", group, ids))
	return c.err
}

// instant is the default configuration without the wait between marking
// a node and deleting or draining it.
func instant() actuation.Config {
	c := actuation.Default()
	c.DeleteDelayAfterTaint = 0
	return c
}

type rig struct {
	t       *testing.T
	cluster *memcluster.Cluster
	cloud   *cloud
	reg     *prometheus.Registry
	act     *actuation.Actuator
	now     time.Time
}

func newRig(t *testing.T, cfg actuation.Config) *rig {
	t.Helper()
	r := &rig{t: t, cluster: memcluster.New(t0), cloud: &cloud{}, reg: prometheus.NewRegistry(), now: t0}
	m, err := actuation.NewMetrics(r.reg)
	if err != nil {
		t.Fatal(err)
	}
	if r.act, err = actuation.New(cfg, r.cluster, r.cloud, m); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) node(name string) *corev1.Node {
	n := fixture.Node(name)
	r.cluster.AddNode(n)
	return n
}

var zero = int64(0)

// pod adds a ready ReplicaSet pod labelled app=app on node.
func (r *rig) pod(name, app, node string) *corev1.Pod {
	p := fixture.Pod(name, fixture.OnNode(node), fixture.Running(), fixture.WithLabels(map[string]string{"app": app}),
		fixture.WithOwner(rsKind, app, types.UID("uid-"+app)))
	p.UID = types.UID("uid-" + name)
	p.Spec.TerminationGracePeriodSeconds = &zero
	r.cluster.AddPod(p, time.Time{})
	return p
}

func candidate(n *corev1.Node, group string, pods ...*corev1.Pod) scaledown.Candidate {
	return scaledown.Candidate{Node: n, Group: group, Instance: "i-" + n.Name, Ready: true, Empty: len(pods) == 0, Pods: pods}
}

// runUntil steps every 10 s until a deletion ends or limit passes.
func (r *rig) runUntil(limit time.Duration, check func()) []actuation.Outcome {
	r.t.Helper()
	for end := r.now.Add(limit); r.now.Before(end); {
		r.now = r.now.Add(10 * time.Second)
		r.cluster.Tick(r.now)
		if check != nil {
			check()
		}
		if out := r.act.Step(context.Background(), r.now); len(out) > 0 {
			return out
		}
	}
	return nil
}

func (r *rig) taints(node string) []string {
	n, _ := r.cluster.Node(node)
	var out []string
	for _, t := range n.Spec.Taints {
		out = append(out, t.Key)
	}
	return out
}

func TestEmptyNodesInBulk(t *testing.T) {
	r := newRig(t, instant())
	plan := scaledown.Plan{Empty: []scaledown.Candidate{
		candidate(r.node("a"), "g1"), candidate(r.node("b"), "g2"), candidate(r.node("c"), "g1"),
	}}
	out := r.act.Start(t.Context(), plan, t0)
	if want := []string{"g1[i-a i-c]", "g2[i-b]"}; !slices.Equal(r.cloud.calls, want) {
		t.Fatalf("cloud calls = %v, want %v", r.cloud.calls, want)
	}
	if len(out) != 3 || out[0].Failed() || out[0].Kind != actuation.KindEmpty {
		t.Fatalf("outcomes = %v", out)
	}
	want := []string{clusterstate.ToBeDeletedTaint, clusterstate.BeingDeletedTaint}
	if got := r.taints("a"); !slices.Equal(got, want) {
		t.Errorf("taints = %v, want %v", got, want)
	}
	// As upstream, the ToBeDeleted taint's value is the Unix time it was set.
	n, _ := r.cluster.Node("a")
	if got, want := n.Spec.Taints[0].Value, strconv.FormatInt(t0.Unix(), 10); got != want {
		t.Errorf("ToBeDeleted value = %q, want %q", got, want)
	}
	if got := testutil.ToFloat64(mustCounter(t, r.reg, "cluster_autoscaler_scaled_down_nodes_total")); got != 3 {
		t.Errorf("scaled_down_nodes_total = %v", got)
	}
}

func TestCloudFailureUntaints(t *testing.T) {
	r := newRig(t, instant())
	r.cloud.err = errors.New("quota")
	n := r.node("a")
	p := r.pod("p", "web", "a")
	out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(n, "g", p)}}, t0)
	if len(out) != 1 || out[0].Failure != actuation.FailureCloudDelete {
		t.Fatalf("outcomes = %v", out)
	}
	if got := r.taints("a"); len(got) != 0 {
		t.Errorf("taints left: %v", got)
	}
	if got := testutil.ToFloat64(mustCounter(t, r.reg, "cluster_autoscaler_failed_scale_down_total")); got != 1 {
		t.Errorf("failed_scale_down_total = %v", got)
	}
}

// The seed's example: 3 nodes x 10 replicas, a PDB allowing 1 unavailable,
// replacements ready 30 s after they are created.
func TestDrainWithPDB(t *testing.T) {
	tests := []struct {
		name        string
		evictTime   time.Duration
		wantFailure actuation.FailureReason
		minEvicted  int
		maxEvicted  int
	}{
		{"upstream 2 minutes churns", 2 * time.Minute, actuation.FailureEvictionTimeout, 3, 6},
		{"1 hour drains in one attempt", time.Hour, "", 10, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := instant()
			cfg.MaxPodEvictionTime = tc.evictTime
			r := newRig(t, cfg)
			var first []*corev1.Pod
			for i := range 3 {
				n := r.node(fmt.Sprintf("n%d", i))
				for j := range 10 {
					p := r.pod(fmt.Sprintf("web-%d-%d", i, j), "web", n.Name)
					if i == 0 {
						first = append(first, p)
					}
				}
			}
			r.cluster.AddPDB(fixture.PDB("web", "web"), 30)
			replacements := 0
			r.cluster.OnEvict = func(p *corev1.Pod) {
				replacements++
				np := fixture.Pod(fmt.Sprintf("web-r%d", replacements), fixture.OnNode("n1"), fixture.WithLabels(p.Labels))
				r.cluster.AddPod(np, r.now.Add(30*time.Second))
			}
			n0, _ := r.cluster.Node("n0")
			out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(n0, "g", first...)}}, t0)
			if len(out) == 0 {
				out = r.runUntil(2*time.Hour, func() {
					if pdb := r.cluster.PDBs()[0]; unavailable(r.cluster.Pods()) > 1 {
						t.Fatalf("at %v more than one pod unavailable (allowed %d)", r.now.Sub(t0), pdb.Status.DisruptionsAllowed)
					}
				})
			}
			if len(out) != 1 || out[0].Failure != tc.wantFailure {
				t.Fatalf("outcomes = %v", out)
			}
			t.Logf("ended after %v with %d pods evicted", out[0].Ended.Sub(t0), out[0].Evicted)
			if e := out[0].Evicted; e < tc.minEvicted || e > tc.maxEvicted {
				t.Errorf("evicted %d pods, want %d..%d", e, tc.minEvicted, tc.maxEvicted)
			}
			if tc.wantFailure != "" {
				if got := r.taints("n0"); len(got) != 0 {
					t.Errorf("taints left after failure: %v", got)
				}
				return
			}
			if !slices.Equal(r.cloud.calls, []string{"g[i-n0]"}) {
				t.Errorf("cloud calls = %v", r.cloud.calls)
			}
		})
	}
}

// unavailable counts web pods that are not Ready among the 30 expected.
func unavailable(pods []*corev1.Pod) int {
	ready := 0
	for _, p := range pods {
		if p.Labels["app"] != "web" || p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	return 30 - ready
}

func TestEvictionUsesUIDPrecondition(t *testing.T) {
	r := newRig(t, instant())
	n := r.node("a")
	old := r.pod("p", "web", "a")
	// The pod was replaced by one with the same name before the drain.
	replaced := old.DeepCopy()
	replaced.UID = "uid-new"
	r.cluster.AddPod(replaced, time.Time{})
	out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(n, "g", old)}}, t0)
	if len(r.cluster.Evictions) != 0 {
		t.Fatalf("evicted %v despite the UID change", r.cluster.Evictions)
	}
	if len(out) != 1 || out[0].Failed() {
		t.Fatalf("outcomes = %v", out)
	}
}

func TestPodsRemaining(t *testing.T) {
	cfg := instant()
	cfg.MaxGracefulTermination = time.Minute
	r := newRig(t, cfg)
	n := r.node("a")
	p := r.pod("p", "web", "a")
	long := int64(3600)
	p.Spec.TerminationGracePeriodSeconds = &long
	// The pod ignores its termination: it never disappears.
	r.cluster.OnEvict = func(ev *corev1.Pod) { r.cluster.AddPod(ev, time.Time{}) }
	if out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(n, "g", p)}}, t0); len(out) != 0 {
		t.Fatalf("ended at once: %v", out)
	}
	out := r.runUntil(time.Hour, nil)
	if len(out) != 1 || out[0].Failure != actuation.FailurePodsRemaining {
		t.Fatalf("outcomes = %v", out)
	}
	if got := out[0].Ended.Sub(t0); got != 90*time.Second {
		t.Errorf("failed after %v, want grace 1m + 30s headroom", got)
	}
	if got := r.taints("a"); len(got) != 0 {
		t.Errorf("taints left: %v", got)
	}
}

func TestCleanUpLeftoverTaints(t *testing.T) {
	r := newRig(t, instant())
	a := r.node("a")
	_ = r.cluster.AddTaint(t.Context(), "a", corev1.Taint{Key: clusterstate.ToBeDeletedTaint, Effect: corev1.TaintEffectNoSchedule})
	_ = r.cluster.AddTaint(t.Context(), "a", corev1.Taint{Key: clusterstate.BeingDeletedTaint, Effect: corev1.TaintEffectNoSchedule})
	_ = r.cluster.AddTaint(t.Context(), "a", corev1.Taint{Key: "other", Effect: corev1.TaintEffectNoSchedule})
	a, _ = r.cluster.Node(a.Name)
	if err := r.act.CleanUp(t.Context(), []*corev1.Node{a}); err != nil {
		t.Fatal(err)
	}
	if got := r.taints("a"); !slices.Equal(got, []string{"other"}) {
		t.Fatalf("taints = %v", got)
	}
}

func mustCounter(t *testing.T, reg *prometheus.Registry, name string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "sum"})
	c.Add(sum)
	return c
}

func TestEmptyNodeGainedAPod(t *testing.T) {
	r := newRig(t, instant())
	a, b := r.node("a"), r.node("b")
	// A pod landed on a after the plan; a DaemonSet pod on b does not count.
	r.pod("late", "web", "a")
	ds := fixture.Pod("ds", fixture.OnNode("b"), fixture.WithOwner(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, "ds", "uid-ds"))
	r.cluster.AddPod(ds, time.Time{})
	out := r.act.Start(t.Context(), scaledown.Plan{Empty: []scaledown.Candidate{candidate(a, "g"), candidate(b, "g")}}, t0)
	if len(out) != 2 || out[0].Failure != actuation.FailureNotEmpty || out[1].Failed() {
		t.Fatalf("outcomes = %v", out)
	}
	if !slices.Equal(r.cloud.calls, []string{"g[i-b]"}) {
		t.Errorf("cloud calls = %v", r.cloud.calls)
	}
	if got := r.taints("a"); len(got) != 0 {
		t.Errorf("taints left on a: %v", got)
	}
}
