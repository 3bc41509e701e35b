// Command livebench measures a node autoscaler on a real control plane at
// scale: etcd, kube-apiserver and kube-scheduler from `make testbin`, N Ready
// nodes in the node format of the autoscaler's kwok provider and M running
// pods bound to them, then bursts of pending pods. It starts the autoscaler
// as a separate process (kscale's node-autoscaler with the kwok provider, or
// with --upstream an upstream cluster-autoscaler built with its own kwok
// provider) and reports how long pending pods wait for the provider's
// increase call, the loop durations, the process's peak RSS, its CPU per
// loop and its API requests per loop, as text and JSON.
//
// No kube-controller-manager and no kubelet run: the nodes the harness
// writes stay Ready as written, and the harness marks the nodes the
// autoscaler adds Ready when nothing else does, so the figures do not depend
// on a kubelet stand-in. docs/node-autoscaler-live.md describes every
// figure and how it is observed.
package main
