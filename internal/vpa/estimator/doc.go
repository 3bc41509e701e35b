// Package estimator turns a container's aggregated usage history
// (model.AggregateContainerState) into a VPA recommendation: percentiles
// for lower bound, target and upper bound, a safety margin, a confidence
// multiplier that widens the bounds while history is short, the pod
// minimum split across containers, optional rounding, then the VPA's
// resource policy (mode, controlledResources, minAllowed/maxAllowed and a
// global maximum).
//
// All arithmetic is truncating integer math on millicores and bytes after
// every stage, in the order of the spec (vpa-hpa.md §1.8–1.10). It is pure:
// no client, no clock.
//
// Zero-sample containers: the percentile of an empty histogram is 0, so
// target and both bounds of such a container equal the pod minimum share
// (the upper bound multiplies 0 by the unbounded confidence factor and is
// defined here as 0 before the minimum lifts it). The recommender only asks
// for a VPA's recommendation once at least one of its containers has a
// sample, so an idle or unreachable metrics API never produces floor values
// for a whole VPA.
package estimator
