package actuation_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/testenv"
)

// TestKube runs the live Cluster against a real API server and
// kube-controller-manager (whose disruption controller fills PDB status).
func TestKube(t *testing.T) {
	env := testenv.Start(t, testenv.Options{ControllerManager: true, Controllers: []string{"disruption"}})
	ctx := t.Context()
	c := env.Client
	k := actuation.NewKube(c)
	if _, err := env.CreateNode(ctx, fixture.Node("n1")); err != nil {
		t.Fatal(err)
	}
	t.Run("taints", func(t *testing.T) {
		taint := corev1.Taint{Key: clusterstate.ToBeDeletedTaint, Effect: corev1.TaintEffectNoSchedule}
		for range 2 { // idempotent
			if err := k.AddTaint(ctx, "n1", taint); err != nil {
				t.Fatal(err)
			}
		}
		got := taintKeys(t, c, "n1")
		if n := slices.Index(got, clusterstate.ToBeDeletedTaint); n < 0 || slices.Index(got[n+1:], clusterstate.ToBeDeletedTaint) >= 0 {
			t.Fatalf("taints = %v, want ToBeDeleted once", got)
		}
		if err := k.RemoveTaints(ctx, "n1", clusterstate.ToBeDeletedTaint, clusterstate.BeingDeletedTaint); err != nil {
			t.Fatal(err)
		}
		if got := taintKeys(t, c, "n1"); slices.Contains(got, clusterstate.ToBeDeletedTaint) {
			t.Fatalf("taints = %v", got)
		}
		if err := k.RemoveTaints(ctx, "missing", clusterstate.ToBeDeletedTaint); err != nil {
			t.Fatalf("missing node: %v", err)
		}
	})
	t.Run("uid precondition", func(t *testing.T) {
		// A pod no budget selects: a budget would count the failed attempt
		// as a disruption.
		solo := createReadyPod(t, c, "solo")
		stale := solo.DeepCopy()
		stale.UID = "not-the-uid"
		if err := k.EvictPod(ctx, stale, 0); !actuation.IsPodGone(err) {
			t.Fatalf("evicting with a stale UID: %v, want ErrPodGone", err)
		}
		if _, err := k.GetPod(ctx, "default", "solo"); err != nil {
			t.Fatalf("the pod is gone after a stale eviction: %v", err)
		}
	})
	t.Run("eviction", func(t *testing.T) {
		p1, p2 := createReadyPod(t, c, "web-1"), createReadyPod(t, c, "web-2")
		// Bare pods: the disruption controller can only count minAvailable.
		pdb := fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromInt32(1)))
		if _, err := c.PolicyV1().PodDisruptionBudgets("default").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitAllowed(t, c, 1)
		if err := k.EvictPod(ctx, p1, 0); err != nil {
			t.Fatalf("first eviction: %v", err)
		}
		waitAllowed(t, c, 0)
		if err := k.EvictPod(ctx, p2, 0); !actuation.IsEvictionRefused(err) {
			t.Fatalf("second eviction: %v, want ErrEvictionRefused", err)
		}
		if _, err := k.GetPod(ctx, "default", "missing"); !actuation.IsPodGone(err) {
			t.Fatalf("GetPod(missing) = %v", err)
		}
		pods, err := k.PodsOnNode(ctx, "n1")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range pods {
			names = append(names, p.Name)
		}
		// web-1 was evicted with grace period 0 and is gone.
		if slices.Sort(names); !slices.Equal(names, []string{"solo", "web-2"}) {
			t.Fatalf("pods on n1 = %v", names)
		}
	})
}

func taintKeys(t *testing.T, c kubernetes.Interface, node string) []string {
	t.Helper()
	n, err := c.CoreV1().Nodes().Get(t.Context(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tt := range n.Spec.Taints {
		out = append(out, tt.Key)
	}
	return out
}

func createReadyPod(t *testing.T, c kubernetes.Interface, name string) *corev1.Pod {
	t.Helper()
	app, _, _ := strings.Cut(name, "-")
	p := fixture.Pod(name, fixture.OnNode("n1"), fixture.WithLabels(map[string]string{"app": app}))
	created, err := c.CoreV1().Pods("default").Create(t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fixture.Running()(created)
	created, err = c.CoreV1().Pods("default").UpdateStatus(t.Context(), created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func waitAllowed(t *testing.T, c kubernetes.Interface, want int32) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pdb, err := c.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.DisruptionsAllowed == want, nil
	})
	if err != nil {
		t.Fatalf("waiting for the PDB to allow %d disruptions: %v", want, err)
	}
}
