package custommetrics_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/custommetrics"
	"github.com/kscale/kscale/internal/custommetrics/cost"
	"github.com/kscale/kscale/internal/custommetrics/ha"
	"github.com/kscale/kscale/internal/custommetrics/provider"
	"github.com/kscale/kscale/internal/custommetrics/rate"
	"github.com/kscale/kscale/internal/custommetrics/scrape"
	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/selfcert"
	"github.com/kscale/kscale/internal/testenv"
)

const (
	childEnv    = "KSCALE_CUSTOM_METRICS_CHILD"
	tokenSecret = "shoot-access-gardener-custom-metrics"
	metricSum   = "shoot:apiserver_request_total:sum"
	// metricWeighted is the cost-weighted rate; costsYAML its cost table.
	metricWeighted = "shoot:apiserver_request_total:weighted_rate"
	costsYAML      = "defaultCost: 1\nrules:\n  - verb: LIST\n    scope: cluster\n    cost: 4\n"
	systemNS       = "kscale-system"
	servingPort    = 6443
)

var (
	// env is the control plane shared by every test of this package.
	env *testenv.Env
	// scraper may GET /metrics; it is the identity in the shoot token secrets.
	scraper = testenv.User{Name: "shoot-scraper", Token: "scraper-token-4f1c2a"}
	// reader may read custom metrics; outsider may not.
	reader   = testenv.User{Name: "metrics-reader", Token: "reader-token-9b3e1d"}
	outsider = testenv.User{Name: "outsider", Token: "outsider-token-7a2c5f"}
)

func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(runChild(cfg))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	ctx := context.Background()
	var err error
	env, err = testenv.New(ctx, testenv.Options{
		ControllerManager: true,
		APIServerFlags:    []string{"--enable-aggregator-routing=true"},
		ControllerManagerFlags: []string{
			"--horizontal-pod-autoscaler-sync-period=3s",
			"--horizontal-pod-autoscaler-initial-readiness-delay=1s",
		},
		Users: []testenv.User{scraper, reader, outsider},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer env.Stop()
	if err := grantBaseRBAC(ctx, env.Client); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// grantBaseRBAC lets the scraper read /metrics and the reader read custom metrics.
func grantBaseRBAC(ctx context.Context, c kubernetes.Interface) error {
	roles := []*rbacv1.ClusterRole{
		{ObjectMeta: metav1.ObjectMeta{Name: "test-metrics-scraper"}, Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "test-custom-metrics-reader"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"custom.metrics.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}}}},
	}
	users := []string{scraper.Name, reader.Name}
	for i, r := range roles {
		if _, err := c.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating ClusterRole %s: %w", r.Name, err)
		}
		b := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: r.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: users[i]}},
		}
		if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating ClusterRoleBinding %s: %w", b.Name, err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNS}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", systemNS, err)
	}
	return nil
}

// apiServerPort is the port kube-apiserver listens on; fake kube-apiservers
// listen on the same port at other loopback addresses, since the scrape port
// is one setting for all targets.
func apiServerPort(t testing.TB) int {
	t.Helper()
	_, port, err := net.SplitHostPort(env.APIServerURL[len("https://"):])
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return p
}

// shootNamespace creates a shoot namespace with the scraper token and the
// given CA in a secret labelled name=ca.
func shootNamespace(t *testing.T, name string, caPEM []byte) {
	t.Helper()
	ctx := t.Context()
	testkube.Namespace(t, ctx, env.Client, name)
	testkube.Secret(t, ctx, env.Client, name, tokenSecret, nil, map[string][]byte{"token": []byte(scraper.Token)})
	testkube.Secret(t, ctx, env.Client, name, "ca", map[string]string{"name": "ca"}, map[string][]byte{"ca.crt": caPEM})
}

// providerSetup is what one provider instance (in-process or child) needs.
type providerSetup struct {
	Netns, IP       string
	Kubeconfig      string
	CertFile        string
	KeyFile         string
	ScrapePort      int
	Period, MinGap  time.Duration
	LeaderElection  bool
	Service, Lease  string
	Identity        string
	NamespaceRegexp string
	// SelfSignedSecret, when set, replaces CertFile and KeyFile with
	// certificates that manage themselves in this Secret of systemNS,
	// synced every SelfSignedSync.
	SelfSignedSecret string
	SelfSignedSync   time.Duration
	// Costs, when set, is a cost table (YAML) turning on the weighted rate.
	Costs string
}

// servingCert writes a serving certificate for the Service's DNS name and
// returns the setup fields and the CA bundle for the APIService.
func servingCert(t *testing.T, service string) (certFile, keyFile string, caPEM []byte) {
	t.Helper()
	ca := testpki.NewCA(t, "custom-metrics-serving-ca")
	certPEM, keyPEM := ca.ServingPEM(t, []string{service + "." + systemNS + ".svc"}, nil)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, ca.PEM
}

// runProvider runs one provider instance until ctx ends.
func runProvider(ctx context.Context, s providerSetup) error {
	fs := pflag.NewFlagSet("custom-metrics", pflag.ContinueOnError)
	srv := provider.NewServer(fs, "kscale-custom-metrics")
	args := []string{
		"--authentication-kubeconfig=" + s.Kubeconfig, "--authorization-kubeconfig=" + s.Kubeconfig,
		"--lister-kubeconfig=" + s.Kubeconfig,
	}
	if s.SelfSignedSecret == "" {
		args = append(args, "--tls-cert-file="+s.CertFile, "--tls-private-key-file="+s.KeyFile)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv.SetListen(func() (net.Listener, error) {
		return (&testenv.NetNS{Name: s.Netns, IP: s.IP}).Listen(servingPort)
	})
	restCfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return err
	}
	cfg := custommetrics.Config{
		Client: client, Server: srv, Registerer: prometheus.NewRegistry(),
		Scrape:         scrape.ClientConfig{Port: s.ScrapePort},
		Schedule:       scrape.SchedulerConfig{Period: s.Period},
		Rate:           rate.Config{MinGap: s.MinGap},
		LeaderElection: s.LeaderElection,
		HA: ha.Config{
			Namespace: systemNS, ServiceName: s.Service, LeaseName: s.Lease, Identity: s.Identity,
			Address: s.IP, Port: servingPort,
		},
	}
	if s.Costs != "" {
		if cfg.Costs, err = cost.Parse([]byte(s.Costs)); err != nil {
			return err
		}
	}
	if s.SelfSignedSecret != "" {
		dns := s.Service + "." + systemNS + ".svc"
		cfg.SelfSigned = &selfcert.Config{Namespace: systemNS, SecretName: s.SelfSignedSecret, CommonName: dns, DNSNames: []string{dns}, SyncPeriod: s.SelfSignedSync}
	}
	return custommetrics.Run(ctx, cfg)
}

// runChild is the body of a provider replica process started by the HA test.
func runChild(raw string) int {
	var s providerSetup
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background().WithValues("replica", s.Identity))
	if err := runProvider(ctx, s); err != nil {
		fmt.Fprintln(os.Stderr, "replica failed:", err)
		return 1
	}
	return 0
}

var apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// registerAPIService points the custom metrics APIService at a selector-less
// Service (port 443 to the replica's 6443), creating both; it removes them
// in t.Cleanup.
func registerAPIService(t *testing.T, service string, caBundle []byte) {
	t.Helper()
	ctx := t.Context()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: service, Namespace: systemNS},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443, Protocol: corev1.ProtocolTCP}}},
	}
	if _, err := env.Client.CoreV1().Services(systemNS).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(env.Config).Resource(apiServiceGVR)
	for _, v := range []struct {
		version  string
		priority int64
	}{{"v1beta2", 200}, {"v1beta1", 100}} {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": v.version + ".custom.metrics.k8s.io"},
			"spec": map[string]any{
				"group": "custom.metrics.k8s.io", "version": v.version,
				"service":  map[string]any{"namespace": systemNS, "name": service, "port": int64(443)},
				"caBundle": base64.StdEncoding.EncodeToString(caBundle), "groupPriorityMinimum": int64(100), "versionPriority": v.priority,
			},
		}}
		if _, err := dyn.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		cctx := context.WithoutCancel(ctx)
		_ = dyn.Delete(cctx, "v1beta2.custom.metrics.k8s.io", metav1.DeleteOptions{})
		_ = dyn.Delete(cctx, "v1beta1.custom.metrics.k8s.io", metav1.DeleteOptions{})
		_ = env.Client.CoreV1().Services(systemNS).Delete(cctx, service, metav1.DeleteOptions{})
	})
}
