// Package offline is the world `kscale simulate` runs the real node
// autoscaler loop in: a fake clock, an in-memory cluster (nodes, pods,
// DaemonSets, storage classes, volumes and claims, with the binding the
// volume controllers do), the simulated cloud of cloudprovider/inmemory, a simulated
// kube-scheduler that binds pending pods to ready nodes with the scheduling
// simulator's filters, workload controllers that create pods, scenario
// events, and autoscaler restarts that drop its in-memory state.
//
// Every tick applies the events due, lets the cloud boot machines into
// nodes, reconciles workloads, schedules pods, and then calls
// Autoscaler.RunOnce with the tick's time: the same loop code that runs
// live. The result is a timeline of actions and observations plus samples
// for charts, and expectations from the scenario are checked against it.
package offline
