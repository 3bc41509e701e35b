// Package template builds the node a group would add: from the cloud
// provider's plain description (instance types, zones, tag-convention labels,
// taints and resources) by default, or from a live node of the group in the
// upstream mode. Allocatable is estimated from live nodes of the same
// instance type, and for unseen types as capacity minus the largest
// reservation observed in the cluster; the estimate is recomputed every loop
// so it improves as nodes appear. The DaemonSet pods that would run on the
// node come with it, with limits-only containers counted as requests.
package template
