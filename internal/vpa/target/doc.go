// Package target resolves what a VerticalPodAutoscaler points at and which
// pods it controls. It is shared by the VPA recommender, updater and
// admission webhook.
//
// API:
//
//   - Resolver.Resolve(ctx, vpa) follows spec.targetRef and returns a Target:
//     the controller's ObjectRef and its pod label selector. The selector
//     comes from the well-known controllers (Deployment, ReplicaSet,
//     StatefulSet, DaemonSet, Job, CronJob, ReplicationController) or from
//     the scale subresource of any other kind. A targetRef that is missing,
//     points at nothing, has no selector or is not the top-most controller
//     (for example a ReplicaSet owned by a Deployment) fails with an *Error
//     whose Reason says which; IsNotFound, IsNotTopLevel and IsInvalid test
//     for them.
//   - Resolver.TopLevelController(ctx, pod) walks the pod's controller owner
//     references up while the owner is a well-known or scalable controller
//     and returns the top-most one (nil for a pod without a controller).
//   - Controlling(pod, owner, candidates) is pure: among the candidates (VPAs
//     with their resolved Targets) it returns the one controlling the pod:
//     same namespace, targetRef equal to the pod's top-level controller and
//     selector matching the pod's labels. The oldest VPA wins (creation
//     time, then name).
//
// The Resolver reads through a controller-runtime client, or through a
// CachedReader that serves the well-known controllers from an informer
// cache (so resolving thousands of VPAs per loop costs no API calls);
// it keeps no state between calls. It needs get on the well-known
// controllers and on */scale; for other kinds it also reads the object
// itself to check its owners, and skips that check when forbidden.
package target
