// Package backoff decides how long a node group that failed to scale up is
// skipped. Two policies implement Backoff: Exponential, the upstream Cluster
// Autoscaler behaviour (initial duration doubling to a maximum, history
// forgotten after a reset timeout), and Infinite, the fork's
// --backoff-no-full-scale-down mode where a group stays backed off until the
// caller clears it because the group recovered.
package backoff
