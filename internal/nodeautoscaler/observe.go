package nodeautoscaler

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
)

// observation is what one loop read from the cloud and the cluster.
type observation struct {
	groups     []cloudprovider.NodeGroup
	instances  map[string][]cloudprovider.Instance
	nodes      []*corev1.Node
	daemonSets []*appsv1.DaemonSet
	pdbs       []*policyv1.PodDisruptionBudget
	objects    clusterObjects
	// pending are the unschedulable pods and bound the pods that occupy
	// their node, sorted out of the cluster's pods once per loop.
	pending, bound []*corev1.Pod
	// index is the view's PodIndex and indexGen its generation when
	// pending and bound were taken from it: while it is unchanged (the
	// offline world changes it during a loop when scale-down evicts), the
	// index answers for this observation.
	index    *PodIndex
	indexGen uint64
	// byNode indexes bound by node name, built on first use.
	byNode map[string][]*corev1.Pod
}

// indexed returns the cluster's PodIndex while it still holds what the
// loop observed, else nil.
func (o *observation) indexed() *PodIndex {
	if o.index != nil && o.index.Gen() == o.indexGen {
		return o.index
	}
	return nil
}

// podsOn returns the pods bound to a node.
func (o *observation) podsOn(node string) []*corev1.Pod {
	if x := o.indexed(); x != nil {
		return x.PodsOn(node)
	}
	if o.byNode == nil {
		o.byNode = make(map[string][]*corev1.Pod, len(o.nodes))
		for _, p := range o.bound {
			o.byNode[p.Spec.NodeName] = append(o.byNode[p.Spec.NodeName], p)
		}
	}
	return o.byNode[node]
}

func (o *observation) input() clusterstate.Input {
	return clusterstate.Input{Groups: o.groups, Instances: o.instances, Nodes: o.nodes}
}

// observe reads everything the loop decides on: the cloud, then the
// cluster's view of this loop.
func (a *Autoscaler) observe(ctx context.Context) (*observation, error) {
	p := a.cfg.Provider
	if err := p.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("refreshing cloud provider: %w", err)
	}
	groups, err := p.NodeGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing node groups: %w", err)
	}
	obs := &observation{groups: groups, instances: make(map[string][]cloudprovider.Instance, len(groups))}
	for _, g := range groups {
		if obs.instances[g.ID], err = p.Instances(ctx, g.ID); err != nil {
			return nil, fmt.Errorf("listing instances of node group %q: %w", g.ID, err)
		}
	}
	v, err := a.cfg.Cluster.View(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	if v.Pods == nil || v.Controllers == nil {
		return nil, fmt.Errorf("reading the cluster: %w", errIncompleteView)
	}
	obs.nodes, obs.daemonSets, obs.pdbs, obs.objects = v.Nodes, v.DaemonSets, v.PDBs, v.objects()
	x := v.Pods
	obs.pending, obs.bound = a.pending.pick(x.Unbound()), x.Bound()
	obs.index, obs.indexGen = x, x.Gen()
	// The loop's snapshot holds this loop's objects from its next sync on.
	a.snapshots.setObjects(obs.objects)
	return obs, nil
}

// sortPending orders pending pods by creation time, namespace and name.
// The keys are copied next to each other first: tens of thousands of
// pods sort several times faster than through their pointers.
func sortPending(pods []*corev1.Pod) {
	type key struct {
		sec      int64
		nsec     int
		ns, name string
		pod      *corev1.Pod
	}
	keys := make([]key, len(pods))
	for i, p := range pods {
		t := p.CreationTimestamp.Time
		keys[i] = key{sec: t.Unix(), nsec: t.Nanosecond(), ns: p.Namespace, name: p.Name, pod: p}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec), cmp.Compare(a.ns, b.ns), cmp.Compare(a.name, b.name))
	})
	for i := range keys {
		pods[i] = keys[i].pod
	}
}

// IsUnschedulable reports whether kube-scheduler gave up on the pod: not
// bound, not terminating, and PodScheduled=False with reason Unschedulable.
func IsUnschedulable(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// isActiveBound reports whether a pod occupies its node.
func isActiveBound(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}
