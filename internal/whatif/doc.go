// Package whatif is the offline what-if for a workload's autoscaling
// (docs/apiserver-autoscaling.md): a kube-apiserver-like workload whose CPU
// and memory follow a request-rate trace is run, on one simulated clock,
// under several autoscaling configurations (HPA on the request rate or on
// CPU, kscale's VPA, HVPA, or an HPA beside a VPA), and each run is
// summarised in the quantities GEP-23 judges by: utilisation, time and
// pod-minutes with usage above requests, evictions and resizes, replicas
// and the nodes the requests need.
//
// A file of kind WorkloadWhatIf is parsed strictly (Parse); Run simulates
// every configuration and Checks evaluates the file's expectations. The
// VPA runs kscale's own recommender model (internal/vpa/model, estimator)
// and updater decisions (internal/vpa/recommendation, updater); the HPA
// replica calculation is package hpa, checked against
// kube-controller-manager's code by hack/hpaoracle; HVPA follows
// gardener/hvpa-controller v0.17.0 (package hvpa). Everything is pure: no
// client, no wall clock.
package whatif
