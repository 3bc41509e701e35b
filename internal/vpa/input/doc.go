// Package input feeds the recommender's model: container usage from the
// metrics.k8s.io API (PodMetrics), OOM kills from pod status changes, pod
// state (labels, regular containers, phase), and optionally usage history
// from a Prometheus HTTP API at start-up.
//
// Conversions from API objects are pure functions; the few types that do
// I/O take a ctx and a narrow client.
package input
