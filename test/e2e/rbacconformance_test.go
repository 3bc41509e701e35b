package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv"
)

// upstreamRBACDir holds upstream's RBAC manifests, transcribed as test
// data; each file names its source and commit.
const upstreamRBACDir = "testdata/upstream-rbac"

// rbacScraper may GET the API server's /metrics: the identity in the
// shoot's token secret that custom-metrics scrapes with.
var rbacScraper = testenv.User{Name: "rbac-shoot-scraper", Token: "rbac-scraper-token-51d2e7"}

// TestUpstreamRBAC runs each component under the ServiceAccount and RBAC
// its upstream installs (compatibility spec §1.9), against one real
// control plane, and checks that it does its job. The API server writes an
// audit log of every request by a ServiceAccount; after each component,
// every request the API server refused with 403 fails the test unless it
// is a documented, tolerated one (docs/rbac.md, "RBAC beyond upstream").
func TestUpstreamRBAC(t *testing.T) {
	audit := startAuditedEnv(t)
	env := audit.env
	t.Run("cluster-autoscaler (AWS example RBAC, kwok cloud)", func(t *testing.T) {
		testCARBAC(t, env)
		audit.expectNoForbidden(t, "system:serviceaccount:kube-system:cluster-autoscaler",
			// The backoff ConfigMap is kscale's; upstream's Role does not
			// name it and kscale runs without persisting the backoff.
			forbiddenOK{resource: "configmaps", name: live.BackoffConfigMapName})
	})
	t.Run("vpa (VPA 1.8.1 deploy/vpa-rbac.yaml)", func(t *testing.T) {
		testVPARBAC(t, env)
		for _, sa := range []string{"vpa-admission-controller", "vpa-recommender", "vpa-updater"} {
			audit.expectNoForbidden(t, "system:serviceaccount:kube-system:"+sa)
		}
	})
	t.Run("gardener-custom-metrics (Gardener's RBAC)", func(t *testing.T) {
		testCustomMetricsRBAC(t, env)
		audit.expectNoForbidden(t, "system:serviceaccount:kube-system:gardener-custom-metrics")
	})
}

// auditedEnv is a control plane whose API server logs every
// ServiceAccount request to an audit log.
type auditedEnv struct {
	env *testenv.Env
	log string
}

func startAuditedEnv(t *testing.T) *auditedEnv {
	t.Helper()
	dir := t.TempDir()
	policy, log := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	const policyDoc = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  userGroups: ["system:serviceaccounts"]
- level: None
`
	if err := os.WriteFile(policy, []byte(policyDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true, Kwok: true,
		ControllerManagerFlags: []string{"--node-monitor-grace-period=30s", "--node-monitor-period=1s"},
		APIServerFlags: []string{"--audit-policy-file=" + policy, "--audit-log-path=" + log, "--audit-log-format=json",
			// The metrics API stand-in is reached through its endpoints.
			"--enable-aggregator-routing=true"},
		Users: []testenv.User{rbacScraper},
	})
	return &auditedEnv{env: env, log: log}
}

// forbiddenOK is a 403 a component is known to get and to tolerate.
type forbiddenOK struct{ resource, name string }

// auditEvent is the part of an audit.k8s.io/v1 Event the check reads.
type auditEvent struct {
	Verb string `json:"verb"`
	User struct {
		Username string `json:"username"`
	} `json:"user"`
	RequestURI string `json:"requestURI"`
	ObjectRef  *struct {
		Resource, Namespace, Name, APIGroup, Subresource string
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	// RequestObject is logged at level Request and above.
	RequestObject *struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	} `json:"requestObject"`
}

// readAudit calls fn with every event of the audit log at path.
func readAudit(t *testing.T, path string, fn func(ev auditEvent)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit log %s: %v", path, err)
		}
		fn(ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// expectNoForbidden fails the test for every request of user the API
// server refused with 403, except the tolerated ones.
func (a *auditedEnv) expectNoForbidden(t *testing.T, user string, ok ...forbiddenOK) {
	t.Helper()
	seen, requests := map[string]bool{}, 0
	readAudit(t, a.log, func(ev auditEvent) {
		if ev.User.Username != user {
			return
		}
		requests++
		if ev.ResponseStatus == nil || ev.ResponseStatus.Code != http.StatusForbidden {
			return
		}
		what := ev.Verb + " " + ev.RequestURI
		if r := ev.ObjectRef; r != nil {
			if slices.ContainsFunc(ok, func(o forbiddenOK) bool { return o.resource == r.Resource && o.name == r.Name }) {
				return
			}
			what = fmt.Sprintf("%s %s/%s %s (%s/%s)", ev.Verb, r.APIGroup, r.Resource, r.Subresource, r.Namespace, r.Name)
		}
		if !seen[what] {
			seen[what] = true
			t.Errorf("%s was refused: %s", user, what)
		}
	})
	if requests == 0 {
		t.Errorf("the audit log has no request of %s", user)
	}
}

// testCARBAC runs `kscale node-autoscaler` (kwok provider) under the AWS
// example's ServiceAccount and roles: a pending pod makes it scale up, and
// the node left empty is tainted and removed.
func testCARBAC(t *testing.T, env *testenv.Env) {
	c := vpaTestClient(t, env)
	applyManifests(t, c, upstreamRBACDir, "cluster-autoscaler-aws.yaml", "kwok-cloud.yaml")
	kubeconfig := serviceAccountKubeconfig(t, env, "cluster-autoscaler")
	cloudConfig := filepath.Join(t.TempDir(), "cloud.yaml")
	const groups = "nodeGroups:\n- {name: rbac, max: 2, instanceTypes: [m5.large], labels: {pool: rbac}, bootTime: 1s}\n"
	if err := os.WriteFile(cloudConfig, []byte(groups), 0o600); err != nil {
		t.Fatal(err)
	}
	runCommand(t, command("node-autoscaler"), []string{"--kubeconfig", kubeconfig, "--cloud-config", cloudConfig,
		"--address", naFreeAddress(t), "--scan-interval=1s",
		"--scale-down-unneeded-time=2s", "--scale-down-delay-after-add=0s", "--scale-down-delay-after-delete=1s",
		naRecheckSoon})

	naDeploy(t, env, "rbac-ca", 1, "rbac", "1")
	naExpectRunning(t, env, "rbac-ca", 1)
	naExpectGroupNodes(t, env, map[string]int{"rbac": 1})
	expectStatusEventsWithUID(t, env)

	naScale(t, env, "rbac-ca", 0)
	naPoll(t, "the empty node tainted and removed", func(ctx context.Context) (bool, error) {
		return naGroupNodes(t, env)["rbac"] == 0, nil
	})
}

// expectStatusEventsWithUID checks that the scale-up event on the status
// ConfigMap refers to the ConfigMap by UID, as upstream's do.
func expectStatusEventsWithUID(t *testing.T, env *testenv.Env) {
	t.Helper()
	naPoll(t, "a ScaledUpGroup event on the status ConfigMap with its UID", func(ctx context.Context) (bool, error) {
		cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		events, err := env.Client.CoreV1().Events("kube-system").List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=" + live.StatusConfigMapName + ",reason=" + live.ReasonScaledUpGroup})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.UID != cm.UID {
				return false, fmt.Errorf("event %s refers to UID %q, the ConfigMap has %q", e.Name, e.InvolvedObject.UID, cm.UID)
			}
		}
		return len(events.Items) > 0, nil
	})
}

// testVPARBAC runs the three VPA components under upstream's
// ServiceAccounts and roles. The admission controller takes over the
// webhook configuration an upstream install left; the recommender writes
// a recommendation from the metrics API; the updater evicts a drifted pod and the webhook
// sizes its replacement.
func testVPARBAC(t *testing.T, env *testenv.Env) {
	installVPACRDs(t, env)
	c := vpaTestClient(t, env)
	applyManifests(t, c, upstreamRBACDir, "vpa-rbac.yaml")
	leftByUpstream(t, c)
	serveMetricsAPI(t, env)

	certs := testpki.WriteServing(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	webhookPort := freePort(t)
	runCommand(t, command("vpa-admission"), []string{
		"--kubeconfig=" + serviceAccountKubeconfig(t, env, "vpa-admission-controller"), "--namespace=kube-system",
		fmt.Sprintf("--port=%d", webhookPort), "--tls-cert-file=" + certs.Cert, "--tls-private-key=" + certs.Key,
		"--client-ca-file=" + certs.CA, "--register-by-url", "--webhook-address=127.0.0.1", fmt.Sprintf("--webhook-port=%d", webhookPort),
		fmt.Sprintf("--address=127.0.0.1:%d", freePort(t)), "--status-lease-update-interval=1s",
	})
	naPoll(t, "the webhook configuration taken over", func(ctx context.Context) (bool, error) {
		wh := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: "vpa-webhook-config"}, wh); err != nil {
			return false, err
		}
		u := wh.Webhooks[0].ClientConfig.URL
		return len(wh.Webhooks) == 1 && u != nil && strings.Contains(*u, fmt.Sprintf("127.0.0.1:%d", webhookPort)), nil
	})
	waitLease(t, env, "kube-system", "vpa-admission-controller")
	runCommand(t, command("vpa-recommender"), []string{
		"--kubeconfig=" + serviceAccountKubeconfig(t, env, "vpa-recommender"), "--recommender-interval=1s",
		"--recommender-name=rbac", "--leader-elect", "--leader-elect-resource-namespace=kube-system",
		fmt.Sprintf("--address=127.0.0.1:%d", freePort(t)),
	})
	runCommand(t, command("vpa-updater"), []string{
		"--kubeconfig=" + serviceAccountKubeconfig(t, env, "vpa-updater"), "--namespace=kube-system", "--leader-elect",
		"--updater-interval=1s", fmt.Sprintf("--address=127.0.0.1:%d", freePort(t)),
	})
	waitLease(t, env, "kube-system", "vpa-recommender-lease")
	waitLease(t, env, "kube-system", "vpa-updater")

	readyNode(t, env, c)
	if err := c.Create(t.Context(), fixture.Deployment("web", 2)); err != nil {
		t.Fatal(err)
	}
	for _, p := range waitPodsE2E(t, c, 2, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }) {
		markPodRunning(t, c, p)
	}
	expectRecommenderStatus(t, c)
	createDriftedVPA(t, c)
	waitPodsE2E(t, c, 1, func(p *corev1.Pod) bool {
		q := p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
		return p.DeletionTimestamp == nil && q.Cmp(resource.MustParse("500m")) == 0
	})
}

// leftByUpstream creates the webhook configuration an upstream admission
// controller leaves behind (pointing elsewhere, matching no namespace).
func leftByUpstream(t *testing.T, c client.Client) {
	t.Helper()
	ignore, none := admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassNone
	wh := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "vpa-webhook-config"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "vpa.k8s.io", AdmissionReviewVersions: []string{"v1"}, SideEffects: &none, FailurePolicy: &ignore,
			ClientConfig:      admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/")},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "none"}},
		}},
	}
	if err := c.Create(t.Context(), wh); err != nil {
		t.Fatal(err)
	}
}

// expectRecommenderStatus creates a VPA served by the recommender named
// rbac and waits for the recommender to write a recommendation from the
// usage the metrics API stand-in reports.
func expectRecommenderStatus(t *testing.T, c client.Client) {
	t.Helper()
	vpa := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web-recommended", Namespace: "default"},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:    &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			UpdatePolicy: &vpav1.PodUpdatePolicy{UpdateMode: ptr.To(vpav1.UpdateModeOff)},
			Recommenders: []*vpav1.VerticalPodAutoscalerRecommenderSelector{{Name: "rbac"}},
		},
	}
	if err := c.Create(t.Context(), vpa); err != nil {
		t.Fatal(err)
	}
	naPoll(t, "the recommender's status on the VPA", func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(vpa), vpa); err != nil {
			return false, err
		}
		r := vpa.Status.Recommendation
		return r != nil && len(r.ContainerRecommendations) == 1 && r.ContainerRecommendations[0].ContainerName == "app", nil
	})
}

// testCustomMetricsRBAC runs `kscale custom-metrics` with leader election
// under Gardener's ServiceAccount and roles: it takes the Lease, points the
// Service's Endpoints (left by an upstream leader) at itself, scrapes the (real) API server standing in
// for a shoot's kube-apiserver and serves the value.
func testCustomMetricsRBAC(t *testing.T, env *testenv.Env) {
	ctx := t.Context()
	c := vpaTestClient(t, env)
	applyManifests(t, c, upstreamRBACDir, "gardener-custom-metrics.yaml")
	grantScraper(t, env)
	const shoot = "shoot--rbac--a"
	testkube.Namespace(t, ctx, env.Client, shoot)
	testkube.Secret(t, ctx, env.Client, shoot, "shoot-access-gardener-custom-metrics", nil, map[string][]byte{"token": []byte(rbacScraper.Token)})
	testkube.Secret(t, ctx, env.Client, shoot, "ca", map[string]string{"name": "ca"}, map[string][]byte{"ca.crt": env.CAData})
	apiServerPod(t, env, shoot)
	u, err := url.Parse(env.APIServerURL)
	if err != nil {
		t.Fatal(err)
	}

	// The Endpoints the last upstream leader left: kscale must take them over.
	//nolint:staticcheck // core/v1 Endpoints: upstream's object
	left := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "gardener-custom-metrics", Namespace: "kube-system"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.9"}}, Ports: []corev1.EndpointPort{{Port: 6443}}}}}
	if _, err := env.Client.CoreV1().Endpoints("kube-system").Create(ctx, left, metav1.CreateOptions{}); err != nil { //nolint:staticcheck // see above
		t.Fatal(err)
	}
	// The API server refuses loopback addresses in Endpoints: the replica
	// serves on the host side of a veth pair instead.
	ip := testenv.NewNetNS(t, "10.217.0.0/30").HostIP
	kubeconfig := serviceAccountKubeconfig(t, env, "gardener-custom-metrics")
	ports := cmFreePorts(t, 3)
	runCommand(t, command("custom-metrics"), []string{
		"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig, "--authorization-kubeconfig=" + kubeconfig,
		"--leader-election=true", "--namespace=kube-system", "--access-ip=" + ip, fmt.Sprintf("--access-port=%d", ports[0]),
		"--bind-address=" + ip, fmt.Sprintf("--secure-port=%d", ports[0]),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports[1]), fmt.Sprintf("--health-bind-address=127.0.0.1:%d", ports[2]),
		"--scrape-port=" + u.Port(), "--scrape-period=3s", "--min-sample-gap=1s",
	})
	waitLease(t, env, "kube-system", "gardener-custom-metrics-leader-election")
	naPoll(t, "the Endpoints gardener-custom-metrics pointing at the leader", func(ctx context.Context) (bool, error) {
		ep, err := env.Client.CoreV1().Endpoints("kube-system").Get(ctx, "gardener-custom-metrics", metav1.GetOptions{}) //nolint:staticcheck // upstream's object
		if err != nil {
			return false, nil
		}
		return len(ep.Subsets) == 1 && len(ep.Subsets[0].Addresses) == 1 && ep.Subsets[0].Addresses[0].IP == ip, nil
	})
	insecure := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		// The command serves an in-memory self-signed certificate when none is given.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12},
	}}
	api := fmt.Sprintf("https://%s:%d/apis/custom.metrics.k8s.io/v1beta2/namespaces/%s/pods/*/shoot:apiserver_request_total:sum", ip, ports[0], shoot)
	naPoll(t, "the scraped value served", func(ctx context.Context) (bool, error) {
		code, body := cmGet(ctx, insecure, api, env.Config.BearerToken)
		return code == http.StatusOK && strings.Contains(body, `"name":"kube-apiserver-0"`), nil
	})
}

// grantScraper lets rbacScraper GET /metrics.
func grantScraper(t *testing.T, env *testenv.Env) {
	t.Helper()
	ctx := t.Context()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "rbac-test-metrics-scraper"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}
	if _, err := env.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: rbacScraper.Name}}}
	if _, err := env.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// apiServerPod creates a pod standing in for the shoot's kube-apiserver:
// labelled as one, running, with the test API server's address (the
// scheduler may bind it meanwhile, so the status write is retried).
func apiServerPod(t *testing.T, env *testenv.Env, ns string) {
	t.Helper()
	ctx := t.Context()
	created := testkube.Pod(t, ctx, env.Client, ns, "kube-apiserver-0", "", testkube.APIServerLabels())
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := env.Client.CoreV1().Pods(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}}, StartTime: &now,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}}
		_, err = env.Client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
