package actuation_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation/memcluster"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// removingCloud deletes the nodes of deleted instances from the cluster.
type removingCloud struct {
	cluster *memcluster.Cluster
	deleted int
}

func (c *removingCloud) DeleteInstances(_ context.Context, _ string, ids []string) error {
	for _, id := range ids {
		c.cluster.RemoveNode(strings.TrimPrefix(id, "i-"))
		c.deleted++
	}
	return nil
}

// pdbWorld is the seed's example: 3 nodes x 10 replicas of one ReplicaSet
// with a PDB allowing 1 unavailable; replacements start in 30 s on the
// fullest untainted node.
type pdbWorld struct {
	t       *testing.T
	cluster *memcluster.Cluster
	cloud   *removingCloud
	ctrl    *actuation.Controller
	reg     *prometheus.Registry
	now     time.Time
	next    int
	// smallAt is when the cluster first had one node left.
	smallAt time.Duration
}

func newPDBWorld(t *testing.T, evictTime time.Duration) *pdbWorld {
	w := &pdbWorld{t: t, cluster: memcluster.New(t0), now: t0, reg: prometheus.NewRegistry()}
	w.cloud = &removingCloud{cluster: w.cluster}
	sd := scaledown.Default()
	sd.UnneededTime = time.Minute
	sd.DelayAfterAdd = -1
	act := actuation.Default()
	act.MaxPodEvictionTime = evictTime
	var err error
	w.ctrl, err = actuation.NewController(actuation.ControllerConfig{ScaleDown: sd, Actuation: act,
		Cluster: w.cluster, Deleter: w.cloud, Registerer: w.reg})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.cluster.AddNode(fixture.Node(fmt.Sprintf("n%d", i)))
		for range 10 {
			w.addPod(fmt.Sprintf("n%d", i), time.Time{})
		}
	}
	w.cluster.AddPDB(fixture.PDB("web", "web"), 30)
	w.cluster.OnEvict = func(*corev1.Pod) { w.addPod(w.fullestUntainted(), w.now.Add(30*time.Second)) }
	return w
}

func (w *pdbWorld) addPod(node string, readyAt time.Time) {
	w.next++
	p := fixture.Pod(fmt.Sprintf("web-%d", w.next), fixture.OnNode(node), fixture.WithLabels(map[string]string{"app": "web"}),
		fixture.WithOwner(rsKind, "web", "uid-web"))
	p.UID = types.UID(p.Name)
	p.Spec.TerminationGracePeriodSeconds = &zero
	if readyAt.IsZero() {
		fixture.Running()(p)
	}
	w.cluster.AddPod(p, readyAt)
}

func (w *pdbWorld) fullestUntainted() string {
	best, most := "", -1
	for _, n := range w.cluster.Nodes() {
		if clusterstate.HasTaint(n, clusterstate.ToBeDeletedTaint) {
			continue
		}
		count := 0
		for _, p := range w.cluster.Pods() {
			if p.Spec.NodeName == n.Name {
				count++
			}
		}
		if count > most {
			best, most = n.Name, count
		}
	}
	return best
}

func (w *pdbWorld) input() scaledown.Input {
	in := scaledown.Input{Now: w.now, PDBs: w.cluster.PDBs(), Groups: []scaledown.Group{{ID: "g"}}}
	for _, n := range w.cluster.Nodes() {
		in.Nodes = append(in.Nodes, scaledown.Node{Node: n, Group: "g", Instance: "i-" + n.Name, Ready: true})
		in.Groups[0].TargetSize++
	}
	for _, p := range w.cluster.Pods() {
		if p.DeletionTimestamp == nil {
			in.Pods = append(in.Pods, p)
		}
	}
	return in
}

// run simulates d in 10 s loops and counts failed deletions.
func (w *pdbWorld) run(d time.Duration) (failures int) {
	for end := w.now.Add(d); w.now.Before(end); w.now = w.now.Add(10 * time.Second) {
		w.cluster.Tick(w.now)
		if u := unavailable(w.cluster.Pods()); u > 1 {
			w.t.Fatalf("at %v %d pods unavailable, the PDB allows 1", w.now.Sub(t0), u)
		}
		st, err := w.ctrl.RunOnce(w.t.Context(), w.input())
		if err != nil {
			w.t.Fatal(err)
		}
		if len(w.cluster.Nodes()) == 1 && w.smallAt == 0 {
			w.smallAt = w.now.Sub(t0)
		}
		for _, o := range st.Outcomes {
			if o.Failed() {
				failures++
			}
		}
	}
	return failures
}

func TestControllerSeedPDBExample(t *testing.T) {
	slow := newPDBWorld(t, 2*time.Minute)
	slowFailures := slow.run(time.Hour)
	fast := newPDBWorld(t, time.Hour)
	fastFailures := fast.run(time.Hour)
	t.Logf("2m: %d failures, %d evictions, one node after %v; 1h: %d failures, %d evictions, one node after %v",
		slowFailures, len(slow.cluster.Evictions), slow.smallAt, fastFailures, len(fast.cluster.Evictions), fast.smallAt)
	if slowFailures == 0 {
		t.Errorf("2-minute eviction time: no failed drain, want churn")
	}
	if fastFailures != 0 {
		t.Errorf("1-hour eviction time: %d failed drains, want every node drained in one attempt", fastFailures)
	}
	if n := len(fast.cluster.Nodes()); n != 1 {
		t.Errorf("1-hour eviction time: %d nodes left, want 1", n)
	}
	if slow.smallAt != 0 && slow.smallAt <= fast.smallAt {
		t.Errorf("2-minute eviction time shrank the cluster no later (%v) than 1 hour (%v)", slow.smallAt, fast.smallAt)
	}
}

func TestControllerMetrics(t *testing.T) {
	// The PDB example with a 1-minute unneeded time, 30 minutes: four drains
	// fail after 2 minutes and one succeeds, every deletion is timed. (A node
	// holding 20 pods is at exactly the 0.5 threshold and, as upstream, a
	// candidate too, so drains churn longer than when it was kept.)
	w := newPDBWorld(t, 2*time.Minute)
	w.run(30 * time.Minute)
	want := map[string]float64{
		`cluster_autoscaler_failed_scale_down_total{kind="nonempty",reason="2"}`:                                             4,
		`cluster_autoscaler_scaled_down_nodes_total{dra_drivers="",gpu_name="",gpu_resource_name="",reason="underutilized"}`: 1,
		`cluster_autoscaler_scaled_down_nodes_total{dra_drivers="",gpu_name="",gpu_resource_name="",reason="empty"}`:         0,
		`cluster_autoscaler_node_deletion_duration_seconds_count{kind="nonEmpty"}`:                                           5,
		`cluster_autoscaler_evicted_pods_total{eviction_result="succeeded"}`:                                                 25,
		`cluster_autoscaler_unneeded_nodes_count`:                                                                            0,
	}
	got := series(t, w.reg)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got[`cluster_autoscaler_evicted_pods_total{eviction_result="failed"}`] == 0 {
		t.Errorf("no failed evictions counted")
	}
}

// series flattens the registry into name{labels} -> value.
func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			key := mf.GetName()
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[strings.Replace(key, mf.GetName(), mf.GetName()+"_count", 1)] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// A node being drained stays blocked when the loop's view lags behind and
// does not show its taint yet; it is never drained twice.
func TestControllerLaggingView(t *testing.T) {
	c := memcluster.New(t0)
	sd := scaledown.Default()
	sd.UnneededTime = 0
	sd.MaxDrainParallelism = 2
	ctrl, err := actuation.NewController(actuation.ControllerConfig{ScaleDown: sd, Actuation: actuation.Default(),
		Cluster: c, Deleter: &cloud{}, Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		c.AddNode(fixture.Node(n))
	}
	add := func(name, node, cpu string) {
		p := fixture.Pod(name, fixture.OnNode(node), fixture.Running(), fixture.WithRequests("cpu", cpu),
			fixture.WithOwner(rsKind, name, types.UID("rs-"+name)))
		p.UID = types.UID(name)
		c.AddPod(p, time.Time{})
	}
	add("p", "a", "500m")
	add("full-b", "b", "3")
	add("full-c", "c", "3")
	// The evicted pod never terminates, so the drain stays in flight.
	c.OnEvict = func(p *corev1.Pod) { c.AddPod(p, time.Time{}) }
	input := func(now time.Time) scaledown.Input {
		in := scaledown.Input{Now: now, Groups: []scaledown.Group{{ID: "g", TargetSize: 3}}, Pods: c.Pods()}
		for _, n := range c.Nodes() {
			stale := n.DeepCopy()
			stale.Spec.Taints = nil
			in.Nodes = append(in.Nodes, scaledown.Node{Node: stale, Group: "g", Instance: "i-" + n.Name, Ready: true})
		}
		return in
	}
	for i := range 3 {
		now := t0.Add(time.Duration(i) * 10 * time.Second)
		st, err := ctrl.RunOnce(t.Context(), input(now))
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Draining) != 1 || st.Draining[0] != "a" {
			t.Fatalf("loop %d: draining %v", i, st.Draining)
		}
		if i > 0 && !slices.Contains(st.Plan.Blocked, scaledown.Blocked{Node: "a", Group: "g", Reason: scaledown.ReasonBeingDeleted}) {
			t.Fatalf("loop %d: a is not blocked as being deleted: %v", i, st.Plan.Blocked)
		}
	}
	if len(c.Evictions) != 1 {
		t.Fatalf("evictions = %v, want one", c.Evictions)
	}
}

// TestControllerSoftTaints checks the controller puts the soft taint on
// unneeded nodes in rounds that start no deletion, and takes it off the
// node that is needed again; a new controller cleans leftovers up.
func TestControllerSoftTaints(t *testing.T) {
	w := newPDBWorld(t, time.Hour)
	soft := func() []string {
		var out []string
		for _, n := range w.cluster.Nodes() {
			if clusterstate.HasTaint(n, actuation.DeletionCandidateTaint) {
				out = append(out, n.Name)
			}
		}
		return out
	}
	st, err := w.ctrl.RunOnce(t.Context(), w.input())
	if err != nil {
		t.Fatal(err)
	}
	var unneeded []string
	for _, u := range st.Plan.Unneeded {
		unneeded = append(unneeded, u.Node.Name)
	}
	slices.Sort(unneeded)
	if got := soft(); len(st.Started) != 0 || len(got) == 0 || !slices.Equal(got, unneeded) {
		t.Fatalf("soft-tainted after the first round: %v, want the unneeded nodes %v", got, unneeded)
	}
	w.now = w.now.Add(10 * time.Second)
	for _, n := range w.cluster.Nodes() {
		for _, tt := range n.Spec.Taints {
			if tt.Key == actuation.DeletionCandidateTaint && (tt.Effect != corev1.TaintEffectPreferNoSchedule || tt.Value != fmt.Sprint(t0.Unix())) {
				t.Errorf("node %s soft taint %v, want PreferNoSchedule with the Unix time", n.Name, tt)
			}
		}
	}
	w.run(30 * time.Minute)
	if len(w.cluster.Nodes()) != 1 {
		t.Fatalf("%d nodes left, want 1", len(w.cluster.Nodes()))
	}
	if got := soft(); len(got) != 0 {
		t.Errorf("the last node is needed but keeps its soft taint: %v", got)
	}
	// A leftover soft taint goes when a new controller starts.
	last := w.cluster.Nodes()[0].Name
	_ = w.cluster.AddTaint(t.Context(), last, corev1.Taint{Key: actuation.DeletionCandidateTaint, Effect: corev1.TaintEffectPreferNoSchedule})
	act := actuation.Default()
	act.SoftTaintCount = 0
	var ctrl *actuation.Controller
	ctrl, err = actuation.NewController(actuation.ControllerConfig{ScaleDown: scaledown.Default(), Actuation: act,
		Cluster: w.cluster, Deleter: w.cloud})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctrl.RunOnce(t.Context(), w.input()); err != nil {
		t.Fatal(err)
	}
	if got := soft(); len(got) != 0 {
		t.Errorf("soft taint left after start-up: %v", got)
	}
}
