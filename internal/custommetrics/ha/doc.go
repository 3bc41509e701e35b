// Package ha is the custom metrics provider's part of running
// active/passive. Replicas compete for a Lease through the host
// (internal/operator, Config.Election); the leader's term (LeadTerm) runs
// the leading work (scraping and serving) and points the selector-less
// Service at itself by writing the Service's core/v1 Endpoints with
// exactly its own address, as upstream (gardener-custom-metrics) does and
// within its RBAC; kube-controller-manager mirrors them into an
// EndpointSlice. On graceful shutdown the term empties those Endpoints,
// but only while they still list this replica, and then the host releases
// the Lease so a standby takes over at once.
package ha
