package live_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// startCluster starts a live Cluster on the shared control plane and
// waits for its caches.
func startCluster(t *testing.T) (*live.Cluster, informers.SharedInformerFactory) {
	t.Helper()
	factory := live.NewFactory(env.Client)
	c := live.NewCluster(factory)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	if err := c.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return c, factory
}

func createNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := env.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestClusterViewIsTakenByRefresh(t *testing.T) {
	ctx := t.Context()
	factory := live.NewFactory(env.Client)
	c := live.NewCluster(factory)
	if _, err := c.ListNodes(ctx); !live.IsNotSynced(err) {
		t.Fatalf("ListNodes before any view: got %v, want ErrNotSynced", err)
	}
	if _, err := c.Refresh(); !live.IsNotSynced(err) {
		t.Fatalf("Refresh before the caches synced: got %v, want ErrNotSynced", err)
	}
	c, _ = startCluster(t)
	createNamespace(t, "view")
	if _, err := env.CreateNode(ctx, fixture.Node("view-node-1")); err != nil {
		t.Fatal(err)
	}
	pod := fixture.Pod("p1")
	pod.Namespace = "view"
	if _, err := env.Client.CoreV1().Pods("view").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := fixture.PDB("p1", "p1")
	pdb.Namespace = "view"
	if _, err := env.Client.PolicyV1().PodDisruptionBudgets("view").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	view := waitForView(t, c, func(v *live.View) bool {
		return hasNode(v, "view-node-1") && hasPod(v, "view", "p1") && len(v.PDBs) == 1
	})
	if pdbs, err := live.NewScaleDownCluster(env.Client, c).ListPDBs(ctx); err != nil || len(pdbs) != 1 {
		t.Fatalf("ListPDBs = %d, %v; want the view's budget", len(pdbs), err)
	}
	// A node created after the view stays out of the loop's reads until
	// the next Refresh.
	if _, err := env.CreateNode(ctx, fixture.Node("view-node-2")); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return c.HasSynced(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.ListNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(view.Nodes) {
		t.Fatalf("ListNodes returned %d nodes, the view has %d: reads must come from the view", len(nodes), len(view.Nodes))
	}
	waitForView(t, c, func(v *live.View) bool { return hasNode(v, "view-node-2") })
}

func waitForView(t *testing.T, c *live.Cluster, ok func(*live.View) bool) *live.View {
	t.Helper()
	var view *live.View
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		v, err := c.Refresh()
		if err != nil {
			return false, err
		}
		view = v
		return ok(v), nil
	})
	if err != nil {
		t.Fatalf("waiting for the view: %v", err)
	}
	return view
}

func hasNode(v *live.View, name string) bool {
	for _, n := range v.Nodes {
		if n.Name == name {
			return true
		}
	}
	return false
}

func hasPod(v *live.View, ns, name string) bool {
	for _, p := range v.Pods {
		if p.Namespace == ns && p.Name == name {
			return true
		}
	}
	return false
}
