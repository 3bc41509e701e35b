package simulator

import (
	"errors"
	"fmt"
)

// Filter names, as kube-scheduler's plugins are named.
const (
	FilterNodeName             = "NodeName"
	FilterNodeUnschedulable    = "NodeUnschedulable"
	FilterTaintToleration      = "TaintToleration"
	FilterNodeAffinity         = "NodeAffinity"
	FilterNodePorts            = "NodePorts"
	FilterNodeResourcesFit     = "NodeResourcesFit"
	FilterVolumeRestrictions   = "VolumeRestrictions"
	FilterNodeVolumeLimits     = "NodeVolumeLimits"
	FilterVolumeBinding        = "VolumeBinding"
	FilterVolumeZone           = "VolumeZone"
	FilterPodTopologySpread    = "PodTopologySpread"
	FilterInterPodAffinity     = "InterPodAffinity"
	FilterNodeDeclaredFeatures = "NodeDeclaredFeatures"
	// FilterPodSpec is reported for a pod whose scheduling fields do not
	// parse (for example an invalid label selector).
	FilterPodSpec = "PodSpec"
	// FilterNodeNotFound is reported when the named node is not in the snapshot.
	FilterNodeNotFound = "NodeNotFound"
	// FilterNotSimulated is reported for a pod that uses a feature the
	// simulator deliberately does not model (see docs/simulator.md): it
	// fits no node, so the autoscaler neither scales up for it nor removes
	// a node it runs on. Reason names the feature.
	FilterNotSimulated = "NotSimulated"
)

// FitError says why a pod does not fit on a node: the failing filter
// (kube-scheduler's plugin name) and its reason.
type FitError struct {
	// Node is the node checked; for estimates, the template node.
	Node string
	// Filter is the name of the first filter that failed, in
	// kube-scheduler's filter order.
	Filter string
	// Reason is the human-readable reason, as kube-scheduler words it
	// (for example "Insufficient cpu").
	Reason string
}

// Error implements error.
func (e *FitError) Error() string {
	return fmt.Sprintf("pod does not fit on node %q: %s: %s", e.Node, e.Filter, e.Reason)
}

// AsFitError returns the FitError in err's chain, if any.
func AsFitError(err error) (*FitError, bool) {
	var fe *FitError
	ok := errors.As(err, &fe)
	return fe, ok
}

// IsFilter reports whether err is a FitError of the named filter.
func IsFilter(err error, filter string) bool {
	fe, ok := AsFitError(err)
	return ok && fe.Filter == filter
}
