package conformance

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// Case is one scheduling scenario.
type Case struct {
	// Name identifies the case.
	Name string
	// Nodes are the cluster's nodes.
	Nodes []*corev1.Node
	// Namespaces are extra namespaces (with labels) the pods live in.
	Namespaces []*corev1.Namespace
	// RuntimeClasses are created before the pods (for pod overhead).
	RuntimeClasses []*nodev1.RuntimeClass
	// PersistentVolumes and PersistentVolumeClaims are bound pairs.
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	// Existing are pods already bound through spec.nodeName.
	Existing []*corev1.Pod
	// Pod is the incoming pending pod.
	Pod *corev1.Pod
	// Want is the only feasible node, or "" when the pod is unschedulable.
	Want string
	// WantFilter, when set, is the filter the simulator must name for the
	// nodes the pod does not fit (checked only in unit tests).
	WantFilter string
}

// Snapshot builds a simulator snapshot holding the case's cluster.
func (c *Case) Snapshot() (*simulator.Snapshot, error) {
	s := simulator.NewSnapshot()
	for _, ns := range c.Namespaces {
		s.AddNamespace(ns)
	}
	for _, pv := range c.PersistentVolumes {
		s.AddPersistentVolume(pv)
	}
	for _, pvc := range c.PersistentVolumeClaims {
		s.AddPersistentVolumeClaim(pvc)
	}
	for _, n := range c.Nodes {
		if err := s.AddNode(n); err != nil {
			return nil, err
		}
	}
	for _, p := range c.Existing {
		if err := s.AddPod(p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Result is the simulator's answer for a case.
type Result struct {
	// Feasible lists the nodes CheckFit accepts, in node order.
	Feasible []string
	// Placed is where FilterSchedulable put the pod, or "".
	Placed string
	// Errors holds the FitError of every infeasible node.
	Errors map[string]*simulator.FitError
}

// RunSimulator evaluates the case with the simulator.
func RunSimulator(c *Case) (Result, error) {
	s, err := c.Snapshot()
	if err != nil {
		return Result{}, err
	}
	res := Result{Errors: map[string]*simulator.FitError{}}
	for _, n := range c.Nodes {
		if fe := s.CheckFit(c.Pod, n.Name); fe != nil {
			res.Errors[n.Name] = fe
			continue
		}
		res.Feasible = append(res.Feasible, n.Name)
	}
	fr := simulator.FilterSchedulable(s, []*corev1.Pod{c.Pod}, simulator.FilterOptions{})
	if len(fr.Placements) == 1 {
		res.Placed = fr.Placements[0].NodeName
	}
	return res, nil
}
