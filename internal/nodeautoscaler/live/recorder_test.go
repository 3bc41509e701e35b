package live_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// unschedulable creates a pod in ns and marks it unschedulable, as
// kube-scheduler would.
func unschedulable(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	p := fixture.Pod(name)
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

func TestRecorderEventsOnPodsDeduplicated(t *testing.T) {
	ctx := t.Context()
	createNamespace(t, "rec")
	pod := unschedulable(t, "rec", "lonely")
	c, _ := startCluster(t)
	waitForView(t, c, func(v *live.View) bool {
		for _, p := range v.Pods {
			if p.Name == "lonely" && nodeautoscaler.IsUnschedulable(p) {
				return true
			}
		}
		return false
	})
	b, events := live.NewEventBroadcaster(ctx, env.Client)
	t.Cleanup(b.Shutdown)
	clk := clocktesting.NewFakePassiveClock(time.Now())
	rec, err := live.NewRecorder(live.RecorderConfig{Events: events, Cluster: c, Namespace: "rec", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	e := nodeautoscaler.Event{Type: nodeautoscaler.EventNotTriggerScaleUp, Pods: 1, Reason: "rec/lonely", Message: "big: max size reached"}
	rec.Record(ctx, e)
	rec.Record(ctx, e) // within the window: dropped
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventScaleUp, Group: "big", Delta: 2, Pods: 3})
	clk.SetTime(clk.Now().Add(6 * time.Minute))
	rec.Record(ctx, e) // after the window: recorded again
	// The broadcaster writes in order: once this last event is in, every
	// earlier one is too.
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventBackoffStarted, Group: "big", Reason: "sentinel"})
	var got []corev1.Event
	var podCount, group, sentinel int32
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Events("rec").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = list.Items
		podCount, group, sentinel = 0, 0, 0
		for _, ev := range got {
			switch {
			case ev.InvolvedObject.UID == pod.UID && ev.Reason == live.ReasonNotTriggerScaleUp:
				podCount += ev.Count
			case ev.InvolvedObject.Name == live.StatusConfigMapName && ev.Reason == live.ReasonScaledUpGroup:
				group += ev.Count
			case ev.Reason == string(nodeautoscaler.EventBackoffStarted):
				sentinel += ev.Count
			}
		}
		return sentinel == 1, nil
	})
	if err != nil {
		t.Fatalf("the last event never arrived; events: %+v", got)
	}
	if podCount != 2 || group != 1 {
		t.Fatalf("NotTriggerScaleUp on the pod %d times (want 2: once per window), ScaledUpGroup %d times (want 1)", podCount, group)
	}
}

func TestRecorderScaleDownEventsOnNodes(t *testing.T) {
	ctx := t.Context()
	createNamespace(t, "recnodes")
	for _, name := range []string{"sd-removed", "sd-failed"} {
		if _, err := env.CreateNode(ctx, fixture.Node(name)); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := startCluster(t)
	view := waitForView(t, c, func(v *live.View) bool { return hasNode(v, "sd-removed") && hasNode(v, "sd-failed") })
	uids := map[string]string{}
	for _, n := range view.Nodes {
		uids[string(n.UID)] = n.Name
	}
	b, events := live.NewEventBroadcaster(ctx, env.Client)
	t.Cleanup(b.Shutdown)
	rec, err := live.NewRecorder(live.RecorderConfig{Events: events, Cluster: c, Namespace: "recnodes", Clock: clocktesting.NewFakePassiveClock(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventDeleteNodes, Group: "g", Delta: -1, Nodes: []string{"sd-removed"}, Message: "empty"})
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventScaleDownFailed, Group: "g", Nodes: []string{"sd-failed"}, Reason: "EvictionTimedOut", Message: "pod web-1 kept"})
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventScaleDownBlocked, Group: "g", Nodes: []string{"sd-failed"}, Reason: "NotUnderutilized"})
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventBackoffCleared, Group: "sentinel"})
	want := map[string]string{"sd-removed": live.ReasonScaleDown, "sd-failed": live.ReasonScaleDownFailed}
	var got map[string][]string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = map[string][]string{}
		sentinel := false
		for _, ev := range list.Items {
			if name, ok := uids[string(ev.InvolvedObject.UID)]; ok && ev.InvolvedObject.Kind == "Node" {
				got[name] = append(got[name], ev.Reason)
			}
			sentinel = sentinel || (ev.Namespace == "recnodes" && ev.Reason == string(nodeautoscaler.EventBackoffCleared))
		}
		return sentinel, nil
	})
	if err != nil {
		t.Fatalf("the last event never arrived: %v", err)
	}
	for node, reason := range want {
		if len(got[node]) != 1 || got[node][0] != reason {
			t.Errorf("events on node %s: %v, want exactly [%s] (none for blocked nodes)", node, got[node], reason)
		}
	}
}
