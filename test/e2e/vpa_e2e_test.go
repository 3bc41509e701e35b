package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/target"
)

// TestVPAComponentsAgainstControlPlane runs `kscale vpa-admission` and two
// `kscale vpa-updater` replicas against a control plane, each under the
// ServiceAccount and RBAC of deploy/vpa: the webhook registers itself and
// renews its status Lease, one updater wins leader election, it evicts the
// drifted pods of a Deployment within budget, and the webhook gives the
// replacement pods the recommended requests.
func TestVPAComponentsAgainstControlPlane(t *testing.T) {
	env := testenv.Start(t, testenv.Options{
		Scheduler: true, ControllerManager: true,
		// Without kubelets the node lifecycle controller would mark the node NotReady.
		Controllers: []string{"*", "-node-lifecycle-controller"},
	})
	installVPACRDs(t, env)
	c := vpaTestClient(t, env)
	applyManifests(t, c, "../../deploy/vpa/admission", "serviceaccount.yaml", "rbac.yaml")
	applyManifests(t, c, "../../deploy/vpa/updater", "serviceaccount.yaml", "rbac.yaml")
	admissionKubeconfig := serviceAccountKubeconfig(t, env, "kscale-vpa-admission")
	updaterKubeconfig := serviceAccountKubeconfig(t, env, "kscale-vpa-updater")

	certs := testpki.WriteServing(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	webhookPort, admissionMetrics := freePort(t), freePort(t)
	runCommand(t, command("vpa-admission"), []string{
		"--kubeconfig=" + admissionKubeconfig, "--namespace=kube-system",
		fmt.Sprintf("--port=%d", webhookPort), "--tls-cert-file=" + certs.Cert, "--tls-private-key=" + certs.Key,
		"--client-ca-file=" + certs.CA, "--register-by-url", "--webhook-address=127.0.0.1", fmt.Sprintf("--webhook-port=%d", webhookPort),
		fmt.Sprintf("--address=127.0.0.1:%d", admissionMetrics), "--status-lease-update-interval=1s",
	})
	updaterPorts := []int{freePort(t), freePort(t)}
	for _, port := range updaterPorts {
		runCommand(t, command("vpa-updater"), []string{
			"--kubeconfig=" + updaterKubeconfig, "--namespace=kube-system", "--leader-elect",
			"--updater-interval=1s", fmt.Sprintf("--address=127.0.0.1:%d", port),
		})
	}
	waitLease(t, env, "kube-system", "vpa-admission-controller")
	waitLease(t, env, "kube-system", "vpa-updater")
	expectOneLeader(t, updaterPorts)
	waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", admissionMetrics), "go_goroutines")

	// A Deployment of 4 running pods at 100m, then a VPA recommending 500m
	// (lower bound 400m): the updater evicts 2 (tolerance 0.5) and the
	// webhook sizes their replacements.
	readyNode(t, env, c)
	d := fixture.Deployment("web", 4)
	if err := c.Create(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	for _, p := range waitPodsE2E(t, c, 4, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }) {
		markPodRunning(t, c, p)
	}
	createDriftedVPA(t, c)
	waitPodsE2E(t, c, 2, func(p *corev1.Pod) bool {
		q := p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
		return p.DeletionTimestamp == nil && q.Cmp(resource.MustParse("500m")) == 0 && p.Annotations["vpaObservedContainers"] == "app"
	})
	waitPodsE2E(t, c, 2, func(p *corev1.Pod) bool { return p.DeletionTimestamp != nil })
	// Metric conformance: upstream's vpa_admission_controller_* families,
	// with the two replacement pods counted as applied.
	admissionBody := waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", admissionMetrics), `vpa_admission_controller_admission_pods_total{applied="true"} 2`)
	checkMetricConformance(t, admissionBody, "vpa_admission_controller_", upstreamVPAAdmissionFamilies, nil, nil)
	// Later loops must not evict more: the replacements are not running.
	leader := leaderPort(t, updaterPorts)
	before := completedLoops(waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", leader), "go_goroutines"))
	body := waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", leader), fmt.Sprintf(`kscale_vpa_updater_loops_total{result="Completed"} %d`, before+2))
	if !strings.Contains(body, `kscale_vpa_updater_evictions_total{reason="OutsideRecommendedRange"} 2`+"\n") {
		t.Errorf("evictions after two more loops:\n%s", grepLines(body, "evictions_total"))
	}
	// Metric conformance: upstream's vpa_updater_* families, with both
	// evictions of the VPA of 4 pods (vpa_size_log2 2).
	checkMetricConformance(t, body, "vpa_updater_", upstreamVPAUpdaterFamilies, nil, vpaUpdaterNotYetExported)
	if !strings.Contains(body, `vpa_updater_evicted_pods_total{update_mode="Recreate",vpa_name="web",vpa_namespace="default",vpa_size_log2="2"} 2`) {
		t.Errorf("upstream eviction counter:\n%s", grepLines(body, "vpa_updater_evicted_pods_total"))
	}
	if n := len(waitPodsE2E(t, c, 0, func(p *corev1.Pod) bool { return p.DeletionTimestamp != nil })); n != 2 {
		t.Errorf("%d pods evicted, want 2", n)
	}
}

// expectOneLeader waits until one updater completed two loops and checks
// that the other ran none.
func expectOneLeader(t *testing.T, ports []int) {
	t.Helper()
	leader := leaderPort(t, ports)
	for _, p := range ports {
		if p == leader {
			continue
		}
		body := waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", p), "go_goroutines")
		if completedLoops(body) > 0 {
			t.Errorf("both updater replicas ran loops; leader election failed:\n%s", grepLines(body, "loops_total"))
		}
	}
	waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/health-check", leader), "OK")
}

var completedRE = regexp.MustCompile(`kscale_vpa_updater_loops_total\{result="Completed"\} (\d+)`)

func completedLoops(metrics string) int {
	m := completedRE.FindStringSubmatch(metrics)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// leaderPort returns the metrics port of the updater that completed at
// least two loops (only the elected one loops, once the webhook's Lease is
// fresh).
func leaderPort(t *testing.T, ports []int) int {
	t.Helper()
	leader := 0
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for _, p := range ports {
			if completedLoops(waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", p), "go_goroutines")) >= 2 {
				leader = p
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no updater completed two loops: %v", err)
	}
	return leader
}

func vpaTestClient(t *testing.T, env *testenv.Env) client.Client {
	t.Helper()
	scheme, err := target.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// applyManifests creates the objects of the named files of dir.
func applyManifests(t *testing.T, c client.Client, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &meta); err != nil || meta.Kind == "" {
				continue
			}
			obj, err := clientgoscheme.Scheme.New(meta.GroupVersionKind())
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := c.Create(t.Context(), obj.(client.Object)); err != nil {
				t.Fatalf("%s: creating %s: %v", f, meta.Kind, err)
			}
		}
	}
}

// serviceAccountKubeconfig writes a kubeconfig authenticating as the
// kube-system ServiceAccount name with a fresh token.
func serviceAccountKubeconfig(t *testing.T, env *testenv.Env, name string) string {
	t.Helper()
	return serviceAccountKubeconfigIn(t, env, "kube-system", name)
}

// serviceAccountKubeconfigIn writes a kubeconfig authenticating as the
// ServiceAccount namespace/name with a fresh token.
func serviceAccountKubeconfigIn(t *testing.T, env *testenv.Env, namespace, name string) string {
	t.Helper()
	exp := int64(3600)
	tok, err := env.Client.CoreV1().ServiceAccounts(namespace).CreateToken(t.Context(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s: %v", name, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: env.APIServerURL, CertificateAuthorityData: env.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: name}
	cfg.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), namespace+"-"+name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// readyNode creates a large Ready node without the not-ready taint, as a
// kubelet registering would (retrying conflicts with the controllers that
// annotate new nodes).
func readyNode(t *testing.T, _ *testenv.Env, c client.Client) {
	t.Helper()
	node := fixture.Node("node-1", fixture.WithCapacity(corev1.ResourceCPU, "64"), fixture.WithCapacity(corev1.ResourceMemory, "256Gi"))
	status := node.Status
	if err := c.Create(t.Context(), node); err != nil {
		t.Fatal(err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n := &corev1.Node{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: node.Name}, n); err != nil {
			return err
		}
		n.Status = status
		if err := c.Status().Update(t.Context(), n); err != nil {
			return err
		}
		n.Spec.Taints = nil
		return c.Update(t.Context(), n)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// markPodRunning writes the status a kubelet would: Running and Ready.
func markPodRunning(t *testing.T, c client.Client, pod corev1.Pod) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p := &corev1.Pod{}
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(&pod), p); err != nil {
			return err
		}
		now := metav1.Now()
		p.Status.Phase, p.Status.StartTime = corev1.PodRunning, &now
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now})
		return c.Status().Update(t.Context(), p)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func createDriftedVPA(t *testing.T, c client.Client) {
	t.Helper()
	mode := vpav1.UpdateModeRecreate
	vpa := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:    &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			UpdatePolicy: &vpav1.PodUpdatePolicy{UpdateMode: &mode},
		},
	}
	if err := c.Create(t.Context(), vpa); err != nil {
		t.Fatal(err)
	}
	rl := func(cpu, mem string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
	vpa.Status.Recommendation = &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{{
		ContainerName: "app", Target: rl("500m", "128Mi"), LowerBound: rl("400m", "100Mi"), UpperBound: rl("1", "1Gi"),
	}}}
	if err := c.Status().Update(t.Context(), vpa); err != nil {
		t.Fatal(err)
	}
}

// waitPodsE2E waits until at least n pods of app web satisfy ok.
func waitPodsE2E(t *testing.T, c client.Client, n int, ok func(*corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	var match []corev1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var list corev1.PodList
		if err := c.List(ctx, &list, client.InNamespace("default"), client.MatchingLabels{"app": "web"}); err != nil {
			return false, err
		}
		match = match[:0]
		for i := range list.Items {
			if ok(&list.Items[i]) {
				match = append(match, list.Items[i])
			}
		}
		return len(match) >= n, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d pods: %v (have %d)", n, err, len(match))
	}
	return match
}
