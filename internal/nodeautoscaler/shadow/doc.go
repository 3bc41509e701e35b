// Package shadow compares the dry-run loop's decisions with what the
// autoscaler running in the cluster did: per pending pod, whether both
// scaled up (and which group) or neither; per node, whether both removed
// it. Upstream's side is read from its Kubernetes events
// (TriggeredScaleUp, NotTriggerScaleUp, ScaleDown, as upstream Cluster
// Autoscaler writes them) and from the target sizes the cloud reports.
// The comparison itself is pure: it is fed observations with their times
// and settles each decision once a match window has passed.
package shadow
