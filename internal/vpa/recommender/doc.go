// Package recommender is the VPA recommender controller (vpa.recommender).
// Once per interval it lists the VPAs it serves and resolves their targets,
// reads pods, container usage (metrics.k8s.io) and OOM kills into the
// model, computes every VPA's recommendation with the estimator, writes
// status.recommendation and conditions when they changed, stores
// checkpoints and collects stale aggregates and checkpoints.
//
// Data flow: input (pods, PodMetrics, OOMs) -> model.Cluster ->
// estimator -> VPA status; model.Cluster <-> checkpoint (history across
// restarts). Time comes from an injected clock.
package recommender
