package scaleup

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// AddUpcoming adds each group's upcoming nodes to the snapshot as fresh
// copies of its template node, each with its own copies of the DaemonSet
// pods, interleaved over the groups (the first node of every group, then
// the second...). A balanced estimate creates the nodes of similar groups
// alternately too, so in the next loop the pending pods first-fit onto
// the upcoming nodes as the estimate placed them, zone spread included;
// appending whole groups would let pods without spread constraints fill
// one zone's nodes first and leave spread pods without room.
func AddUpcoming(snap *simulator.Snapshot, groups []Group) error {
	for i := 0; ; i++ {
		added := false
		for _, g := range groups {
			if g.Template == nil || i >= g.Upcoming {
				continue
			}
			if err := addUpcomingNode(snap, g.ID, g.Template.Node, g.Template.DaemonSetPods, i); err != nil {
				return fmt.Errorf("adding upcoming nodes of node group %q: %w", g.ID, err)
			}
			added = true
		}
		if !added {
			return nil
		}
	}
}

// addUpcomingNode adds the group's i-th upcoming node: its own deep-copied
// Node with a unique name, so nothing is shared with the template or
// other copies.
func addUpcomingNode(snap *simulator.Snapshot, group string, tmpl *corev1.Node, dsPods []*corev1.Pod, i int) error {
	n := tmpl.DeepCopy()
	n.Name = "upcoming-" + group + "-" + strconv.Itoa(i)
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels[corev1.LabelHostname] = n.Name
	if err := snap.AddNode(n); err != nil {
		return err
	}
	for _, ds := range dsPods {
		p := ds.DeepCopy()
		p.Name = ds.Name + "-" + n.Name
		p.UID = ""
		p.Spec.NodeName = n.Name
		if err := snap.AddPod(p); err != nil {
			return err
		}
	}
	return nil
}
