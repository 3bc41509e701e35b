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

// A group's own max node provision time times its scale-up out instead of
// the global one, in both directions.
func TestGroupMaxNodeProvisionTime(t *testing.T) {
	for _, own := range []time.Duration{2 * time.Minute, 12 * time.Minute} {
		r := newRegistry(false)
		w := &world{}
		in := func() Input {
			i := w.input()
			i.Groups[0].Options = cloudprovider.Options{MaxNodeProvisionTime: &own}
			return i
		}
		r.Update(in(), t0)
		r.RegisterScaleUp("ng", 1, t0)
		w.target = 1
		w.placeholders(1, nil)
		timedOut := time.Duration(0)
		for now := t0; now.Sub(t0) <= 20*time.Minute && timedOut == 0; {
			now = now.Add(10 * time.Second)
			if hasEvent(r.Update(in(), now), ScaleUpTimedOut) {
				timedOut = now.Sub(t0)
			}
		}
		if timedOut <= own || timedOut > own+10*time.Second {
			t.Errorf("own provision time %v (global %v): timed out after %v", own, provision, timedOut)
		}
	}
}

// TestGroupMaxNodeStartupTime: a group's own max node startup time decides
// when its unready new node counts as long not started.
func TestGroupMaxNodeStartupTime(t *testing.T) {
	for _, tc := range []struct {
		own  *time.Duration
		want Readiness
	}{
		{nil, Readiness{NotStarted: 1}},
		{ptrDuration(5 * time.Minute), Readiness{LongNotStarted: 1}},
	} {
		g := cloudprovider.NodeGroup{ID: "g", MaxSize: 3, TargetSize: 1, Options: cloudprovider.Options{MaxNodeStartupTime: tc.own}}
		node := fixture.Node("n", fixture.WithProviderID("p://n"), fixture.WithTaints(corev1.Taint{Key: "example.com/starting", Effect: corev1.TaintEffectNoSchedule}))
		node.CreationTimestamp = metav1.NewTime(t0.Add(-10 * time.Minute))
		r := New(Config{Readiness: ReadinessRules{StartupTaints: []string{"example.com/starting"}, MaxNodeStartupTime: 15 * time.Minute}, MaxNodeProvisionTime: 15 * time.Minute, Backoff: backoff.NewExponential(time.Minute, time.Hour, time.Hour)})
		r.Update(Input{Groups: []cloudprovider.NodeGroup{g}, Instances: map[string][]cloudprovider.Instance{"g": {{ProviderID: "p://n", State: cloudprovider.InstanceRunning}}},
			Nodes: []*corev1.Node{node}}, t0)
		st, _ := r.Group("g")
		if got := st.Readiness; got.NotStarted != tc.want.NotStarted || got.LongNotStarted != tc.want.LongNotStarted {
			t.Errorf("own startup time %v: readiness %+v, want %+v", tc.own, got, tc.want)
		}
	}
}

func ptrDuration(d time.Duration) *time.Duration { return &d }
