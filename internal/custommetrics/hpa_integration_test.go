package custommetrics_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/fixture"
)

// standIn plays kubelet and kube-apiserver for the pods of a Deployment:
// each new pod gets a loopback IP, a Running/Ready status and a TLS server
// exporting apiserver_request_total that grows at total/livePods per second.
type standIn struct {
	t     *testing.T
	ns    string
	port  int
	cert  tls.Certificate
	token string
	// labels is the counter's one label set; ipPrefix the pods' /24.
	labels, ipPrefix string

	mu      sync.Mutex
	total   float64 // requests per second over all pods
	nextIP  int
	servers map[types.UID]*counterServer
}

type counterServer struct {
	srv     *http.Server
	counter float64
	last    time.Time
}

func (s *standIn) setTotal(v float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for _, c := range s.servers { // settle counters at the old rate first
		c.counter += s.perPodLocked() * now.Sub(c.last).Seconds()
		c.last = now
	}
	s.total = v
}

func (s *standIn) perPodLocked() float64 {
	if len(s.servers) == 0 {
		return 0
	}
	return s.total / float64(len(s.servers))
}

func (s *standIn) serve(uid types.UID) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+s.token {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		c, ok := s.servers[uid]
		var v float64
		if ok {
			now := time.Now()
			c.counter += s.perPodLocked() * now.Sub(c.last).Seconds()
			c.last = now
			v = c.counter
		}
		s.mu.Unlock()
		_, _ = fmt.Fprintf(w, "# TYPE apiserver_request_total counter\napiserver_request_total{%s} %d\nprocess_start_time_seconds 1\n", s.labels, int64(v))
	})
}

// run reconciles pods with servers until ctx ends.
func (s *standIn) run(ctx context.Context) {
	for ctx.Err() == nil {
		s.reconcile(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.servers {
		_ = c.srv.Close()
	}
}

func (s *standIn) reconcile(ctx context.Context) {
	pods, err := env.Client.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	live := map[types.UID]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		live[p.UID] = true
		if p.Status.PodIP == "" {
			s.start(ctx, p)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for uid, c := range s.servers {
		if !live[uid] {
			_ = c.srv.Close()
			delete(s.servers, uid)
		}
	}
}

func (s *standIn) start(ctx context.Context, p *corev1.Pod) {
	s.mu.Lock()
	ip := s.ipPrefix + strconv.Itoa(100+s.nextIP)
	s.nextIP++
	s.mu.Unlock()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(s.port)))
	if err != nil {
		s.t.Errorf("listening for pod %s: %v", p.Name, err)
		return
	}
	srv := &http.Server{Handler: s.serve(p.UID), TLSConfig: &tls.Config{Certificates: []tls.Certificate{s.cert}, MinVersion: tls.VersionTLS13}, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	s.setTotal(s.total) // settle counters before the pod count changes
	s.mu.Lock()
	s.servers[p.UID] = &counterServer{srv: srv, last: time.Now()}
	s.mu.Unlock()
	testkube.SetPodIP(s.t, ctx, env.Client, p, ip)
}

// testHPA is scenario 13 through the real kube-controller-manager: an HPA
// on a Deployment standing in for kube-apiserver, Pods metric AverageValue
// 300, scale-down stabilization shortened to 30 s for the test.
func testHPA(t *testing.T) {
	const ns, window = "shoot--hpa--a", 30 * time.Second
	s := startHPA(t, hpaSetup{ns: ns, metric: metricSum, labels: `code="200",verb="GET"`, ipPrefix: "127.0.0.", total: 800, window: window})

	// 800 req/s on one pod: ceil(800/300) = 3 replicas; then 267 per pod keeps 3.
	start := time.Now()
	expectReplicas(t, ns, 3, 2*time.Minute)
	t.Logf("scaled out to 3 replicas %s after the HPA was created", time.Since(start).Round(time.Second))
	expectHPAAverage(t, ns, 240, 300)
	// Drop to 50 req/s: no scale-in before the stabilization window, then 1.
	s.setTotal(50)
	dropped := time.Now()
	expectReplicas(t, ns, 1, window+2*time.Minute)
	t.Logf("scaled in to 1 replica %s after the load dropped (window %s)", time.Since(dropped).Round(time.Second), window)
	if d := time.Since(dropped); d < window {
		t.Fatalf("scaled in %s after the load dropped, before the %s stabilization window", d, window)
	}
}

// testWeightedHPA points the HPA at the cost-weighted rate (GEP-23 stage
// 2): 200 cluster-scoped LISTs per second cost 4 each in the provider's
// cost file, so the weighted rate is 800 and the HPA scales 1 -> 3, where
// the plain rate (200 < 300) would keep one replica.
func testWeightedHPA(t *testing.T) {
	const ns = "shoot--hpa--w"
	startHPA(t, hpaSetup{ns: ns, metric: metricWeighted, labels: `code="200",verb="LIST",scope="cluster",resource="pods"`,
		ipPrefix: "127.0.1.", total: 200, window: 30 * time.Second})
	start := time.Now()
	expectReplicas(t, ns, 3, 2*time.Minute)
	t.Logf("scaled out to 3 replicas on the weighted rate %s after the HPA was created", time.Since(start).Round(time.Second))
	expectHPAAverage(t, ns, 240, 300) // 800 weighted over 3 pods
}

// hpaSetup is one HPA scenario: a stand-in kube-apiserver Deployment in ns
// and an HPA on metric, AverageValue 300, min 1, max 4.
type hpaSetup struct {
	ns, metric, labels, ipPrefix string
	total                        float64
	window                       time.Duration
}

// startHPA creates the shoot namespace, the stand-in servers, the
// Deployment and the HPA; the servers stop in t.Cleanup.
func startHPA(t *testing.T, h hpaSetup) *standIn {
	t.Helper()
	ns, window := h.ns, h.window
	ctx := t.Context()
	ca := testpki.NewCA(t, "shoot-ca")
	shootNamespace(t, ns, ca.PEM)
	s := &standIn{t: t, ns: ns, port: apiServerPort(t), cert: ca.Serving(t, []string{"kube-apiserver"}, nil),
		token: scraper.Token, labels: h.labels, ipPrefix: h.ipPrefix, servers: map[types.UID]*counterServer{}}
	s.setTotal(h.total)
	sctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { s.run(sctx); close(stopped) }()
	t.Cleanup(func() { cancel(); <-stopped })

	labels := testkube.APIServerLabels()
	tmpl := fixture.Pod("kube-apiserver")
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-apiserver", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: tmpl.Spec},
		},
	}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, deploy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-apiserver", Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "kube-apiserver"},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: 4,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: h.metric},
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("300"))},
			}}},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To(int32(window.Seconds()))}},
		},
	}
	if _, err := env.Client.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, hpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// expectHPAAverage waits for the HPA's current average to lie in (lo, hi).
func expectHPAAverage(t *testing.T, ns string, lo, hi float64) {
	t.Helper()
	testkube.Poll(t, t.Context(), time.Minute, fmt.Sprintf("HPA reading between %g and %g per pod", lo, hi), func(ctx context.Context) (bool, error) {
		avg, err := hpaAverage(ctx, ns)
		return err == nil && avg > lo && avg < hi, err
	})
}

func expectReplicas(t *testing.T, ns string, want int32, timeout time.Duration) {
	t.Helper()
	testkube.Poll(t, t.Context(), timeout, fmt.Sprintf("%d replicas", want), func(ctx context.Context) (bool, error) {
		d, err := env.Client.AppsV1().Deployments(ns).Get(ctx, "kube-apiserver", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return *d.Spec.Replicas == want, fmt.Errorf("replicas %d", *d.Spec.Replicas)
	})
}

func hpaAverage(ctx context.Context, ns string) (float64, error) {
	h, err := env.Client.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "kube-apiserver", metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	for _, m := range h.Status.CurrentMetrics {
		if m.Pods != nil && m.Pods.Current.AverageValue != nil {
			return m.Pods.Current.AverageValue.AsApproximateFloat64(), nil
		}
	}
	return 0, errors.New("no current pods metric in HPA status")
}
