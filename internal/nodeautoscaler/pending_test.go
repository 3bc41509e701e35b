package nodeautoscaler

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

func TestPendingPods(t *testing.T) {
	sched := func(name string) fixture.PodOption { return func(p *corev1.Pod) { p.Spec.SchedulerName = name } }
	unprocessed := func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }
	falseNoReason := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}
	}
	schedulerError := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulerError"}}
	}
	tests := []struct {
		name              string
		allowed, bypassed []string
		pod               *corev1.Pod
		want              bool
	}{
		{"unschedulable, default scheduler", nil, nil, fixture.Pod("p", fixture.UnschedulablePod()), true},
		{"unschedulable, other scheduler", nil, nil, fixture.Pod("p", fixture.UnschedulablePod(), sched("custom")), true},
		{"unprocessed, not bypassed", nil, nil, fixture.Pod("p", unprocessed, sched("custom")), false},
		{"unprocessed, bypassed", nil, []string{"custom"}, fixture.Pod("p", unprocessed, sched("custom")), true},
		{"False without reason, bypassed", nil, []string{"custom"}, fixture.Pod("p", falseNoReason, sched("custom")), true},
		{"scheduler error, bypassed", nil, []string{"custom"}, fixture.Pod("p", schedulerError, sched("custom")), false},
		{"unprocessed default-scheduler pod, bypassed by empty name", nil, []string{"default-scheduler"}, fixture.Pod("p", unprocessed), true},
		{"bound, bypassed", nil, []string{"custom"}, fixture.Pod("p", sched("custom"), fixture.OnNode("n")), false},
		{"unschedulable, not allowed", []string{"custom"}, nil, fixture.Pod("p", fixture.UnschedulablePod()), false},
		{"unschedulable, allowed", []string{"custom"}, nil, fixture.Pod("p", fixture.UnschedulablePod(), sched("custom")), true},
		{"unprocessed, bypassed but not allowed", []string{"other"}, []string{"custom"}, fixture.Pod("p", unprocessed, sched("custom")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(newPendingPods(tt.allowed, tt.bypassed, false).pick([]*corev1.Pod{tt.pod})) == 1; got != tt.want {
				t.Fatalf("pending = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPendingCounts checks upstream's unschedulable_pods_count split:
// scheduler_unprocessed counts only the pods of bypassed schedulers, and
// both counts only the pods of allowed schedulers.
func TestPendingCounts(t *testing.T) {
	sched := func(name string) fixture.PodOption { return func(p *corev1.Pod) { p.Spec.SchedulerName = name } }
	unprocessed := func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }
	pods := []*corev1.Pod{
		fixture.Pod("a", fixture.UnschedulablePod()),
		fixture.Pod("b", fixture.UnschedulablePod(), sched("custom")),
		fixture.Pod("c", unprocessed),
		fixture.Pod("d", unprocessed, sched("custom")),
		fixture.Pod("e", unprocessed, sched("custom")),
		fixture.Pod("f", sched("custom"), fixture.OnNode("n"), fixture.Running()),
	}
	tests := []struct {
		name                             string
		allowed, bypassed                []string
		wantUnschedulable, wantUnprocess int
	}{
		{"no scheduler flags: nothing counts as unprocessed", nil, nil, 2, 0},
		{"custom bypassed", nil, []string{"custom"}, 2, 2},
		{"default bypassed", nil, []string{"default-scheduler"}, 2, 1},
		{"only custom allowed", []string{"custom"}, []string{"custom", "default-scheduler"}, 1, 2},
		{"only default allowed", []string{"default-scheduler"}, []string{"custom"}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, n := newPendingPods(tt.allowed, tt.bypassed, false).count(pods)
			if u != tt.wantUnschedulable || n != tt.wantUnprocess {
				t.Fatalf("counts = (%d, %d), want (%d, %d)", u, n, tt.wantUnschedulable, tt.wantUnprocess)
			}
		})
	}
}

// TestSchedulerNamesDecideScaleUp runs the loop: a pod its scheduler has
// not processed triggers a scale-up only when that scheduler is bypassed,
// and an unschedulable pod of a scheduler outside the allowed list never.
func TestSchedulerNamesDecideScaleUp(t *testing.T) {
	custom := func(p *corev1.Pod) { p.Spec.SchedulerName = "custom"; p.Status.Phase = corev1.PodPending }
	tests := []struct {
		name   string
		mutate func(*options.Options)
		pod    *corev1.Pod
		want   int
	}{
		{"unprocessed pod, scheduler not bypassed", nil, fixture.Pod("p", fixture.WithRequests("cpu", "1"), custom), 0},
		{"unprocessed pod, scheduler bypassed", func(o *options.Options) { o.BypassedSchedulerNames = []string{"custom"} },
			fixture.Pod("p", fixture.WithRequests("cpu", "1"), custom), 1},
		{"unschedulable pod, scheduler not allowed", func(o *options.Options) { o.AllowedSchedulerNames = []string{"custom"} },
			pendingPod("p", time.Time{}), 0},
		{"unschedulable pod, scheduler allowed", func(o *options.Options) { o.AllowedSchedulerNames = []string{"default-scheduler"} },
			pendingPod("p", time.Time{}), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, cloud, cl, rec, _, now := newLoop(t, tt.mutate)
			tt.pod.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
			cl.pods = []*corev1.Pod{tt.pod}
			if err := a.RunOnce(t.Context(), now); err != nil {
				t.Fatal(err)
			}
			if _, target, _ := cloud.Group("ng-high"); target != tt.want {
				t.Fatalf("ng-high target %d, want %d (events %+v)", target, tt.want, *rec)
			}
		})
	}
}

// raisedMin reports a larger minimum for one group than the cloud has, as
// --nodes does when it names a larger minimum than the group's own.
type raisedMin struct {
	*inmemory.Cloud
	group string
	min   int
}

func (r raisedMin) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	gs, err := r.Cloud.NodeGroups(ctx)
	for i := range gs {
		if gs[i].ID == r.group {
			gs[i].MinSize = r.min
		}
	}
	return gs, err
}

// TestEnforceNodeGroupMinSize: with the flag, a group below its minimum is
// raised to it once (the raise counts as upcoming the next loop), within
// --max-nodes-total; without it, nothing happens.
func TestEnforceNodeGroupMinSize(t *testing.T) {
	tests := []struct {
		name     string
		enforce  bool
		maxTotal int
		want     int
	}{
		{"flag off", false, 0, 0},
		{"flag on", true, 0, 3},
		{"flag on, capped by --max-nodes-total", true, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, cloud, _, rec, _, now := newLoop(t, func(o *options.Options) {
				o.EnforceNodeGroupMinSize, o.MaxNodesTotal = tt.enforce, tt.maxTotal
			})
			a.cfg.Provider = raisedMin{Cloud: cloud, group: "ng-low", min: 3}
			for i := range 2 {
				if err := a.RunOnce(t.Context(), now.Add(time.Duration(i)*10*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			if _, target, _ := cloud.Group("ng-low"); target != tt.want {
				t.Fatalf("ng-low target %d, want %d (events %+v)", target, tt.want, *rec)
			}
			if _, target, _ := cloud.Group("ng-high"); target != 0 {
				t.Fatalf("ng-high target %d, want 0", target)
			}
			ups := 0
			for _, e := range *rec {
				if e.Type == EventScaleUp && e.Group == "ng-low" {
					ups++
				}
			}
			if want := min(tt.want, 1); ups != want {
				t.Fatalf("%d scale-up events for ng-low, want %d", ups, want)
			}
		})
	}
}
