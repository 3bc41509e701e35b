package mismatch

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/simulator"
)

// evidence is a real node that showed differences, with the pods that
// come with it.
type evidence struct {
	node  *corev1.Node
	pods  []*corev1.Pod
	diffs []Difference
}

// apply returns a copy of t with what the evidence taught: the node's
// extra taints, its values of the template's labels, its lower
// allocatable, and its DaemonSet and static pods.
func (e *evidence) apply(t *template.Template) *template.Template {
	n := t.Node.DeepCopy()
	pods := slices.Clone(t.DaemonSetPods)
	for _, d := range e.diffs {
		switch d.Kind {
		case KindTaint:
			for _, taint := range e.node.Spec.Taints {
				if taint.Key+":"+string(taint.Effect) == d.Key {
					n.Spec.Taints = append(n.Spec.Taints, taint)
				}
			}
		case KindLabel:
			if d.Real == "" {
				delete(n.Labels, d.Key)
			} else {
				n.Labels[d.Key] = d.Real
			}
		case KindResource:
			name := corev1.ResourceName(d.Key)
			n.Status.Allocatable[name] = e.node.Status.Allocatable[name].DeepCopy()
		case KindPod:
			for _, p := range e.pods {
				if p.Namespace+"/"+p.Name == d.Key {
					pods = append(pods, templatePod(p, n.Name))
				}
			}
		}
	}
	return &template.Template{Node: n, DaemonSetPods: pods}
}

// templatePod is a copy of a real node's pod placed on a template node.
func templatePod(p *corev1.Pod, node string) *corev1.Pod {
	c := p.DeepCopy()
	c.Name = "learnt-" + p.Name
	c.UID = types.UID("learnt-" + string(p.UID))
	c.Spec.NodeName = node
	return c
}

// stayingPods are the node's pods that come with every node of its group.
func stayingPods(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if stayKey(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// fitsAlone checks pod against node holding only pods, in a snapshot of
// its own: node properties decide, not what other nodes or other pending
// pods do.
func fitsAlone(pod *corev1.Pod, node *corev1.Node, pods []*corev1.Pod) *simulator.FitError {
	snap := simulator.NewSnapshot()
	if err := snap.AddNode(node); err != nil {
		return &simulator.FitError{Node: node.Name, Filter: simulator.FilterNodeNotFound, Reason: err.Error()}
	}
	for _, p := range pods {
		if p.Spec.NodeName != node.Name {
			p = p.DeepCopy()
			p.Spec.NodeName = node.Name
		}
		_ = snap.AddPod(p) // a pod that cannot be added only makes the node emptier
	}
	return snap.CheckFit(pod, node.Name)
}
