package live

// DefaultLeaseName is the Lease the node autoscaler replicas elect on,
// upstream's name.
const DefaultLeaseName = "cluster-autoscaler"
