package scaleup

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// AddUpcoming adds count fresh copies of a group's template node, each with
// its own copies of the DaemonSet pods, to the snapshot. Every copy gets its
// own deep-copied Node with a unique name, so nothing is shared with the
// template or other copies.
func AddUpcoming(snap *simulator.Snapshot, group string, tmpl *corev1.Node, dsPods []*corev1.Pod, count int) error {
	for i := range count {
		n := tmpl.DeepCopy()
		n.Name = "upcoming-" + group + "-" + strconv.Itoa(i)
		n.Labels["kubernetes.io/hostname"] = n.Name
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
	}
	return nil
}
