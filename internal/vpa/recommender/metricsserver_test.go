package recommender_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/testenv"
)

// usageServer is a metrics.k8s.io/v1beta1 test server: it serves the pod
// usage the test sets, stamped with the time the test sets, or fails on
// request.
type usageServer struct {
	mu    sync.Mutex
	now   time.Time
	pods  map[[2]string]map[string][2]string // (ns, pod) -> container -> (cpu, memory)
	fail  bool
	calls int
}

// set sets the usage of one container.
func (s *usageServer) set(ns, pod, container, cpu, memory string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pods == nil {
		s.pods = map[[2]string]map[string][2]string{}
	}
	k := [2]string{ns, pod}
	if s.pods[k] == nil {
		s.pods[k] = map[string][2]string{}
	}
	s.pods[k][container] = [2]string{cpu, memory}
}

// setTime sets the timestamp of the served metrics.
func (s *usageServer) setTime(t time.Time) { s.mu.Lock(); s.now = t; s.mu.Unlock() }

// setFailing makes every PodMetrics request fail with 500.
func (s *usageServer) setFailing(f bool) { s.mu.Lock(); s.fail = f; s.mu.Unlock() }

// list returns the PodMetricsList of a namespace ("" for all).
func (s *usageServer) list(ns string) *metricsv1beta1.PodMetricsList {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: "metrics.k8s.io/v1beta1"}}
	for k, cs := range s.pods {
		if ns != "" && k[0] != ns {
			continue
		}
		pm := metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Namespace: k[0], Name: k[1]},
			Timestamp:  metav1.NewTime(s.now), Window: metav1.Duration{Duration: time.Minute},
		}
		for name, u := range cs {
			pm.Containers = append(pm.Containers, metricsv1beta1.ContainerMetrics{Name: name, Usage: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(u[0]), corev1.ResourceMemory: resource.MustParse(u[1]),
			}})
		}
		out.Items = append(out.Items, pm)
	}
	return out
}

// ServeHTTP answers discovery and PodMetrics list requests.
func (s *usageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const prefix = "/apis/metrics.k8s.io/v1beta1"
	path := strings.TrimSuffix(r.URL.Path, "/")
	write := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case path == prefix:
		write(&metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "metrics.k8s.io/v1beta1",
			APIResources: []metav1.APIResource{{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}}}})
	case path == prefix+"/pods" || (strings.HasPrefix(path, prefix+"/namespaces/") && strings.HasSuffix(path, "/pods")):
		s.mu.Lock()
		fail := s.fail
		s.calls++
		s.mu.Unlock()
		if fail {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			write(&metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Code: 500, Reason: metav1.StatusReasonInternalError, Message: "metrics backend unavailable"})
			return
		}
		ns := ""
		if strings.HasPrefix(path, prefix+"/namespaces/") {
			ns = strings.TrimSuffix(strings.TrimPrefix(path, prefix+"/namespaces/"), "/pods")
		}
		write(s.list(ns))
	default:
		http.NotFound(w, r)
	}
}

// serveMetricsAPI runs the usage server inside ns and registers it as
// v1beta1.metrics.k8s.io through the aggregation layer, waiting until the
// APIService is Available.
func serveMetricsAPI(t *testing.T, env *testenv.Env, ns *testenv.NetNS) *usageServer {
	t.Helper()
	const svcNS, svcName = "kube-system", "kscale-vpa-test-metrics"
	caPEM, cert := servingCert(t, ns.IP, svcName+"."+svcNS+".svc")
	srv := &usageServer{}
	ln, err := ns.Listen(443)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = hs.Close() })

	ctx := t.Context()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: svcName, Namespace: svcNS},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(443)}}},
	}
	if _, err := env.Client.CoreV1().Services(svcNS).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	name, port, proto := "https", int32(443), corev1.ProtocolTCP
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: svcName, Namespace: svcNS, Labels: map[string]string{discoveryv1.LabelServiceName: svcName}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ns.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}
	if _, err := env.Client.DiscoveryV1().EndpointSlices(svcNS).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	as := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1beta1.metrics.k8s.io"},
		"spec": map[string]any{
			"service": map[string]any{"namespace": svcNS, "name": svcName, "port": int64(port)},
			"group":   "metrics.k8s.io", "version": "v1beta1", "caBundle": base64.StdEncoding.EncodeToString(caPEM),
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
		},
	}}
	if err := c.Create(ctx, as); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(as.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKey{Name: as.GetName()}, got); err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, x := range conds {
			m, _ := x.(map[string]any)
			if m["type"] == "Available" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("APIService never became Available: %v\n%s", err, env.Logs("kube-apiserver"))
	}
	return srv
}

// servingCert returns a CA PEM and a certificate it signed for ip and dns.
func servingCert(t *testing.T, ip, dns string) ([]byte, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kscale-vpa-test-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dns},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), DNSNames: []string{dns}, IPAddresses: []net.IP{net.ParseIP(ip)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), cert
}
