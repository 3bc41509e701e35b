// Package ha runs the custom metrics provider active/passive. Replicas
// compete for a Lease; the leader runs the leading work (scraping and
// serving) and points the selector-less Service at itself by writing one
// EndpointSlice with exactly its own address. On graceful shutdown it removes
// that EndpointSlice, but only while it still lists this replica, and then
// releases the Lease so a standby takes over at once.
package ha
