package live_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
)

// unschedulable creates a pod in ns and marks it unschedulable, as
// kube-scheduler would.
func unschedulable(t *testing.T, ns, name string, opts ...fixture.PodOption) *corev1.Pod {
	t.Helper()
	p := fixture.Pod(name, opts...)
	p.Namespace = ns
	created, err := env.Client.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	if created, err = env.Client.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return created
}

// eventsOn lists the node autoscaler's events on the test's objects (in
// namespace ns, or on nodes named sd-*) as "<involved kind>/<name>
// <reason>: <message>" with their counts, once the sentinel reason has
// arrived (the broadcaster writes in order, so every earlier event is in
// by then).
func eventsOn(t *testing.T, ns, sentinel string) map[string]int32 {
	t.Helper()
	var got map[string]int32
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = map[string]int32{}
		done := false
		for _, ev := range list.Items {
			ours := ev.Namespace == ns || ev.InvolvedObject.Kind == "Node" && strings.HasPrefix(ev.InvolvedObject.Name, "sd-")
			if ev.Source.Component != live.EventSource || !ours {
				continue
			}
			got[ev.InvolvedObject.Kind+"/"+ev.InvolvedObject.Name+" "+ev.Reason+": "+ev.Message] += ev.Count
			done = done || ev.Reason == sentinel
		}
		return done, nil
	})
	if err != nil {
		t.Fatalf("the sentinel event %s never arrived; events: %v", sentinel, got)
	}
	return got
}

func TestRecorderEventsOnPodsDeduplicated(t *testing.T) {
	ctx := t.Context()
	createNamespace(t, "rec")
	lonely, web0, web1 := unschedulable(t, "rec", "lonely"), unschedulable(t, "rec", "web-0"), unschedulable(t, "rec", "web-1")
	c, _ := startCluster(t)
	clk := clocktesting.NewFakePassiveClock(time.Now())
	b, events := live.NewEventBroadcasterWith(ctx, env.Client, live.EventOptions{StatusNamespace: "rec", Clock: clk})
	t.Cleanup(b.Shutdown)
	rec, err := live.NewRecorder(live.RecorderConfig{Events: events, Cluster: c, Namespace: "rec", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	not := nodeautoscaler.Event{Type: nodeautoscaler.EventNotTriggerScaleUp, Pods: 1, Reason: "rec/lonely",
		Message: "big: max size reached; small: does not fit the template: NodeResourcesFit: Insufficient cpu",
		PodRefs: []nodeautoscaler.PodRef{nodeautoscaler.PodRefOf(lonely)},
		GroupReasons: []scaleup.GroupReason{{Group: "big", Reason: "max size reached"},
			{Group: "small", Reason: "does not fit the template: NodeResourcesFit: Insufficient cpu"}}}
	rec.Record(ctx, not)
	rec.Record(ctx, not) // within the window: dropped
	// A balanced scale-up: one event per group, each naming both pods and
	// both size changes; each pod gets one TriggeredScaleUp.
	infos := []nodeautoscaler.ScaleUpInfo{{Group: "big", From: 1, To: 2, Max: 5}, {Group: "big-b", From: 0, To: 1, Max: 5}}
	refs := []nodeautoscaler.PodRef{nodeautoscaler.PodRefOf(web0), nodeautoscaler.PodRefOf(web1)}
	for _, g := range infos {
		rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventScaleUp, Group: g.Group, Delta: 1, Pods: 2, PodRefs: refs, ScaleUps: infos})
	}
	// The broadcaster correlates asynchronously on clk: let it see these
	// events before the clock moves on.
	eventsOn(t, "rec", "ScaledUpGroup")
	clk.SetTime(clk.Now().Add(6 * time.Minute))
	rec.Record(ctx, not) // after the window: recorded again
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventBackoffStarted, Group: "big", Reason: "sentinel"})
	got := eventsOn(t, "rec", string(nodeautoscaler.EventBackoffStarted))
	triggered := "TriggeredScaleUp: pod triggered scale-up: [{big 1->2 (max: 5)} {big-b 0->1 (max: 5)}]"
	want := map[string]int32{
		"Pod/lonely NotTriggerScaleUp: pod didn't trigger scale-up: 1 Insufficient cpu, 1 max node group size reached": 2,
		"Pod/web-0 " + triggered: 1,
		"Pod/web-1 " + triggered: 1,
		"ConfigMap/cluster-autoscaler-status ScaledUpGroup: Scale-up: setting group big size to 2 instead of 1 (max: 5)":   1,
		"ConfigMap/cluster-autoscaler-status ScaledUpGroup: Scale-up: setting group big-b size to 1 instead of 0 (max: 5)": 1,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%q recorded %d times, want %d", k, got[k], n)
		}
	}
	if len(got) != len(want)+1 {
		t.Errorf("events %v, want %v and the sentinel", got, want)
	}
}

func TestRecorderScaleDownEventsOnNodesAndPods(t *testing.T) {
	ctx := t.Context()
	createNamespace(t, "recnodes")
	for _, name := range []string{"sd-empty", "sd-drained", "sd-failed", "sd-blocked"} {
		if _, err := env.CreateNode(ctx, fixture.Node(name)); err != nil {
			t.Fatal(err)
		}
	}
	moved := unschedulable(t, "recnodes", "moved")
	c, _ := startCluster(t)
	waitForView(t, c, func(v *nodeautoscaler.View) bool { return hasNode(v, "sd-empty") && hasNode(v, "sd-blocked") })
	clk := clocktesting.NewFakePassiveClock(time.Now())
	b, events := live.NewEventBroadcasterWith(ctx, env.Client, live.EventOptions{StatusNamespace: "recnodes", Clock: clk})
	t.Cleanup(b.Shutdown)
	rec, err := live.NewRecorder(live.RecorderConfig{Events: events, Cluster: c, Namespace: "recnodes", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	const sd = nodeautoscaler.DeleteReasonScaleDown
	for _, e := range []nodeautoscaler.Event{
		{Type: nodeautoscaler.EventScaleDownStarted, Group: "g", Nodes: []string{"sd-empty"}, Message: "empty"},
		{Type: nodeautoscaler.EventDeleteNodes, Group: "g", Delta: -1, Nodes: []string{"sd-empty"}, Reason: sd, Message: "empty"},
		{Type: nodeautoscaler.EventScaleDownStarted, Group: "g", Nodes: []string{"sd-drained"}, Pods: 1, Message: "nonEmpty",
			PodRefs: []nodeautoscaler.PodRef{nodeautoscaler.PodRefOf(moved)}},
		{Type: nodeautoscaler.EventDeleteNodes, Group: "g", Delta: -1, Nodes: []string{"sd-drained"}, Pods: 1, Reason: sd, Message: "nonEmpty"},
		{Type: nodeautoscaler.EventScaleDownFailed, Group: "g", Nodes: []string{"sd-failed"}, Reason: "EvictionTimedOut",
			Message: "failed to drain and delete node: 1 pods not evicted"},
		{Type: nodeautoscaler.EventScaleDownBlocked, Group: "g", Nodes: []string{"sd-blocked"}, Reason: "HighUtilization"},
		// The size repair deletes instances; one named like a node gets no node event.
		{Type: nodeautoscaler.EventDeleteNodes, Group: "g", Delta: -1, Nodes: []string{"sd-blocked"}, Reason: nodeautoscaler.DeleteReasonLongUnregistered},
		{Type: nodeautoscaler.EventBackoffCleared, Group: "sentinel"},
	} {
		rec.Record(ctx, e)
	}
	got := eventsOn(t, "recnodes", string(nodeautoscaler.EventBackoffCleared))
	status := "ConfigMap/" + live.StatusConfigMapName + " "
	want := map[string]int32{
		"Node/sd-empty ScaleDown: marked the node as toBeDeleted/unschedulable":                                                                 1,
		"Node/sd-empty ScaleDown: nodes removed by cluster autoscaler":                                                                          1,
		"Node/sd-drained ScaleDown: marked the node as toBeDeleted/unschedulable":                                                               1,
		"Node/sd-drained ScaleDown: nodes removed by cluster autoscaler":                                                                        1,
		"Pod/moved ScaleDown: deleting pod for node scale down":                                                                                 1,
		"Node/sd-failed ScaleDownFailed: failed to drain and delete node: 1 pods not evicted":                                                   1,
		status + `ScaleDownEmpty: Scale-down: removing empty node "sd-empty"`:                                                                   1,
		status + "ScaleDownEmpty: Scale-down: empty node sd-empty removed":                                                                      1,
		status + "ScaleDown: Scale-down: removing node sd-drained, pods to reschedule: recnodes/moved":                                          1,
		status + "ScaleDown: Scale-down: node sd-drained removed with drain":                                                                    1,
		status + "ScaleDownFailed: ScaleDownFailed: node group g delta 0: EvictionTimedOut failed to drain and delete node: 1 pods not evicted": 1,
		status + "DeleteNodes: DeleteNodes: node group g delta -1: LongUnregistered ":                                                           1,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%q recorded %d times, want %d", k, got[k], n)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, "Node/sd-blocked") {
			t.Errorf("blocked node got an event: %s", k)
		}
	}
	if len(got) != len(want)+1 {
		t.Errorf("events %v, want %v and the sentinel", got, want)
	}
}
