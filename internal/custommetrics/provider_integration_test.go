package custommetrics_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	cmv1beta1 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta1"
	cmv1beta2 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"

	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/testenv"
)

const providerNS = "shoot--p--a"

// TestProvider runs one provider replica (leader election on, alone) whose
// API is served through the real aggregation layer, scraping the real
// kube-apiserver through Pod objects that point at it.
func TestProvider(t *testing.T) {
	ns := testenv.NewNetNS(t, "10.213.0.0/30")
	certFile, keyFile, caBundle := servingCert(t, "cm-provider")
	registerAPIService(t, "cm-provider", caBundle)
	shootNamespace(t, providerNS, env.CAData)
	ctx := t.Context()
	api := testkube.APIServerLabels()
	testkube.Pod(t, ctx, env.Client, providerNS, "kapi-1", "127.0.0.1", api)
	testkube.Pod(t, ctx, env.Client, providerNS, "kapi-2", "127.0.0.1", api)
	testkube.Pod(t, ctx, env.Client, providerNS, "kapi-nodata", "127.0.0.99", api) // nothing listens there

	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- runProvider(pctx, providerSetup{
			Netns: ns.Name, IP: ns.IP, Kubeconfig: env.KubeconfigPath, CertFile: certFile, KeyFile: keyFile,
			ScrapePort: apiServerPort(t), Period: 10 * time.Second, MinGap: 4 * time.Second,
			LeaderElection: true, Service: "cm-provider", Lease: "cm-provider", Identity: "provider-test",
			Costs: costsYAML,
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("provider stopped with error: %v", err)
		}
	})

	base := "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + providerNS + "/pods/"
	t.Run("discovery lists the metric", func(t *testing.T) {
		testkube.Poll(t, ctx, time.Minute, "custom.metrics.k8s.io/v1beta2 discovery", func(ctx context.Context) (bool, error) {
			res, err := env.Client.Discovery().ServerResourcesForGroupVersion("custom.metrics.k8s.io/v1beta2")
			if err != nil {
				return false, err
			}
			for _, r := range res.APIResources {
				if r.Name == "pods/"+metricSum && r.Namespaced {
					return true, nil
				}
			}
			return false, nil
		})
	})
	t.Run("list by selector has one item per pod with data", func(t *testing.T) {
		var list cmv1beta2.MetricValueList
		testkube.Poll(t, ctx, time.Minute, "two items", func(ctx context.Context) (bool, error) {
			err := getJSON(ctx, env.Client, base+"*/"+metricSum, "app=kubernetes,role=apiserver", &list)
			return err == nil && len(list.Items) == 2, err
		})
		for i, name := range []string{"kapi-1", "kapi-2"} {
			it := list.Items[i]
			if it.DescribedObject.Name != name || it.DescribedObject.Kind != "Pod" || it.Value.Sign() <= 0 || it.WindowSeconds == nil || *it.WindowSeconds < 4 {
				t.Errorf("item %d = %+v, want a positive rate of %s", i, it, name)
			}
		}
	})
	t.Run("v1beta1 serves the same values", func(t *testing.T) {
		var list cmv1beta1.MetricValueList
		path := "/apis/custom.metrics.k8s.io/v1beta1/namespaces/" + providerNS + "/pods/*/" + metricSum
		testkube.Poll(t, ctx, time.Minute, "v1beta1 list", func(ctx context.Context) (bool, error) {
			err := getJSON(ctx, env.Client, path, "app=kubernetes,role=apiserver", &list)
			return err == nil && len(list.Items) == 2 && list.Items[0].MetricName == metricSum, err
		})
	})
	t.Run("selector role=other gives an empty list", func(t *testing.T) {
		var list cmv1beta2.MetricValueList
		if err := getJSON(ctx, env.Client, base+"*/"+metricSum, "role=other", &list); err != nil || len(list.Items) != 0 {
			t.Fatalf("list = %+v, %v; want empty", list.Items, err)
		}
	})
	t.Run("pod without data is 404", func(t *testing.T) {
		err := getJSON(ctx, env.Client, base+"kapi-nodata/"+metricSum, "", &cmv1beta2.MetricValueList{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("error = %v, want 404", err)
		}
	})
	t.Run("pod with data by name", func(t *testing.T) {
		// The library answers a single object as a list of one.
		var v cmv1beta2.MetricValueList
		err := getJSON(ctx, env.Client, base+"kapi-1/shoot:apiserver_request_total:rate", "", &v)
		if err != nil || len(v.Items) != 1 || v.Items[0].DescribedObject.Name != "kapi-1" || v.Items[0].Metric.Name != "shoot:apiserver_request_total:rate" {
			t.Fatalf("value = %+v, %v", v, err)
		}
	})
	t.Run("unknown metric is 404", func(t *testing.T) {
		err := getJSON(ctx, env.Client, base+"*/shoot:no_such_metric", "", &cmv1beta2.MetricValueList{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("error = %v, want 404", err)
		}
	})
	t.Run("unauthorised caller is 403", func(t *testing.T) {
		out := kubernetes.NewForConfigOrDie(env.UserConfig(outsider))
		if err := getJSON(ctx, out, base+"*/"+metricSum, "", &cmv1beta2.MetricValueList{}); !apierrors.IsForbidden(err) {
			t.Fatalf("through kube-apiserver: error = %v, want 403", err)
		}
		// Directly at the replica, so its own delegated authentication
		// (TokenReview) and authorization (SubjectAccessReview) decide.
		direct := "https://" + ns.IP + ":6443" + base + "*/" + metricSum
		if code := directGet(t, direct, caBundle, "cm-provider."+systemNS+".svc", outsider.Token); code != http.StatusForbidden {
			t.Fatalf("direct as outsider: HTTP %d, want 403", code)
		}
		if code := directGet(t, direct, caBundle, "cm-provider."+systemNS+".svc", reader.Token); code != http.StatusOK {
			t.Fatalf("direct as reader: HTTP %d, want 200", code)
		}
	})
	t.Run("weighted rate beside the plain rate", func(t *testing.T) {
		// The real kube-apiserver's own requests: every cost is at least 1
		// and cluster-scoped LISTs cost 4, so per pod weighted >= plain.
		var plain, weighted cmv1beta2.MetricValueList
		testkube.Poll(t, ctx, time.Minute, "both rates for both pods", func(ctx context.Context) (bool, error) {
			if err := getJSON(ctx, env.Client, base+"*/"+metricSum, "app=kubernetes", &plain); err != nil {
				return false, err
			}
			err := getJSON(ctx, env.Client, base+"*/"+metricWeighted, "app=kubernetes", &weighted)
			return err == nil && len(plain.Items) == 2 && len(weighted.Items) == 2 && plain.Items[0].Timestamp.Equal(&weighted.Items[0].Timestamp), err
		})
		for i := range plain.Items {
			if p, w := plain.Items[i], weighted.Items[i]; w.Metric.Name != metricWeighted || w.Value.Cmp(p.Value) < 0 || w.Value.Sign() <= 0 {
				t.Errorf("%s: weighted %s, plain %s; want weighted >= plain > 0", p.DescribedObject.Name, w.Value.String(), p.Value.String())
			}
		}
	})
	t.Run("HPA scales a stand-in kube-apiserver", testHPA)
	t.Run("HPA on the weighted rate scales a stand-in kube-apiserver", testWeightedHPA)
}

func getJSON(ctx context.Context, c kubernetes.Interface, path, selector string, into any) error {
	req := c.Discovery().RESTClient().Get().AbsPath(path)
	if selector != "" {
		req = req.Param("labelSelector", selector)
	}
	raw, err := req.DoRaw(ctx)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

func directGet(t *testing.T, rawURL string, caPEM []byte, serverName, token string) int {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12}}, Timeout: 10 * time.Second}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// expfmtRequestTotal reads kube-apiserver's /metrics as admin and sums the
// counter with the Prometheus text parser, as an independent reference.
func expfmtRequestTotal(t *testing.T) float64 {
	t.Helper()
	raw, err := env.Client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, m := range families["apiserver_request_total"].GetMetric() {
		sum += m.GetCounter().GetValue()
	}
	return sum
}
