package testenv_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
)

// TestSmoke checks the harness against the real kube-scheduler and
// kube-controller-manager.
func TestSmoke(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true})
	t.Run("scheduler", func(t *testing.T) { testSchedulerBindsAndRejects(t, env) })
	t.Run("controller-manager", func(t *testing.T) { testReplicaSetCreatesPods(t, env) })
}

func testSchedulerBindsAndRejects(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	if _, err := env.CreateNode(ctx, fixture.Node("node-a")); err != nil {
		t.Fatal(err)
	}
	pods := env.Client.CoreV1().Pods(fixture.DefaultNamespace)
	if _, err := pods.Create(ctx, fixture.Pod("fits", fixture.WithRequests("cpu", "1")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, fixture.Pod("too-big", fixture.WithRequests("cpu", "8")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "pod fits bound to node-a", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "fits", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "node-a", err
	})
	poll(t, ctx, "pod too-big marked Unschedulable", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "too-big", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				return p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending, nil
			}
		}
		return false, nil
	})
}

func testReplicaSetCreatesPods(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	rs := fixture.ReplicaSet("web", 3)
	if _, err := env.Client.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	selector := labels.SelectorFromSet(rs.Spec.Selector.MatchLabels).String()
	poll(t, ctx, "ReplicaSet web has 3 pods", func(ctx context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		return err == nil && len(list.Items) == 3, err
	})
}

// poll waits up to a minute for cond, failing the test with what it waited for.
func poll(t *testing.T, ctx context.Context, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
