// Package ha runs the custom metrics provider active/passive. Replicas
// compete for a Lease; the leader runs the leading work (scraping and
// serving) and points the selector-less Service at itself by writing the
// Service's core/v1 Endpoints with exactly its own address, as upstream
// (gardener-custom-metrics) does and within its RBAC;
// kube-controller-manager mirrors them into an EndpointSlice. On graceful
// shutdown it empties those Endpoints, but only while they still list this
// replica, and then releases the Lease so a standby takes over at once.
package ha
