// Package cmstore keeps one document in one key of one ConfigMap: the small
// durable state kscale components keep in the cluster so that a restarted
// process or a new leader continues where the last one stopped (the node
// autoscaler's backoff, the kwok cloud's target sizes). Writes are
// optimistic (update with the read resourceVersion) and skipped when the
// document did not change.
package cmstore
