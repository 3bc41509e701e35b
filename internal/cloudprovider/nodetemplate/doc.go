// Package nodetemplate builds the node a group would add, as plain
// values below both the node autoscaler and the providers: from the cloud
// provider's description (instance types, zones, tag-convention labels,
// taints and resources), or from a live node of the group in the upstream
// mode. Allocatable is estimated from live nodes of the same instance type,
// and for unseen types as capacity minus the largest reservation observed
// in the cluster. The kwok provider and the offline simulator build the
// nodes their machines register with it, so a simulated node and the
// autoscaler's template of it agree.
package nodetemplate
