// Package nodeautoscaler holds the node autoscaler's decision loop: one
// RunOnce per scan interval that refreshes cluster state from the cloud
// provider and the cluster, fixes node group sizes, handles instance
// creation errors and backoff, and scales groups up for pending pods.
//
// The loop is pure with respect to time and I/O boundaries: it receives `now`
// as a value, reads the cluster through a narrow Cluster interface and acts on
// the cloud through cloudprovider.Provider. The same code runs live and inside
// the offline world of `kscale simulate`.
package nodeautoscaler
