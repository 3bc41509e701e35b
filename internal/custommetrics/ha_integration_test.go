package custommetrics_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	cmv1beta2 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"

	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/testenv"
)

// replica is a provider process started from this test binary.
type replica struct {
	setup providerSetup
	*testenv.Child
}

func startReplica(t *testing.T, s providerSetup) *replica {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	child := testenv.StartChild(t, "replica-"+s.Identity, os.Args[0], []string{"-test.run=^$"}, []string{childEnv + "=" + string(raw)})
	return &replica{setup: s, Child: child}
}

// sliceWatch records every version of the Service's EndpointSlices (which
// kube-controller-manager mirrors from the Endpoints the leader writes) and
// counts versions in which more than one address was listed in total.
type sliceWatch struct {
	mu         sync.Mutex
	addrs      map[string][]string // slice name -> addresses
	violations []string
}

func watchSlices(t *testing.T, service string) *sliceWatch {
	t.Helper()
	sw := &sliceWatch{addrs: map[string][]string{}}
	ctx, cancel := context.WithCancel(t.Context())
	opts := metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service}
	w, err := env.Client.DiscoveryV1().EndpointSlices(systemNS).Watch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for ev := range w.ResultChan() {
			s, ok := ev.Object.(*discoveryv1.EndpointSlice)
			if !ok {
				continue
			}
			sw.observe(ev.Type, s)
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-stopped })
	return sw
}

func (sw *sliceWatch) observe(typ watch.EventType, s *discoveryv1.EndpointSlice) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	var addrs []string
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	if typ == watch.Deleted {
		delete(sw.addrs, s.Name)
	} else {
		sw.addrs[s.Name] = addrs
	}
	var total []string
	for _, a := range sw.addrs {
		total = append(total, a...)
	}
	if len(total) > 1 {
		sw.violations = append(sw.violations, s.ResourceVersion)
	}
}

// current returns the single listed address, or "" when none.
func (sw *sliceWatch) current() string {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	for _, a := range sw.addrs {
		if len(a) == 1 {
			return a[0]
		}
	}
	return ""
}

// TestHA is scenario 11 with two replica processes against the real API
// server and the real aggregation layer.
func TestHA(t *testing.T) {
	const ns, service = "shoot--ha--a", "cm-ha"
	netA, netB := testenv.NewNetNS(t, "10.213.0.4/30"), testenv.NewNetNS(t, "10.213.0.8/30")
	certFile, keyFile, caBundle := servingCert(t, service)
	registerAPIService(t, service, caBundle)
	shootNamespace(t, ns, env.CAData)
	ctx := t.Context()
	testkube.Pod(t, ctx, env.Client, ns, "kapi-1", "127.0.0.1", testkube.APIServerLabels())
	slices := watchSlices(t, service)

	replicas := map[string]*replica{}
	for id, n := range map[string]*testenv.NetNS{"replica-a": netA, "replica-b": netB} {
		replicas[n.IP] = startReplica(t, providerSetup{
			Netns: n.Name, IP: n.IP, Kubeconfig: env.KubeconfigPath, CertFile: certFile, KeyFile: keyFile,
			ScrapePort: apiServerPort(t), Period: time.Minute, MinGap: 10 * time.Second,
			LeaderElection: true, Service: service, Lease: "cm-ha-leader-election", Identity: id,
			Costs: costsYAML,
		})
	}
	var leader string
	testkube.Poll(t, ctx, time.Minute, "a leader publishing its address", func(context.Context) (bool, error) {
		leader = slices.current()
		return leader != "", nil
	})
	follower := netA.IP
	if leader == netA.IP {
		follower = netB.IP
	}
	t.Logf("leader %s (%s), follower %s", leader, replicas[leader].setup.Identity, follower)
	expectValues(t, ns, 2*time.Minute, "values from the first leader")
	if conn, err := net.DialTimeout("tcp", net.JoinHostPort(follower, "6443"), time.Second); err == nil {
		_ = conn.Close()
		t.Fatalf("follower %s serves HTTPS; only the leader should", follower)
	}

	// Kill the leader without a graceful shutdown.
	killed := time.Now()
	replicas[leader].Kill()
	testkube.Poll(t, ctx, time.Minute, "the follower taking over", func(context.Context) (bool, error) {
		return slices.current() == follower, nil
	})
	takeover := time.Now()
	expectValues(t, ns, time.Minute, "values from the new leader")
	valuesBack := time.Now()
	t.Logf("takeover %s after the kill; values %s after the takeover", takeover.Sub(killed).Round(time.Millisecond), valuesBack.Sub(takeover).Round(time.Millisecond))
	if d := valuesBack.Sub(takeover); d > 20*time.Second {
		t.Errorf("values returned %s after the takeover, want within 20s", d)
	}

	// A graceful stop releases the Lease and empties the Endpoints at once.
	if err := replicas[follower].Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-replicas[follower].Done():
	case <-time.After(30 * time.Second):
		t.Fatal("replica did not stop within 30s of SIGTERM")
	}
	if code := replicas[follower].ExitCode(); code != 0 {
		t.Errorf("gracefully stopped replica exited with %d", code)
	}
	lease, err := env.Client.CoordinationV1().Leases(systemNS).Get(ctx, "cm-ha-leader-election", metav1.GetOptions{})
	if err != nil || (lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "") {
		t.Errorf("lease after graceful stop: %+v, %v; want released", lease.Spec, err)
	}
	ep, err := env.Client.CoreV1().Endpoints(systemNS).Get(ctx, service, metav1.GetOptions{}) //nolint:staticcheck // what the leader writes, as upstream
	if err != nil || len(ep.Subsets) != 0 {
		t.Errorf("Endpoints after graceful stop: %+v, %v; want them emptied", ep, err)
	}
	slices.mu.Lock()
	defer slices.mu.Unlock()
	if len(slices.violations) > 0 {
		t.Errorf("EndpointSlice versions listing two addresses: %v", slices.violations)
	}
}

// expectValues waits for the plain and the cost-weighted rate of the pod.
func expectValues(t *testing.T, ns string, timeout time.Duration, what string) {
	t.Helper()
	base := "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/pods/*/"
	testkube.Poll(t, t.Context(), timeout, what, func(ctx context.Context) (bool, error) {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		for _, metric := range []string{metricSum, metricWeighted} {
			var list cmv1beta2.MetricValueList
			if err := getJSON(rctx, env.Client, base+metric, "app=kubernetes,role=apiserver", &list); err != nil || len(list.Items) != 1 {
				return false, err
			}
		}
		return true, nil
	})
}
