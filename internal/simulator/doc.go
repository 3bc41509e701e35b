// Package simulator answers the node autoscaler's scheduling questions
// without an API server or a clock: which pending pods fit on the nodes we
// have, and how many new nodes of a group the rest would need. It follows
// kube-scheduler's filter semantics (see internal/scheduling) and is
// checked against the real kube-scheduler by internal/simulator/conformance.
//
// # Snapshot
//
// NewSnapshot returns an empty cluster. AddNode, RemoveNode, AddPod (bound
// through spec.nodeName) and RemovePod change it; AddNamespace,
// AddPersistentVolume and AddPersistentVolumeClaim register the objects
// that namespaceSelector and volume node affinity need. Nodes, NodeInfo,
// NodeOf, NodeCount and PodCount read it.
//
// Fork opens a layer of changes; Revert undoes it and Commit keeps it.
// Layers nest. The snapshot records an undo log instead of copying, so a
// fork is free and a revert costs only what changed since.
//
// # Questions
//
//   - (*Snapshot).CheckFit(pod, nodeName) runs every filter for one pod on
//     one node and returns nil or a *FitError naming the first failing
//     filter ("NodeResourcesFit", "TaintToleration", "NodeAffinity",
//     "InterPodAffinity", "PodTopologySpread", "NodePorts",
//     "VolumeBinding", "NodeUnschedulable", "NodeName") and the reason in
//     kube-scheduler's words ("Insufficient cpu").
//   - FilterSchedulable(snap, pods, FilterOptions{Now}) places pending
//     pods on the existing nodes (mutating the snapshot: Fork first to
//     keep it) and returns the placements and the pods left over.
//   - Estimate(snap, EstimateInput{Template, SimilarTemplates, Sizes,
//     Rooms, DaemonSetPods, Pods, MaxNodes, Deadline, Now}) places pending
//     pods on new copies of a node template (or of similar templates in
//     other zones: with Sizes each new node comes from the smallest group
//     the pod fits, within Rooms, as balancing similar node groups does)
//     and returns how many nodes are needed, which pods go where (and on
//     which template's nodes), which pods fit no new node (with the
//     FitError) and whether MaxNodes or the time budget cut it short. It
//     leaves the snapshot unchanged.
//
// # How it stays fast
//
// Pods of one controller with equal scheduling fields form an equivalence
// group that is parsed and prepared once (as kube-scheduler's PreFilter).
// Topology spread and inter-pod (anti-)affinity use per-domain counters
// that are built once per run from label indexes and updated on every
// placement. Groups whose fit only shrinks as pods are added resume the
// node scan where the previous pod landed, and groups decided by resources
// alone are placed arithmetically, a node-full at a time.
//
// # Spread timeout
//
// A pending pod annotated zalando.org/topology-spread-timeout (a Go
// duration) that has been pending longer than that at Now is simulated
// without its topology spread constraints.
package simulator
