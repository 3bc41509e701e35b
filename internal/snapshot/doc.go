// Package snapshot turns the objects of a live cluster into a scenario file
// (see package scenario) so that `kscale simulate` can answer what the node
// autoscaler would do next.
//
// Convert is pure: it takes the listed objects (nodes, pods,
// PodDisruptionBudgets, controllers, DaemonSets, claims, volumes, storage
// classes, the priority expander ConfigMap) and the time of the
// snapshot, and returns a scenario.Scenario plus notes on everything the
// scenario schema cannot express. Marshal writes the scenario as YAML with
// those notes as a comment header, Fit checks that the file loads the way
// `kscale simulate` loads it, and Read lists the objects through client-go,
// page by page.
package snapshot
