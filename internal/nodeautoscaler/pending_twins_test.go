package nodeautoscaler

import (
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// twinPod is a pod of ReplicaSet rs (its name is the UID too) requesting
// cpu; opts add to it.
func twinPod(name, rs, cpu string, opts ...fixture.PodOption) *corev1.Pod {
	base := []fixture.PodOption{fixture.WithRequests("cpu", cpu, "memory", "20Gi"),
		func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending; p.Labels = map[string]string{"app": rs} }}
	if rs != "" {
		base = append(base, fixture.WithOwner(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), rs, types.UID("uid-"+rs)))
	}
	return fixture.Pod(name, append(base, opts...)...)
}

// TestPendingTwins: with twins, a pod kube-scheduler has not tried joins
// the pending pods when a marked pod has its controller, scheduler and
// scheduling-relevant fields; nothing else joins, and the order stays.
func TestPendingTwins(t *testing.T) {
	marked := fixture.UnschedulablePod()
	sched := func(name string) fixture.PodOption { return func(p *corev1.Pod) { p.Spec.SchedulerName = name } }
	schedulerError := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulerError"}}
	}
	deleting := func(p *corev1.Pod) { now := metav1.Now(); p.DeletionTimestamp = &now }
	tests := []struct {
		name    string
		twins   bool
		allowed []string
		pods    []*corev1.Pod
		want    []string
	}{
		{"unprocessed twins join, in order", true, nil, []*corev1.Pod{
			twinPod("a", "web", "1"), twinPod("b", "web", "1", marked), twinPod("c", "web", "1")}, []string{"a", "b", "c"}},
		{"off: only the marked pod", false, nil, []*corev1.Pod{
			twinPod("a", "web", "1"), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"no marked pod: none", true, nil, []*corev1.Pod{twinPod("a", "web", "1"), twinPod("b", "web", "1")}, nil},
		{"other controller", true, nil, []*corev1.Pod{twinPod("a", "api", "1"), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"other requests", true, nil, []*corev1.Pod{twinPod("a", "web", "2"), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"no controller", true, nil, []*corev1.Pod{twinPod("a", "", "1"), twinPod("b", "", "1", marked)}, []string{"b"}},
		{"other scheduler", true, nil, []*corev1.Pod{twinPod("a", "web", "1", sched("custom")), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"scheduler error is a verdict", true, nil, []*corev1.Pod{twinPod("a", "web", "1", schedulerError), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"terminating", true, nil, []*corev1.Pod{twinPod("a", "web", "1", deleting), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"bound", true, nil, []*corev1.Pod{twinPod("a", "web", "1", fixture.OnNode("n")), twinPod("b", "web", "1", marked)}, []string{"b"}},
		{"twin of a scheduler not allowed", true, []string{"custom"}, []*corev1.Pod{
			twinPod("a", "web", "1", sched("custom")), twinPod("b", "web", "1", marked)}, nil},
		{"second distinct spec of one controller", true, nil, []*corev1.Pod{
			twinPod("a", "web", "1", marked), twinPod("b", "web", "2", marked), twinPod("c", "web", "2")}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newPendingPods(tt.allowed, nil, tt.twins)
			var got []string
			for _, p := range f.pick(tt.pods) {
				got = append(got, p.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("picked %v, want %v", got, tt.want)
			}
			u, n := f.count(tt.pods)
			if u+n != len(tt.want) {
				t.Fatalf("counts (%d, %d) do not add up to the %d picked", u, n, len(tt.want))
			}
		})
	}
}

// TestTwinsScaleUpABurstOnce runs the loop on a burst of five pods of one
// ReplicaSet of which kube-scheduler marked one: with twins one increase
// covers all five; without, the loop scales up for the marked pod alone.
func TestTwinsScaleUpABurstOnce(t *testing.T) {
	for _, tt := range []struct {
		twins bool
		want  int
	}{{true, 5}, {false, 1}} {
		a, cloud, cl, rec, _, now := newLoop(t, func(o *options.Options) { o.ScaleUpUnprocessedTwins = tt.twins })
		created := fixture.WithCreationTime(metav1.NewTime(now.Add(-time.Second)))
		cl.pods = []*corev1.Pod{twinPod("p0", "web", "1", created, fixture.UnschedulablePod())}
		for _, name := range []string{"p1", "p2", "p3", "p4"} {
			cl.pods = append(cl.pods, twinPod(name, "web", "1", created))
		}
		if err := a.RunOnce(t.Context(), now); err != nil {
			t.Fatal(err)
		}
		if _, target, _ := cloud.Group("ng-high"); target != tt.want {
			t.Fatalf("twins=%v: ng-high target %d, want %d (events %+v)", tt.twins, target, tt.want, *rec)
		}
	}
}
