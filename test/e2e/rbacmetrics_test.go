package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/testenv"
)

// podUsage is a metrics.k8s.io/v1beta1 stand-in for metrics-server: every
// running pod of the default namespace uses 400m CPU and 100Mi per
// container, now. It reads the pods as the admin.
type podUsage struct{ env *testenv.Env }

// ServeHTTP answers discovery and PodMetrics lists.
func (u podUsage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const prefix = "/apis/metrics.k8s.io/v1beta1"
	path := strings.TrimSuffix(r.URL.Path, "/")
	w.Header().Set("Content-Type", "application/json")
	var out any
	switch path {
	case prefix:
		out = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "metrics.k8s.io/v1beta1",
			APIResources: []metav1.APIResource{{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}}}}
	case prefix + "/pods", prefix + "/namespaces/default/pods":
		list, err := u.list(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out = list
	default:
		http.NotFound(w, r)
		return
	}
	_ = json.NewEncoder(w).Encode(out)
}

func (u podUsage) list(ctx context.Context) (*metricsv1beta1.PodMetricsList, error) {
	pods, err := u.env.Client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := &metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: "metrics.k8s.io/v1beta1"}}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning {
			continue
		}
		pm := metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name},
			Timestamp: metav1.Now(), Window: metav1.Duration{Duration: time.Minute}}
		for _, c := range p.Spec.Containers {
			pm.Containers = append(pm.Containers, metricsv1beta1.ContainerMetrics{Name: c.Name, Usage: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("400m"), corev1.ResourceMemory: resource.MustParse("100Mi")}})
		}
		out.Items = append(out.Items, pm)
	}
	return out, nil
}

// serveMetricsAPI serves podUsage on the host side of a veth pair (the
// API server refuses loopback endpoints) and registers it as
// v1beta1.metrics.k8s.io through the aggregation layer (the API server
// runs with --enable-aggregator-routing), waiting until it is Available.
func serveMetricsAPI(t *testing.T, env *testenv.Env) {
	t.Helper()
	ctx := t.Context()
	ip := testenv.NewNetNS(t, "10.217.0.4/30").HostIP
	certs := testpki.WriteServing(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	cert, err := tls.LoadX509KeyPair(certs.Cert, certs.Key)
	if err != nil {
		t.Fatal(err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: podUsage{env: env}, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = hs.Close() })
	port := int32(ln.Addr().(*net.TCPAddr).Port)

	const ns, name = "kube-system", "rbac-test-metrics"
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(port)}}}}
	if _, err := env.Client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{discoveryv1.LabelServiceName: name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(port), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if _, err := env.Client.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := vpaTestClient(t, env)
	as := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1beta1.metrics.k8s.io"},
		"spec": map[string]any{
			"service": map[string]any{"namespace": ns, "name": name, "port": int64(443)},
			"group":   "metrics.k8s.io", "version": "v1beta1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
		},
	}}
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}
	naPoll(t, "the metrics API Available", func(ctx context.Context) (bool, error) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(as.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKey{Name: as.GetName()}, got); err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, x := range conds {
			if m, _ := x.(map[string]any); m["type"] == "Available" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}
