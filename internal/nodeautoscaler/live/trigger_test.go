package live_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// productiveLoop is a scripted loop whose first run scales up; it is a
// live.ScalingTimes. Each run takes a millisecond of the fake clock.
type productiveLoop struct {
	scriptedLoop
	clk    *clocktesting.FakeClock
	mu     sync.Mutex
	scaled time.Time
}

func (l *productiveLoop) RunOnce(ctx context.Context, now time.Time) error {
	defer l.clk.Step(time.Millisecond)
	if l.count() == 0 {
		l.mu.Lock()
		l.scaled = now
		l.mu.Unlock()
	}
	return l.scriptedLoop.RunOnce(ctx, now)
}

func (l *productiveLoop) LastScaleUpTime() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.scaled
}

func (l *productiveLoop) LastScaleDownDeleteTime() time.Time { return time.Time{} }

// TestFrequentLoops checks upstream's loop trigger: with frequent loops a
// loop that scaled up is followed at once by the next, and a pod that just
// turned unschedulable starts a loop without waiting for the scan
// interval; a pod unschedulable for long does not. Without frequent loops
// only the scan interval starts a loop.
func TestFrequentLoops(t *testing.T) {
	for _, frequent := range []bool{true, false} {
		t.Run(map[bool]string{true: "enabled", false: "disabled"}[frequent], func(t *testing.T) {
			ns := map[bool]string{true: "frequent-on", false: "frequent-off"}[frequent]
			createNamespace(t, ns)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			clk := clocktesting.NewFakeClock(time.Now())
			factory := live.NewFactory(env.Client)
			c := newCluster(t, factory)
			trigger, err := live.NewUnschedulablePodTrigger(factory, clk)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(factory.Shutdown)
			factory.Start(ctx.Done())
			loop := &productiveLoop{scriptedLoop: scriptedLoop{cluster: c}, clk: clk}
			r, err := live.NewRunner(live.RunnerConfig{Loop: loop, Cluster: c, Clock: clk, ScanInterval: 10 * time.Second,
				FrequentLoops: frequent, Trigger: trigger, Health: live.NewHealth(clk, live.HealthTimers{MaxInactivity: time.Minute, MaxFailing: time.Minute})})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Error(err)
				}
			}()

			waitFor(t, func() bool { return loop.count() >= 1 && clk.HasWaiters() })
			want := map[bool]int{true: 2, false: 1}[frequent]
			if got := loop.count(); got != want {
				t.Fatalf("%d loops before the scan interval passed, want %d", got, want)
			}
			// A pod unschedulable for a minute triggers nothing; one that
			// just turned unschedulable triggers a loop with frequent loops.
			markedUnschedulable(t, ns, "old", clk.Now().Add(-time.Minute))
			markedUnschedulable(t, ns, "new", clk.Now())
			if frequent {
				waitFor(t, func() bool { return loop.count() == want+1 && clk.HasWaiters() })
				want++
			}
			waitFor(t, func() bool { return clk.HasWaiters() })
			if got := loop.count(); got != want {
				t.Fatalf("%d loops after the pods, want %d", got, want)
			}
			clk.Step(10 * time.Second)
			waitFor(t, func() bool { return loop.count() == want+1 })
		})
	}
}

// markedUnschedulable creates a pod kube-scheduler marked unschedulable at when.
func markedUnschedulable(t *testing.T, ns, name string, when time.Time) {
	t.Helper()
	p := fixture.Pod(name, fixture.InNamespace(ns))
	p.ResourceVersion = ""
	created, err := env.Client.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, LastTransitionTime: metav1.NewTime(when)}}
	if _, err := env.Client.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
