package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv"
)

// naSetup starts the control plane with the real kube-scheduler,
// kube-controller-manager and kwok (the kubelets of the kwok provider's
// nodes), writes the priority expander ConfigMap (group
// "preferred" first), applies the deploy/ ServiceAccount and RBAC (the
// command runs under them, which proves the RBAC sufficient) and writes the
// kwok cloud config. It returns the kubeconfig of the ServiceAccount and
// the cloud config's path.
func naSetup(t *testing.T, cloud string) (env *testenv.Env, kubeconfig, cloudConfig string) {
	t.Helper()
	return naSetupUnder(t, cloud, "../../deploy/node-autoscaler")
}

// naSetupUnder is naSetup with the ServiceAccount and RBAC of the
// kustomization in dir.
func naSetupUnder(t *testing.T, cloud, dir string) (env *testenv.Env, kubeconfig, cloudConfig string) {
	t.Helper()
	env = testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true, Kwok: true,
		// kwok renews node Leases as kubelets do; a faster node monitor
		// lifts the not-ready taint of new nodes sooner.
		ControllerManagerFlags: []string{"--node-monitor-grace-period=30s", "--node-monitor-period=1s"}})
	prio := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.PriorityConfigMapName, Namespace: "kube-system"},
		Data: map[string]string{live.PriorityConfigMapKey: "50: [preferred]\n10: ['.*']\n"}}
	if _, err := env.Client.CoreV1().ConfigMaps("kube-system").Create(t.Context(), prio, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	applyManifests(t, vpaTestClient(t, env), dir, "serviceaccount.yaml", "rbac.yaml")
	kubeconfig = serviceAccountKubeconfig(t, env, "kscale-node-autoscaler")
	cloudConfig = filepath.Join(t.TempDir(), "cloud.yaml")
	if err := os.WriteFile(cloudConfig, []byte(cloud), 0o600); err != nil {
		t.Fatal(err)
	}
	return env, kubeconfig, cloudConfig
}

func naDeploy(t *testing.T, env *testenv.Env, name string, replicas int32, pool, cpu string) {
	t.Helper()
	d := fixture.Deployment(name, replicas, fixture.WithRequests("cpu", cpu, "memory", "1Gi"),
		fixture.WithNodeSelector(map[string]string{"pool": pool}))
	if _, err := env.Client.AppsV1().Deployments(d.Namespace).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// naScale sets a deployment's replicas.
func naScale(t *testing.T, env *testenv.Env, name string, replicas int32) {
	t.Helper()
	d, err := env.Client.AppsV1().Deployments(fixture.DefaultNamespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = &replicas
	if _, err := env.Client.AppsV1().Deployments(fixture.DefaultNamespace).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// naExpectRunning waits until the deployment's pods are bound by the
// scheduler and running on kwok nodes.
func naExpectRunning(t *testing.T, env *testenv.Env, app string, n int) {
	t.Helper()
	naPoll(t, fmt.Sprintf("%d pods of %s bound and running", n, app), func(ctx context.Context) (bool, error) {
		return naRunning(ctx, env, app) == n, nil
	})
}

// expectGroupNodes checks the number of kwok nodes per group.
func naExpectGroupNodes(t *testing.T, env *testenv.Env, want map[string]int) {
	t.Helper()
	if got := naGroupNodes(t, env); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("nodes per group %v, want %v", got, want)
	}
}

// naGroupNodes counts the kwok nodes per group.
func naGroupNodes(t *testing.T, env *testenv.Env) map[string]int {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range list.Items {
		if rest, ok := strings.CutPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix); ok {
			g, _, _ := strings.Cut(rest, "/")
			got[g]++
		}
	}
	return got
}

// naRecheckSoon is for tests that empty a node and wait for its removal:
// a loop that saw the node still running its pods may have found it
// unremovable (say NoPlaceToMovePods), and the default recheck timeout
// would keep it out of the simulation for 5 minutes, empty or not, as
// upstream does.
const naRecheckSoon = "--unremovable-node-recheck-timeout=1s"

func naPoll(t *testing.T, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 60*time.Second, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func naFreeAddress(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", cmFreePorts(t, 1)[0])
}

// naGet fetches url and returns the body whatever the status (/healthz
// answers 500 with a reason); a transport error fails the test.
func naGet(t *testing.T, url string) string {
	t.Helper()
	body, _, err := naFetch(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// naTryGet fetches url; ok is false when the server does not answer 200.
func naTryGet(ctx context.Context, url string) (string, bool) {
	body, status, err := naFetch(ctx, url)
	return body, err == nil && status == http.StatusOK
}

func naFetch(ctx context.Context, url string) (string, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode, err
}

// pdbWatch follows a PDB's status during a drain.
type pdbWatch struct {
	mu        sync.Mutex
	disrupted bool   // the eviction API recorded a disrupted pod
	broken    string // a status with fewer healthy pods than desired
}

func (w *pdbWatch) result() (bool, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.disrupted, w.broken
}

// watchPDB records whether the eviction API ever listed a disrupted pod in
// the PDB's status (only evictions do) and whether the disruption
// controller ever reported fewer healthy pods than the budget requires.
func watchPDB(t *testing.T, env *testenv.Env, name string) *pdbWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	w, err := env.Client.PolicyV1().PodDisruptionBudgets(fixture.DefaultNamespace).Watch(ctx,
		metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	pw := &pdbWatch{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			pdb, ok := ev.Object.(*policyv1.PodDisruptionBudget)
			if !ok {
				continue
			}
			pw.mu.Lock()
			if len(pdb.Status.DisruptedPods) > 0 {
				pw.disrupted = true
			}
			if pdb.Status.ObservedGeneration > 0 && pdb.Status.CurrentHealthy < pdb.Status.DesiredHealthy && pw.broken == "" {
				pw.broken = fmt.Sprintf("%d healthy pods, %d desired", pdb.Status.CurrentHealthy, pdb.Status.DesiredHealthy)
			}
			pw.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return pw
}

// naRunningOnLiveNodes counts the app's Running pods whose node still
// exists (a pod of a deleted node keeps its phase until it is collected).
func naRunningOnLiveNodes(ctx context.Context, env *testenv.Env, app string) int {
	pods, err := env.Client.CoreV1().Pods(fixture.DefaultNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return -1
	}
	n := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		if _, err := env.Client.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{}); err == nil {
			n++
		}
	}
	return n
}

// naExpectEvent waits for an event on the named object with the reason and
// a message starting with prefix.
func naExpectEvent(t *testing.T, env *testenv.Env, ns, object, reason, prefix string) {
	t.Helper()
	naPoll(t, fmt.Sprintf("a %s event on %s", reason, object), func(ctx context.Context) (bool, error) {
		evs, err := env.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + object + ",reason=" + reason})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if strings.HasPrefix(e.Message, prefix) {
				return true, nil
			}
		}
		return false, nil
	})
}

// naExpectEventOn waits for an event with reason in ns on an object whose
// name starts with objectPrefix and whose message contains every part.
func naExpectEventOn(t *testing.T, env *testenv.Env, ns, reason, objectPrefix string, parts ...string) {
	t.Helper()
	naPoll(t, fmt.Sprintf("a %s event on %s* with %q", reason, objectPrefix, parts), func(ctx context.Context) (bool, error) {
		evs, err := env.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + reason})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if strings.HasPrefix(e.InvolvedObject.Name, objectPrefix) && !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(e.Message, p) }) {
				return true, nil
			}
		}
		return false, nil
	})
}

// naGroupNodeNames lists the kwok nodes of a group.
func naGroupNodeNames(t *testing.T, env *testenv.Env, group string) []string {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range list.Items {
		if strings.HasPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix+group+"/") {
			names = append(names, n.Name)
		}
	}
	return names
}

// naSchedulableNodes counts the Ready, untainted nodes of a pool.
func naSchedulableNodes(ctx context.Context, env *testenv.Env, pool string) int {
	list, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "pool=" + pool})
	if err != nil {
		return -1
	}
	n := 0
	for _, node := range list.Items {
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue && len(node.Spec.Taints) == 0 {
				n++
			}
		}
	}
	return n
}

// naPodNodes returns the distinct nodes the app's pods are bound to.
func naPodNodes(t *testing.T, env *testenv.Env, app string) map[string]bool {
	t.Helper()
	pods, err := env.Client.CoreV1().Pods(fixture.DefaultNamespace).List(t.Context(), metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, p := range pods.Items {
		nodes[p.Spec.NodeName] = true
	}
	return nodes
}

// naTaintNewNodes plays another controller that puts taint on every node
// of group when it registers, until the test ends; it returns how many
// nodes of the group it has seen.
func naTaintNewNodes(t *testing.T, env *testenv.Env, group string, taint corev1.Taint) func() int {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	w, err := env.Client.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			n, ok := ev.Object.(*corev1.Node)
			if !ok || ev.Type == watch.Deleted || !strings.HasPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix+group+"/") {
				continue
			}
			mu.Lock()
			seen[n.Name] = true
			mu.Unlock()
			if slices.ContainsFunc(n.Spec.Taints, func(x corev1.Taint) bool { return x.Key == taint.Key }) {
				continue
			}
			patch := fmt.Sprintf(`{"spec":{"taints":%s}}`, mustJSON(append(slices.Clone(n.Spec.Taints), taint)))
			if _, err := env.Client.CoreV1().Nodes().Patch(ctx, n.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && ctx.Err() == nil {
				t.Errorf("tainting node %s: %v", n.Name, err)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		w.Stop()
		<-done
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(seen)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// naWaitLoops waits until the autoscaler has written its status ConfigMap
// n more times (one loop each), which lets a test assert that something
// did not happen over that many loops without a fixed sleep.
func naWaitLoops(t *testing.T, env *testenv.Env, n int) {
	t.Helper()
	seen, last := 0, ""
	naPoll(t, fmt.Sprintf("%d more autoscaler loops", n), func(ctx context.Context) (bool, error) {
		cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if at := cm.Annotations[live.LastUpdatedAnnotation]; at != last {
			seen, last = seen+1, at
		}
		return seen > n, nil
	})
}
