package scaleup

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// AddUpcoming adds each group's upcoming nodes to the snapshot as fresh
// copies of its template node, each with its own copies of the DaemonSet
// pods, in the order a balanced estimate creates nodes: next from the
// group with the fewest nodes (its size without the upcoming ones plus
// those added so far; ties in group order). In the next loop the pending
// pods then first-fit onto the upcoming nodes as the estimate placed them,
// zone spread included; appending whole groups would let pods without
// spread constraints fill one zone's nodes first and leave spread pods
// without room.
func AddUpcoming(snap *simulator.Snapshot, groups []Group) error {
	added := make([]int, len(groups))
	for {
		pick := -1
		for i, g := range groups {
			if g.Template == nil || added[i] >= g.Upcoming {
				continue
			}
			if pick < 0 || g.Target-g.Upcoming+added[i] < groups[pick].Target-groups[pick].Upcoming+added[pick] {
				pick = i
			}
		}
		if pick < 0 {
			return nil
		}
		g := groups[pick]
		if err := addUpcomingNode(snap, g.ID, g.Template.Node, g.Template.DaemonSetPods, added[pick]); err != nil {
			return fmt.Errorf("adding upcoming nodes of node group %q: %w", g.ID, err)
		}
		added[pick]++
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
