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

// TestLive runs the live Cluster and the whole scale-down against one real
// control plane (kube-apiserver, kube-scheduler, kube-controller-manager)
// and the real kwok controller as the kubelets of the scale-down's nodes.
func TestLive(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true, Kwok: true})
	t.Run("kube cluster", func(t *testing.T) { testKube(t, env) })
	t.Run("scale-down end to end", func(t *testing.T) { testScaleDownEndToEnd(t, env) })
}

// testKube checks Kube's calls in namespace kubetest on node k1, which it
// deletes at the end.
func testKube(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	c := env.Client
	k := actuation.NewKube(c)
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createNode(t, c, fixture.Node("k1", fixture.WithTaints(fixture.Taint("dedicated", "infra", corev1.TaintEffectNoSchedule))))
	t.Cleanup(func() { _ = c.CoreV1().Nodes().Delete(context.WithoutCancel(ctx), "k1", metav1.DeleteOptions{}) })
	t.Run("taints", func(t *testing.T) {
		taint := corev1.Taint{Key: clusterstate.ToBeDeletedTaint, Effect: corev1.TaintEffectNoSchedule}
		for range 2 { // idempotent
			if err := k.AddTaint(ctx, "k1", taint); err != nil {
				t.Fatal(err)
			}
		}
		got := taintKeys(t, c, "k1")
		if n := slices.Index(got, clusterstate.ToBeDeletedTaint); n < 0 || slices.Index(got[n+1:], clusterstate.ToBeDeletedTaint) >= 0 {
			t.Fatalf("taints = %v, want ToBeDeleted once", got)
		}
		if err := k.RemoveTaints(ctx, "k1", clusterstate.ToBeDeletedTaint, clusterstate.BeingDeletedTaint); err != nil {
			t.Fatal(err)
		}
		if got := taintKeys(t, c, "k1"); slices.Contains(got, clusterstate.ToBeDeletedTaint) || !slices.Contains(got, "dedicated") {
			t.Fatalf("taints = %v, want only the node's own dedicated taint", got)
		}
		if err := k.RemoveTaints(ctx, "missing", clusterstate.ToBeDeletedTaint); err != nil {
			t.Fatalf("missing node: %v", err)
		}
	})
	t.Run("cordon and fresh node reads", func(t *testing.T) {
		for _, want := range []bool{true, true, false} { // idempotent
			if err := k.Cordon(ctx, "k1", want); err != nil {
				t.Fatal(err)
			}
			n, err := k.GetNode(ctx, "k1")
			if err != nil {
				t.Fatal(err)
			}
			if n.Spec.Unschedulable != want || !slices.Contains(taintKeys(t, c, "k1"), "dedicated") {
				t.Fatalf("unschedulable = %v with taints %v, want %v and the node's own taint", n.Spec.Unschedulable, taintKeys(t, c, "k1"), want)
			}
		}
		if err := k.Cordon(ctx, "missing", false); err != nil {
			t.Fatalf("uncordoning a missing node: %v", err)
		}
		if err := k.Cordon(ctx, "missing", true); err == nil {
			t.Fatal("cordoning a missing node succeeded")
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
		if _, err := k.GetPod(ctx, ns, "solo"); err != nil {
			t.Fatalf("the pod is gone after a stale eviction: %v", err)
		}
	})
	t.Run("eviction", func(t *testing.T) {
		p1, p2 := createReadyPod(t, c, "web-1"), createReadyPod(t, c, "web-2")
		// Bare pods: the disruption controller can only count minAvailable.
		pdb := fixture.PDB("web", "web", fixture.MinAvailable(intstr.FromInt32(1)))
		pdb.Namespace = ns
		if _, err := c.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
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
		if _, err := k.GetPod(ctx, ns, "missing"); !actuation.IsPodGone(err) {
			t.Fatalf("GetPod(missing) = %v", err)
		}
		pods, err := k.PodsOnNode(ctx, "k1")
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

// ns is the namespace of the Kube checks, apart from the end-to-end test's.
const ns = "kubetest"

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
	p := fixture.Pod(name, fixture.OnNode("k1"), fixture.InNamespace(ns), fixture.WithLabels(map[string]string{"app": app}))
	created, err := c.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fixture.Running()(created)
	created, err = c.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func waitAllowed(t *testing.T, c kubernetes.Interface, want int32) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pdb, err := c.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.DisruptionsAllowed == want, nil
	})
	if err != nil {
		t.Fatalf("waiting for the PDB to allow %d disruptions: %v", want, err)
	}
}
