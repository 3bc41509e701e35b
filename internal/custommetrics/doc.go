// Package custommetrics wires the custom metrics provider for kube-apiserver
// request rates (Gardener GEP-23): discovery finds kube-apiserver pods,
// credentials supplies per-namespace CA and token, the scrape scheduler
// fetches each pod's /metrics once per period, parse sums
// apiserver_request_total, rate turns the last two sums into a per-second
// rate, and provider serves it through custom.metrics.k8s.io. With leader
// election on, only the ha leader scrapes and serves, and it points the
// Service's EndpointSlice at itself.
package custommetrics
