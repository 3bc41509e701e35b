package actuation_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/testenv"
)

const e2ePrefix = "kwok://scaledown/"

// nodeCloud is the fake cloud of the end-to-end test: deleting an instance
// deletes its Node object.
type nodeCloud struct{ client kubernetes.Interface }

func (c nodeCloud) DeleteInstances(ctx context.Context, _ string, ids []string) error {
	for _, id := range ids {
		if err := c.client.CoreV1().Nodes().Delete(ctx, id, metav1.DeleteOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// testScaleDownEndToEnd drains nodes of a real cluster: kube-scheduler,
// the ReplicaSet, DaemonSet and disruption controllers, and the real kwok
// as the nodes' kubelets, making pods ready 2 s after they are bound. 3 nodes run 4 of
// 12 replicas each under a PodDisruptionBudget allowing 1 unavailable, and
// a DaemonSet pod; scale-down takes the cluster to one node without ever
// exceeding the budget. Every node carries a delay-deletion annotation the
// test removes 2 s after the node is drained: no node goes before that,
// and each drained node's DaemonSet pod was evicted.
func testScaleDownEndToEnd(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	for i := range 3 {
		name := fmt.Sprintf("n%d", i)
		n := fixture.Node(name, fixture.WithProviderID(e2ePrefix+name))
		n.Annotations = map[string]string{delayKey: "true", kwokstages.NodeAnnotation: kwokstages.NodeAnnotationValue}
		createNode(t, env.Client, n)
	}
	if _, err := env.Client.AppsV1().DaemonSets("default").Create(ctx, fixture.DaemonSet("agent", fixture.WithRequests("cpu", "0", "memory", "0")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, env.Client, "agent", 3)
	// A filler pod of 3 CPUs per node leaves room for exactly 4 web pods on
	// each; when it goes, every node runs 4 web pods at 25% utilization.
	filler := fixture.ReplicaSet("filler", 3, fixture.WithRequests("cpu", "3"))
	web := fixture.ReplicaSet("web", 12, fixture.WithRequests("cpu", "250m"),
		fixture.WithAnnotations(map[string]string{kwokstages.AnnotationStartTime: "2s"}))
	for _, rs := range []*appsv1.ReplicaSet{filler, web} {
		if _, err := env.Client.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitReady(t, env.Client, rs.Name, int(*rs.Spec.Replicas))
	}
	if _, err := env.Client.PolicyV1().PodDisruptionBudgets("default").Create(ctx, fixture.PDB("web", "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.AppsV1().ReplicaSets("default").Delete(ctx, "filler", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, env.Client, "filler", 0)

	sd := scaledown.Default()
	sd.UnneededTime, sd.ScanInterval = 0, time.Second
	// A node found blocked by the budget while the other drains is
	// simulated again at once, not after the 5m recheck timeout.
	sd.UnremovableRecheckTimeout = 0
	act := actuation.Default()
	act.MaxPodEvictionTime = time.Minute
	act.DeleteDelayAfterTaint = time.Second
	ctrl, err := actuation.NewController(actuation.ControllerConfig{ScaleDown: sd, Actuation: act,
		Cluster: actuation.NewKube(env.Client), Deleter: nodeCloud{env.Client}, Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	deleted, evicted, minReady := 0, 0, 12
	held := &heldNodes{drainedAt: map[string]time.Time{}, releasedAt: map[string]time.Time{}}
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		in, ready, err := liveInput(ctx, env.Client, "web")
		if err != nil {
			return false, err
		}
		minReady = min(minReady, ready)
		if err := held.release(ctx, env.Client, in); err != nil {
			return false, err
		}
		st, err := ctrl.RunOnce(ctx, in)
		if err != nil {
			return false, err
		}
		for _, o := range st.Outcomes {
			if o.Failed() {
				return false, fmt.Errorf("unexpected failure: %v", o)
			}
			if _, ok := held.releasedAt[o.Node]; !ok {
				return false, fmt.Errorf("node %s deleted while its delay-deletion annotation was there", o.Node)
			}
			deleted++
			evicted += o.Evicted
		}
		return deleted == 2 && len(st.Draining) == 0, nil
	})
	if err != nil {
		t.Fatalf("scaling down to one node: %v (deleted %d)", err, deleted)
	}
	waitReady(t, env.Client, "web", 12)
	t.Logf("deleted %d nodes, evicted %d pods; at least %d of 12 replicas were ready at every loop", deleted, evicted, minReady)
	if evicted < 8 {
		t.Errorf("evicted %d pods, want at least the 4 of each of two nodes", evicted)
	}
	if minReady < 11 {
		t.Errorf("saw only %d ready replicas during the drains; the budget allows 1 unavailable", minReady)
	}
}

// delayKey is the delay-deletion annotation of the end-to-end nodes.
const delayKey = actuation.DelayDeletionAnnotationPrefix + "e2e"

// heldNodes plays the component that holds node deletions back: it removes
// a node's delay-deletion annotation 2 s after it saw the node drained
// (ToBeDeleted, no web pod left), and then checks that the node's
// DaemonSet pod was evicted.
type heldNodes struct {
	drainedAt, releasedAt map[string]time.Time
}

func (h *heldNodes) release(ctx context.Context, c kubernetes.Interface, in scaledown.Input) error {
	for _, sn := range in.Nodes {
		n := sn.Node
		if _, ok := n.Annotations[delayKey]; !ok || !hasTaint(n, clusterstate.ToBeDeletedTaint) || podsOf(in.Pods, n.Name, "web") > 0 {
			continue
		}
		if !n.Spec.Unschedulable {
			return fmt.Errorf("node %s marked for deletion is not cordoned", n.Name)
		}
		at, ok := h.drainedAt[n.Name]
		if !ok {
			h.drainedAt[n.Name] = time.Now()
			continue
		}
		if time.Since(at) < 2*time.Second {
			continue
		}
		for _, p := range in.Pods {
			if p.Spec.NodeName == n.Name && p.Labels["app"] == "agent" && p.DeletionTimestamp == nil {
				return fmt.Errorf("DaemonSet pod %s on drained node %s was not evicted", p.Name, n.Name)
			}
		}
		patch := []byte(`{"metadata":{"annotations":{"` + delayKey + `":null}}}`)
		if _, err := c.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return err
		}
		h.releasedAt[n.Name] = time.Now()
	}
	return nil
}

func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}

func podsOf(pods []*corev1.Pod, node, app string) int {
	c := 0
	for _, p := range pods {
		if p.Spec.NodeName == node && p.Labels["app"] == app {
			c++
		}
	}
	return c
}

// liveInput reads the cluster as the loop would: one node group holding
// every node, the instance named like the node.
// It also counts the ready pods of app.
func liveInput(ctx context.Context, c kubernetes.Interface, app string) (scaledown.Input, int, error) {
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return scaledown.Input{}, 0, err
	}
	pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return scaledown.Input{}, 0, err
	}
	pdbs, err := c.PolicyV1().PodDisruptionBudgets("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return scaledown.Input{}, 0, err
	}
	in := scaledown.Input{Now: time.Now(), Groups: []scaledown.Group{{ID: "g", TargetSize: len(nodes.Items)}}}
	for i := range nodes.Items {
		in.Nodes = append(in.Nodes, scaledown.Node{Node: &nodes.Items[i], Group: "g", Instance: nodes.Items[i].Name, Ready: true})
	}
	ready := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName != "" {
			in.Pods = append(in.Pods, p)
		}
		if p.Labels["app"] == app && p.DeletionTimestamp == nil && podReady(p) {
			ready++
		}
	}
	for i := range pdbs.Items {
		in.PDBs = append(in.PDBs, &pdbs.Items[i])
	}
	return in, ready, nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func waitReady(t *testing.T, c kubernetes.Interface, app string, want int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		in, ready, err := liveInput(ctx, c, app)
		if err != nil || want > 0 {
			return ready == want, err
		}
		for _, p := range in.Pods {
			if p.Labels["app"] == app {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d ready %s pods: %v", want, app, err)
	}
}

// createNode creates the node and writes its status, retrying on conflicts:
// kube-controller-manager may touch a new node first.
func createNode(t *testing.T, c kubernetes.Interface, node *corev1.Node) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Status = *node.Status.DeepCopy()
		_, err = c.CoreV1().Nodes().UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("writing status of node %s: %v", node.Name, err)
	}
}
