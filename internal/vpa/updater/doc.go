// Package updater is the VPA updater: once per interval it finds the pods
// whose requests have drifted from their VerticalPodAutoscaler's
// recommendation and evicts them (or resizes them in place) so that the
// admission webhook can give their replacements the recommended resources.
//
// The decisions are pure and take the current time as a value:
//   - Assess and Priority.ShouldUpdate decide whether a pod is worth
//     updating (outside the recommended range, a quick OOM, or drifted by at
//     least the update threshold after the lifetime threshold);
//   - SortByPriority orders candidates (scale-ups first, then by the size of
//     the change) and PassesEvictionRequirements filters them;
//   - Budget limits the disruptions per controller (eviction tolerance,
//     min replicas).
//
// Updater.RunOnce is the loop: it gates on the admission webhook's status
// Lease, lists VPAs and pods, and evicts through the policy/v1 Eviction API so
// that PodDisruptionBudgets are honoured, under a global rate limit.
package updater
