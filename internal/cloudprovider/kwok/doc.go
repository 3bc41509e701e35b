// Package kwok is kscale's reference cloud provider for real clusters
// without real machines, in the spirit of sigs.k8s.io/kwok: node groups
// scale by creating and deleting Node objects, and a stand-in kubelet makes
// the pods bound to those nodes run.
//
// The stand-in kubelet (Kubelet) renews each managed node's Lease in
// kube-node-lease so kube-controller-manager's node lifecycle controller
// keeps the node healthy, marks bound pods Running and Ready after their
// start time, completes pods that declare a run time (Job pods), and
// confirms graceful pod deletions as a kubelet does.
//
// sigs.k8s.io/kwok's own controllers were evaluated as a library first.
// They are on our Kubernetes line, but they are driven by kwok's Stage
// resources (templates with CEL and jq expressions), need a dynamic client,
// a REST mapper, impersonating clients and kwok's own clientset, and add
// cel-go and gojq to the dependency graph. The three behaviours the
// autoscaler's end-to-end tests need are small enough to own outright.
package kwok
