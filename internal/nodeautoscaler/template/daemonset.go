package template

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/simulator"
)

// DaemonSetPods returns the pods the DaemonSets would run on node: each
// DaemonSet's pod is kept when it passes every scheduling filter on the
// node with the pods kept before it. With requestsFromLimits, containers
// with limits but no requests get requests = limits, as API defaulting does
// for real pods (the fork's rule); upstream leaves them without requests.
func DaemonSetPods(node *corev1.Node, daemonSets []*appsv1.DaemonSet, requestsFromLimits bool) []*corev1.Pod {
	snap := simulator.NewSnapshot()
	if err := snap.AddNode(node); err != nil {
		return nil
	}
	var out []*corev1.Pod
	for _, ds := range daemonSets {
		pod := newDaemonPod(ds, node.Name, requestsFromLimits)
		if snap.CheckFit(pod, node.Name) != nil {
			continue
		}
		bound := pod.DeepCopy()
		bound.Spec.NodeName = node.Name
		if snap.AddPod(bound) != nil {
			continue
		}
		out = append(out, bound)
	}
	return out
}

func newDaemonPod(ds *appsv1.DaemonSet, nodeName string, requestsFromLimits bool) *corev1.Pod {
	spec := ds.Spec.Template.Spec.DeepCopy()
	for i := range spec.Containers {
		if requestsFromLimits {
			RequestsFromLimits(&spec.Containers[i])
		}
	}
	// The DaemonSet controller pins its pods with node affinity to the
	// node name; the name filter keeps the same meaning.
	yes := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + nodeName, Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels,
			UID: types.UID(string(ds.UID) + "-" + nodeName),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name,
				UID: ds.UID, Controller: &yes}},
		},
		Spec: *spec,
	}
}

// RequestsFromLimits sets requests = limits for the resources a container
// limits without requesting them, the defaulting the API server applies to
// every pod it creates (and the fork applies to DaemonSet pod templates,
// which the API server leaves alone).
func RequestsFromLimits(c *corev1.Container) {
	for r, l := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[r]; ok {
			continue
		}
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[r] = l.DeepCopy()
	}
}
