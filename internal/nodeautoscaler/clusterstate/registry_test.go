package clusterstate

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

var t0 = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

const provision = 7 * time.Minute

// world is a tiny hand-driven cloud + cluster for registry tests.
type world struct {
	target    int
	instances []cloudprovider.Instance
	nodes     []*corev1.Node
}

func (w *world) input() Input {
	return Input{
		Groups:    []cloudprovider.NodeGroup{{ID: "ng", MaxSize: 10, TargetSize: w.target}},
		Instances: map[string][]cloudprovider.Instance{"ng": w.instances},
		Nodes:     w.nodes,
	}
}

func (w *world) placeholders(n int, err *cloudprovider.ErrorInfo) {
	w.instances = nil
	for i := range n {
		id := "ng-placeholder-" + string(rune('0'+i))
		w.instances = append(w.instances, cloudprovider.Instance{ID: id, ProviderID: "p/" + id,
			State: cloudprovider.InstanceCreating, Placeholder: true, Error: err})
	}
}

func readyNode(name string, created time.Time, taints ...corev1.Taint) *corev1.Node {
	n := fixture.Node(name, fixture.WithProviderID("p/"+name), fixture.WithTaints(taints...))
	n.CreationTimestamp = metav1.NewTime(created)
	n.Status.Conditions[0].LastTransitionTime = metav1.NewTime(created)
	return n
}

func newRegistry(infinite bool) *Registry {
	var b backoff.Backoff = backoff.NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour)
	if infinite {
		b = backoff.NewInfinite()
	}
	return New(Config{Readiness: ReadinessRules{StartupTaints: []string{"zalando.org/node-not-ready"}, MaxNodeStartupTime: 15 * time.Minute},
		MaxNodeProvisionTime: provision, Backoff: b, NoFullScaleDown: infinite})
}

func TestBuckets(t *testing.T) {
	rules := ReadinessRules{StartupTaints: []string{"zalando.org/node-not-ready"}, MaxNodeStartupTime: 15 * time.Minute}
	now := t0.Add(time.Hour)
	notReady := func(created, transition time.Time, taints ...corev1.Taint) *corev1.Node {
		n := readyNode("n", created, taints...)
		n.Status.Conditions[0].Status = corev1.ConditionFalse
		n.Status.Conditions[0].LastTransitionTime = metav1.NewTime(transition)
		return n
	}
	readyLater := func(created, transition time.Time, taints ...corev1.Taint) *corev1.Node {
		n := readyNode("n", created, taints...)
		n.Status.Conditions[0].LastTransitionTime = metav1.NewTime(transition)
		return n
	}
	tests := []struct {
		name string
		node *corev1.Node
		want Bucket
	}{
		{"ready", readyNode("n", t0), Ready},
		{"draining counts as ready", readyNode("n", t0, fixture.Taint(ToBeDeletedTaint, "", corev1.TaintEffectNoSchedule)), Ready},
		{"being deleted", readyNode("n", t0, fixture.Taint(BeingDeletedTaint, "", corev1.TaintEffectNoSchedule)), Deleted},
		{"zalando startup taint, young", readyNode("n", now.Add(-time.Minute), fixture.Taint("zalando.org/node-not-ready", "", corev1.TaintEffectNoSchedule)), NotStarted},
		{"startup prefix, old", readyNode("n", t0, fixture.Taint(StartupTaintPrefix+"x", "", corev1.TaintEffectNoSchedule)), LongNotStarted},
		{"never ready, young", notReady(now.Add(-time.Minute), now.Add(-time.Minute)), NotStarted},
		{"was ready, now not", notReady(t0, now.Add(-time.Minute)), Unready},
		{"just became ready, not-ready taint not lifted yet", readyLater(now.Add(-2*time.Minute), now.Add(-time.Minute),
			fixture.Taint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoSchedule)), NotStarted},
		{"ready condition but unreachable taint", readyLater(t0, now.Add(-time.Minute),
			fixture.Taint(corev1.TaintNodeUnreachable, "", corev1.TaintEffectNoSchedule)), Unready},
		{"lifecycle controller caught up", readyLater(now.Add(-2*time.Minute), now.Add(-time.Minute)), Ready},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rules.Bucket(tt.node, now); got != tt.want {
				t.Fatalf("bucket %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDrainingNodesAreNotUpcoming(t *testing.T) {
	for _, taint := range []string{ToBeDeletedTaint, BeingDeletedTaint} {
		t.Run(taint, func(t *testing.T) {
			r := newRegistry(true)
			w := &world{target: 1, instances: []cloudprovider.Instance{{ID: "i-1", ProviderID: "p/i-1", State: cloudprovider.InstanceRunning}},
				nodes: []*corev1.Node{readyNode("i-1", t0, fixture.Taint(taint, "", corev1.TaintEffectNoSchedule))}}
			if taint == BeingDeletedTaint {
				w.target, w.instances = 0, nil // the cloud delete lowered the target
			}
			r.Update(w.input(), t0.Add(time.Minute))
			if st, _ := r.Group("ng"); st.Upcoming != 0 {
				t.Fatalf("upcoming %d, want 0 (%+v)", st.Upcoming, st.Readiness)
			}
		})
	}
}

func TestTimeoutInfiniteBackoffKeepsSentinel(t *testing.T) {
	r := newRegistry(true)
	w := &world{}
	r.Update(w.input(), t0)
	r.RegisterScaleUp("ng", 2, t0)
	w.target = 2
	w.placeholders(2, nil)
	now := t0
	var events []Event
	for now.Sub(t0) <= provision+10*time.Second {
		now = now.Add(10 * time.Second)
		events = append(events, r.Update(w.input(), now)...)
	}
	if !hasEvent(events, ScaleUpTimedOut) || !hasEvent(events, BackoffStarted) {
		t.Fatalf("events %+v, want timeout and backoff", events)
	}
	st, _ := r.Group("ng")
	if !st.Backoff.BackedOff || st.Upcoming != 0 || len(st.LongUnregistered) != 0 {
		t.Fatalf("state after timeout: %+v", st)
	}
	for range 43 {
		now = now.Add(10 * time.Second)
		r.Update(w.input(), now)
	}
	fixes := r.SizeFixes(now)
	if len(fixes) != 1 || fixes[0].Delta != 1 {
		t.Fatalf("size fixes %+v, want one decrease by 1 (keep the sentinel)", fixes)
	}
	w.target = 1
	w.instances = []cloudprovider.Instance{{ID: "i-1", ProviderID: "p/i-1", State: cloudprovider.InstanceRunning}}
	w.nodes = []*corev1.Node{readyNode("i-1", now)}
	events = r.Update(w.input(), now.Add(10*time.Second))
	if !hasEvent(events, BackoffCleared) {
		t.Fatalf("sentinel joined, events %+v, want BackoffCleared", events)
	}
}

func TestTimeoutExponentialDeletesUnregistered(t *testing.T) {
	r := newRegistry(false)
	w := &world{}
	r.Update(w.input(), t0)
	r.RegisterScaleUp("ng", 2, t0)
	w.target = 2
	w.placeholders(2, nil)
	r.Update(w.input(), t0)
	r.Update(w.input(), t0.Add(provision+10*time.Second))
	st, _ := r.Group("ng")
	if !st.Backoff.BackedOff || len(st.LongUnregistered) != 2 {
		t.Fatalf("state after timeout: backoff %+v, long unregistered %d", st.Backoff, len(st.LongUnregistered))
	}
	r.Update(w.input(), t0.Add(provision+5*time.Minute+20*time.Second))
	if st, _ := r.Group("ng"); st.Backoff.BackedOff {
		t.Fatal("exponential backoff did not expire")
	}
}

func TestInstanceErrorsFailOverAtOnce(t *testing.T) {
	for _, infinite := range []bool{true, false} {
		r := newRegistry(infinite)
		w := &world{}
		r.Update(w.input(), t0)
		r.RegisterScaleUp("ng", 3, t0)
		w.target = 3
		w.placeholders(3, &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: "Failure", Message: "we ran out of servers"})
		events := r.Update(w.input(), t0.Add(time.Minute))
		st, _ := r.Group("ng")
		if !hasEvent(events, ScaleUpFailed) || !st.Backoff.BackedOff || st.Upcoming != 0 || st.Backoff.Reason.Code != "Failure" {
			t.Fatalf("infinite=%v: events %+v state %+v", infinite, events, st)
		}
		want := 3
		if infinite {
			want = 2
		}
		if got := len(r.ErrorInstancesToDelete()["ng"]); got != want {
			t.Fatalf("infinite=%v: delete %d failed instances, want %d", infinite, got, want)
		}
		if again := r.Update(w.input(), t0.Add(70*time.Second)); hasEvent(again, ScaleUpFailed) {
			t.Fatalf("the same errors were reported twice")
		}
	}
}

func TestExternalTargetResetClearsBackoff(t *testing.T) {
	r := newRegistry(true)
	w := &world{target: 1}
	w.placeholders(1, nil)
	r.Update(w.input(), t0)
	r.RegisterFailedScaleUp("ng", backoff.Reason{Code: "APIError"}, t0)
	r.Update(w.input(), t0.Add(time.Minute))
	if st, _ := r.Group("ng"); !st.Backoff.BackedOff {
		t.Fatal("not backed off")
	}
	w.target = 0
	w.instances = nil
	if events := r.Update(w.input(), t0.Add(2*time.Minute)); !hasEvent(events, BackoffCleared) {
		t.Fatalf("events %+v, want BackoffCleared", events)
	}
}

func hasEvent(events []Event, typ EventType) bool {
	for _, e := range events {
		if e.Type == typ {
			return true
		}
	}
	return false
}
