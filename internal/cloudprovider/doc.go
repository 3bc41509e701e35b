// Package cloudprovider is the narrow contract between the node autoscaler and
// a cloud: node groups with their size bounds and templates, the instances in
// each group with their lifecycle state and creation errors, and the four
// mutating calls (IncreaseSize, DeleteInstances, DecreaseTargetSize, Refresh).
//
// The contract returns plain values (instance types with capacities, tags,
// zones); building Kubernetes node templates from them is the autoscaler's job,
// not the provider's. Every call takes a context and failures are typed errors
// with Is/As helpers.
package cloudprovider
