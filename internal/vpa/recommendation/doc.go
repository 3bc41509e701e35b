// Package recommendation turns a VerticalPodAutoscaler's status recommendation
// into the concrete resources of one pod. It is shared by the VPA updater and
// the VPA admission webhook so that both compute exactly the same values.
//
// Processing, per pod:
//  1. the recommendation is filtered by each container's resource policy
//     (mode Off drops the container, controlledResources drops resources);
//  2. the pod-level LimitRange (type Pod) scales the containers' values
//     proportionally to fit the pod's Min and Max;
//  3. per container, target, lowerBound and upperBound are capped to the
//     container LimitRange, then to the policy's minAllowed and maxAllowed,
//     and, for controlledValues RequestsOnly, to the container's limit;
//  4. requests become the capped target and, for RequestsAndLimits, limits
//     are scaled so that the original limit/request ratio is kept.
//
// The package is pure: it touches no client and no clock.
package recommendation
