// Package testbody generates a realistic kube-apiserver /metrics body for
// tests and benchmarks: the families that dominate a real one (request
// duration and response size histograms per resource and verb, the request
// counter, etcd latencies), sorted by name as kube-apiserver writes them.
package testbody

import (
	"bytes"
	"fmt"
)

// RequestTotal is the counter the scraper needs.
const RequestTotal = "apiserver_request_total"

var (
	verbs     = []string{"GET", "LIST", "WATCH", "POST", "PUT", "PATCH", "DELETE"}
	groups    = []string{"", "apps", "batch", "rbac.authorization.k8s.io", "networking.k8s.io", "coordination.k8s.io", "storage.k8s.io", "policy"}
	resources = []string{"pods", "services", "endpoints", "configmaps", "secrets", "nodes", "namespaces", "events", "leases", "deployments",
		"replicasets", "statefulsets", "daemonsets", "jobs", "cronjobs", "roles", "rolebindings", "clusterroles", "clusterrolebindings",
		"ingresses", "networkpolicies", "persistentvolumes", "persistentvolumeclaims", "storageclasses", "poddisruptionbudgets",
		"serviceaccounts", "endpointslices", "horizontalpodautoscalers", "customresourcedefinitions", "validatingwebhookconfigurations"}
	latencyBuckets = []string{"0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "4", "5", "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"}
	sizeBuckets    = []string{"1000", "10000", "100000", "1e+06", "1e+07", "1e+08", "1e+09", "+Inf"}
)

// series is one request category.
type series struct{ verb, group, resource, scope string }

func categories() []series {
	var out []series
	for i, r := range resources {
		for _, v := range verbs {
			scope := "namespace"
			if v == "LIST" || v == "WATCH" || i%5 == 0 {
				scope = "cluster"
			}
			out = append(out, series{v, groups[i%len(groups)], r, scope})
		}
	}
	return out
}

// Body returns the body; its size is about 3 MB and the same every call.
// Counter values grow with scrape, so consecutive scrapes give a rate.
func Body(scrape int) []byte {
	var b bytes.Buffer
	b.Grow(3 << 20)
	cats := categories()
	filler(&b, "aggregator_unavailable_apiservice", 40)
	filler(&b, "apiserver_admission_controller_admission_duration_seconds_count", 120)
	histogram(&b, "apiserver_request_duration_seconds", "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.", cats, latencyBuckets)
	b.WriteString("# HELP " + RequestTotal + " [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.\n")
	b.WriteString("# TYPE " + RequestTotal + " counter\n")
	for i, c := range cats {
		for j, code := range []string{"200", "201", "404", "409"} {
			fmt.Fprintf(&b, "%s{code=%q,component=\"apiserver\",dry_run=\"\",group=%q,resource=%q,scope=%q,subresource=\"\",verb=%q,version=\"v1\"} %d\n",
				RequestTotal, code, c.group, c.resource, c.scope, c.verb, (i+1)*(j+1)*(scrape+1)*60)
		}
	}
	histogram(&b, "apiserver_request_sli_duration_seconds", "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds.", cats[:len(cats)/2], latencyBuckets)
	histogram(&b, "apiserver_response_sizes", "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.", cats, sizeBuckets)
	histogram(&b, "etcd_request_duration_seconds", "Etcd request latency in seconds for each operation and object type.", cats, latencyBuckets)
	filler(&b, "workqueue_depth", 60)
	return b.Bytes()
}

func histogram(b *bytes.Buffer, name, help string, cats []series, buckets []string) {
	fmt.Fprintf(b, "# HELP %s [STABLE] %s\n# TYPE %s histogram\n", name, help, name)
	for i, c := range cats {
		labels := fmt.Sprintf("component=\"apiserver\",dry_run=\"\",group=%q,resource=%q,scope=%q,subresource=\"\",verb=%q,version=\"v1\"", c.group, c.resource, c.scope, c.verb)
		for j, le := range buckets {
			fmt.Fprintf(b, "%s_bucket{%s,le=%q} %d\n", name, labels, le, (i+1)*(j+1))
		}
		fmt.Fprintf(b, "%s_sum{%s} %g\n%s_count{%s} %d\n", name, labels, float64(i)*1.5, name, labels, (i+1)*len(buckets))
	}
}

func filler(b *bytes.Buffer, name string, n int) {
	fmt.Fprintf(b, "# HELP %s [ALPHA] Filler family.\n# TYPE %s gauge\n", name, name)
	for i := range n {
		fmt.Fprintf(b, "%s{name=\"item-%d\"} %d\n", name, i, i)
	}
}
