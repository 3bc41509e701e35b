// Package machinesim is a stand-in for a machine API's controllers and its
// cloud in tests: it turns deployments into one set each, sets into
// machines, and machines into Nodes after a boot time, on a real API
// server. Scale-down removes the machines the API's deletion order ranks
// first (for Cluster API: the delete-machine annotation); a deployment can
// be told to fail its new machines. The machine API itself (Cluster API,
// Gardener's machine-controller-manager) is a Flavor, so the core serves
// both.
//
// It reconciles by polling every Interval instead of watching: the test
// worlds are small and a full pass keeps the simulator simple and its
// state on the API server.
package machinesim
