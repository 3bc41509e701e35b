package actuation_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

var dsKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}

// dsPod adds a running DaemonSet pod on node, with the enable-ds-eviction
// annotation when enable is not empty.
func (r *rig) dsPod(name, node, enable string) *corev1.Pod {
	opts := []fixture.PodOption{fixture.OnNode(node), fixture.Running(), fixture.WithLabels(map[string]string{"app": "ds-" + name}),
		fixture.WithOwner(dsKind, "ds-"+name, types.UID("uid-ds-"+name))}
	if enable != "" {
		opts = append(opts, fixture.WithAnnotations(map[string]string{actuation.EnableDSEvictionAnnotation: enable}))
	}
	p := fixture.Pod(name, opts...)
	p.UID = types.UID("uid-" + name)
	long := int64(600)
	p.Spec.TerminationGracePeriodSeconds = &long
	r.cluster.AddPod(p, time.Time{})
	return p
}

func (r *rig) unschedulable(node string) bool {
	n, _ := r.cluster.Node(node)
	return n.Spec.Unschedulable
}

// step advances the rig's clock by d and steps the actuator once.
func (r *rig) step(d time.Duration) []actuation.Outcome {
	r.now = r.now.Add(d)
	r.cluster.Tick(r.now)
	return r.act.Step(context.Background(), r.now)
}

func TestDaemonSetPodsToEvict(t *testing.T) {
	ds := func(name, enable string) *corev1.Pod {
		p := fixture.Pod(name, fixture.WithOwner(dsKind, "ds", "uid-ds"))
		if enable != "" {
			p.Annotations = map[string]string{actuation.EnableDSEvictionAnnotation: enable}
		}
		return p
	}
	annotatedDS := fixture.Pod("annotated", fixture.WithAnnotations(map[string]string{scaledown.DaemonSetPodAnnotation: "true"}))
	mirror := ds("mirror", "")
	mirror.Annotations = map[string]string{scaledown.MirrorPodAnnotation: "x"}
	done := ds("done", "true")
	done.Status.Phase = corev1.PodSucceeded
	pods := []*corev1.Pod{ds("plain", ""), ds("on", "true"), ds("off", "false"), ds("junk", "maybe"), annotatedDS, mirror, done,
		fixture.Pod("web", fixture.WithOwner(rsKind, "web", "uid-web"))}
	tests := []struct {
		byDefault bool
		want      []string
	}{
		{false, []string{"on"}},
		{true, []string{"plain", "on", "junk", "annotated"}},
	}
	for _, tc := range tests {
		var got []string
		for _, p := range actuation.DaemonSetPodsToEvict(pods, tc.byDefault) {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("byDefault=%v: evicted %v, want %v", tc.byDefault, got, tc.want)
		}
	}
}

// TestDaemonSetEviction checks which DaemonSet pods a node's removal
// evicts, that their eviction never holds the deletion back, and that the
// other pods are still waited for.
func TestDaemonSetEviction(t *testing.T) {
	tests := []struct {
		name          string
		empty         bool
		forEmpty      bool
		forOccupied   bool
		wantEvictions []string
	}{
		{name: "occupied node, default", forOccupied: true, wantEvictions: []string{"default/web-1", "default/plain", "default/on"}},
		{name: "occupied node, flag off", wantEvictions: []string{"default/web-1", "default/on"}},
		{name: "empty node, default", empty: true, wantEvictions: []string{"default/on"}},
		{name: "empty node, flag on", empty: true, forEmpty: true, wantEvictions: []string{"default/plain", "default/on"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := instant()
			cfg.DaemonSetEvictionForEmptyNodes, cfg.DaemonSetEvictionForOccupiedNodes = tc.forEmpty, tc.forOccupied
			r := newRig(t, cfg)
			a := r.node("a")
			r.dsPod("plain", "a", "")
			r.dsPod("on", "a", "true")
			r.dsPod("off", "a", "false")
			plan := scaledown.Plan{Empty: []scaledown.Candidate{candidate(a, "g")}}
			if !tc.empty {
				plan = scaledown.Plan{Drain: []scaledown.Candidate{candidate(a, "g", r.pod("web-1", "web", "a"))}}
			}
			out := r.act.Start(t.Context(), plan, t0)
			if len(out) == 0 {
				out = r.runUntil(time.Minute, nil)
			}
			if len(out) != 1 || out[0].Failed() {
				t.Fatalf("outcomes = %v", out)
			}
			// The DaemonSet pods have 600 s to terminate: the node went
			// without waiting for them.
			if got := out[0].Ended.Sub(t0); got > 10*time.Second {
				t.Errorf("deleted after %v, want at once", got)
			}
			if !slices.Equal(r.cluster.Evictions, tc.wantEvictions) {
				t.Errorf("evictions = %v, want %v", r.cluster.Evictions, tc.wantEvictions)
			}
			if out[0].Evicted != len(plan.Drain) {
				t.Errorf("Evicted = %d, want only the drained pods", out[0].Evicted)
			}
		})
	}
}

// TestDaemonSetEvictionIsBestEffort checks that a DaemonSet pod a budget
// protects neither fails nor delays the drain.
func TestDaemonSetEvictionIsBestEffort(t *testing.T) {
	r := newRig(t, instant())
	a := r.node("a")
	r.dsPod("agent", "a", "")
	zero := intstr.FromInt32(0)
	r.cluster.AddPDB(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ds-agent"}}}}, 0)
	out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(a, "g", r.pod("web-1", "web", "a"))}}, t0)
	if len(out) != 1 || out[0].Failed() {
		t.Fatalf("outcomes = %v", out)
	}
	if !slices.Equal(r.cluster.Evictions, []string{"default/web-1"}) {
		t.Errorf("evictions = %v", r.cluster.Evictions)
	}
}

// TestDeleteDelayAfterTaint checks --node-delete-delay-after-taint: the
// node is marked (and cordoned) at once, deleted or drained only after
// the delay.
func TestDeleteDelayAfterTaint(t *testing.T) {
	r := newRig(t, actuation.Default())
	a, b := r.node("a"), r.node("b")
	plan := scaledown.Plan{Empty: []scaledown.Candidate{candidate(a, "g")}, Drain: []scaledown.Candidate{candidate(b, "g", r.pod("web-1", "web", "b"))}}
	if out := r.act.Start(t.Context(), plan, t0); len(out) != 0 {
		t.Fatalf("outcomes at once = %v", out)
	}
	if got := r.taints("a"); !slices.Equal(got, []string{clusterstate.ToBeDeletedTaint}) || !r.unschedulable("a") {
		t.Errorf("a: taints %v, unschedulable %v; want marked and cordoned", got, r.unschedulable("a"))
	}
	if got := r.act.InFlight(); got != (scaledown.InFlight{Empty: 1, NonEmpty: 1}) {
		t.Errorf("in flight = %+v", got)
	}
	if out := r.step(4 * time.Second); len(out) != 0 || len(r.cloud.calls) != 0 || len(r.cluster.Evictions) != 0 {
		t.Fatalf("after 4s: outcomes %v, cloud %v, evictions %v", out, r.cloud.calls, r.cluster.Evictions)
	}
	out := r.step(time.Second)
	if len(out) != 2 || out[0].Failed() || out[1].Failed() {
		t.Fatalf("after 5s: outcomes %v", out)
	}
	if !slices.Equal(r.cloud.calls, []string{"g[i-b]", "g[i-a]"}) {
		t.Errorf("cloud calls = %v", r.cloud.calls)
	}
}

// TestCordonNodeBeforeTerminating checks the cordon follows the
// ToBeDeleted taint, and is undone on failure and at clean-up.
func TestCordonNodeBeforeTerminating(t *testing.T) {
	for _, cordon := range []bool{true, false} {
		cfg := instant()
		cfg.CordonNodeBeforeTerminating = cordon
		r := newRig(t, cfg)
		r.cloud.err = errors.New("cloud says no")
		a := r.node("a")
		var during bool
		r.cluster.OnEvict = func(*corev1.Pod) { during = r.unschedulable("a") }
		out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(a, "g", r.pod("web-1", "web", "a"))}}, t0)
		if len(out) != 1 || out[0].Failure != actuation.FailureCloudDelete {
			t.Fatalf("cordon=%v: outcomes = %v", cordon, out)
		}
		if during != cordon {
			t.Errorf("cordon=%v: unschedulable while draining = %v", cordon, during)
		}
		if r.unschedulable("a") || len(r.taints("a")) != 0 {
			t.Errorf("cordon=%v: after the failure unschedulable=%v taints=%v", cordon, r.unschedulable("a"), r.taints("a"))
		}
		// A leftover of an earlier process is uncordoned with its taint.
		_ = r.cluster.AddTaint(t.Context(), "a", corev1.Taint{Key: clusterstate.ToBeDeletedTaint, Effect: corev1.TaintEffectNoSchedule})
		_ = r.cluster.Cordon(t.Context(), "a", true)
		n, _ := r.cluster.Node("a")
		if err := r.act.CleanUp(t.Context(), []*corev1.Node{n}); err != nil {
			t.Fatal(err)
		}
		if r.unschedulable("a") != !cordon {
			t.Errorf("cordon=%v: after clean-up unschedulable=%v", cordon, r.unschedulable("a"))
		}
	}
}

// TestDelayDeletionAnnotations checks --node-deletion-delay-timeout with
// delay-deletion.cluster-autoscaler.kubernetes.io/ annotations.
func TestDelayDeletionAnnotations(t *testing.T) {
	const key = actuation.DelayDeletionAnnotationPrefix + "volume-detach"
	tests := []struct {
		name     string
		timeout  time.Duration
		removeAt time.Duration // 0: never
		want     time.Duration // deletion time; -1: node read failure
		nodeGone bool
	}{
		{name: "annotation removed", timeout: 2 * time.Minute, removeAt: 30 * time.Second, want: 30 * time.Second},
		{name: "annotation stays: deleted at the timeout", timeout: 2 * time.Minute, want: 2 * time.Minute},
		{name: "timeout 0 does not wait", timeout: 0, want: 0},
		{name: "node gone", timeout: 2 * time.Minute, nodeGone: true, want: -1},
	}
	for _, tc := range tests {
		for _, empty := range []bool{true, false} {
			t.Run(tc.name, func(t *testing.T) {
				cfg := instant()
				cfg.DeletionDelayTimeout = tc.timeout
				r := newRig(t, cfg)
				a := r.node("a")
				r.cluster.SetNodeAnnotation("a", key, "true")
				plan := scaledown.Plan{Empty: []scaledown.Candidate{candidate(a, "g")}}
				if !empty {
					plan = scaledown.Plan{Drain: []scaledown.Candidate{candidate(a, "g", r.pod("web-1", "web", "a"))}}
				}
				out := r.act.Start(t.Context(), plan, t0)
				if tc.nodeGone && len(out) == 0 {
					r.cluster.RemoveNode("a")
				}
				for len(out) == 0 && r.now.Before(t0.Add(10*time.Minute)) {
					if tc.removeAt > 0 && r.now.Add(10*time.Second).Sub(t0) >= tc.removeAt {
						r.cluster.SetNodeAnnotation("a", key, "")
					}
					out = r.step(10 * time.Second)
				}
				if len(out) != 1 {
					t.Fatalf("outcomes = %v", out)
				}
				if tc.want < 0 {
					if out[0].Failure != actuation.FailureNodeRead {
						t.Errorf("outcome %v, want %s", out[0], actuation.FailureNodeRead)
					}
					return
				}
				if out[0].Failed() || out[0].Ended.Sub(t0) != tc.want {
					t.Errorf("outcome %v after %v, want deleted after %v", out[0], out[0].Ended.Sub(t0), tc.want)
				}
			})
		}
	}
}

// TestDrainPriorityConfig checks --drain-priority-config: the pods of each
// priority range are evicted in turn, lowest first, each with its range's
// grace period cap, and the next range starts only once the previous
// range's pods are gone.
func TestDrainPriorityConfig(t *testing.T) {
	cfg := instant()
	cfg.DrainPriorities = []options.DrainPriority{{Priority: 1000, Grace: 20 * time.Second}, {Priority: 0, Grace: 30 * time.Second}}
	r := newRig(t, cfg)
	a := r.node("a")
	prio := func(p *corev1.Pod, v int32) *corev1.Pod {
		p.Spec.Priority = &v
		long := int64(600)
		p.Spec.TerminationGracePeriodSeconds = &long
		return p
	}
	low, mid, high := prio(r.pod("low", "web", "a"), -5), prio(r.pod("mid", "web", "a"), 999), prio(r.pod("high", "web", "a"), 5000)
	evictedAt := map[string]time.Duration{}
	r.cluster.OnEvict = func(p *corev1.Pod) { evictedAt[p.Name] = r.now.Sub(t0) }
	out := r.act.Start(t.Context(), scaledown.Plan{Drain: []scaledown.Candidate{candidate(a, "g", high, low, mid)}}, t0)
	if len(out) == 0 {
		out = r.runUntil(5*time.Minute, nil)
	}
	if len(out) != 1 || out[0].Failed() || out[0].Evicted != 3 {
		t.Fatalf("outcomes = %v", out)
	}
	// low and mid (below 1000) get 30 s and go at 30 s; high (1000 and
	// up) is evicted then with 20 s and goes at 50 s.
	want := map[string]time.Duration{"low": 0, "mid": 0, "high": 30 * time.Second}
	if !maps.Equal(evictedAt, want) {
		t.Errorf("evicted at %v, want %v", evictedAt, want)
	}
	if got := out[0].Ended.Sub(t0); got != 50*time.Second {
		t.Errorf("deleted after %v, want 50s", got)
	}
}
