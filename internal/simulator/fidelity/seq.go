package fidelity

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/simulator"
)

// Verdicts of FilterSchedulable's own decisions in a sequence.
const (
	// PlacedHere is the simulator's reason on the node FilterSchedulable
	// put the pod on.
	PlacedHere = "placed here by FilterSchedulable"
	// LeftPending is the simulator's filter for a pod FilterSchedulable
	// placed nowhere, on a node kube-scheduler finds feasible.
	LeftPending = "FilterSchedulable left it pending"
)

// ReplicaCase derives a placement case from a generated cluster: up to
// four of its pending pods become templates of one to eight replicas each
// (one controller per template, all created at the same moment), so that
// FilterSchedulable places groups whose topology counters, ports, volumes
// and claims change as it goes.
func ReplicaCase(c *Cluster) *Cluster {
	out := c.Clone()
	out.Pending = nil
	for t, tmpl := range c.Pending[:min(4, len(c.Pending))] {
		n := 1 + int(uint64(c.Seed)>>(3*t)%8)
		owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("rs-%s", tmpl.Name),
			UID: types.UID(fmt.Sprintf("rs-%d-%s", c.Seed, tmpl.Name)), Controller: ptr.To(true)}
		for r := range n {
			p := tmpl.DeepCopy()
			p.Name = fmt.Sprintf("%s-r%d", tmpl.Name, r)
			p.UID = types.UID(fmt.Sprintf("%s-%d", p.UID, r))
			p.OwnerReferences = []metav1.OwnerReference{owner}
			out.Pending = append(out.Pending, p)
		}
	}
	return out
}

// schedulingOrder is the order FilterSchedulable decides the pods in when
// each controller's pods are consecutive and all were created at once:
// higher priority first, ties in input order.
func schedulingOrder(pods []*corev1.Pod) []*corev1.Pod {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b *corev1.Pod) int {
		return int(ptr.Deref(b.Spec.Priority, 0)) - int(ptr.Deref(a.Spec.Priority, 0))
	})
	return out
}

// Sequence is a placement case as both sides see it: the pods in
// scheduling order, where FilterSchedulable put each ("" for none), and
// the simulator's CheckFit of each pod on every node with the earlier
// placements bound.
type Sequence struct {
	Cluster    *Cluster
	Placements []string
	Sim        [][]*simulator.FitError
}

// SimulateSequence runs FilterSchedulable over the cluster's pending pods and
// replays its placements with CheckFit. The cluster's pending pods must
// be grouped by controller and created together (ReplicaCase).
func SimulateSequence(c *Cluster) (*Sequence, error) {
	snap, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	res := simulator.FilterSchedulable(snap, c.Pending, simulator.FilterOptions{})
	placed := map[*corev1.Pod]string{}
	for _, p := range res.Placements {
		placed[p.Pod] = p.NodeName
	}
	seq := &Sequence{Cluster: c.Clone()}
	order := schedulingOrder(c.Pending)
	var placedOrder []*corev1.Pod
	for _, p := range order {
		if _, ok := placed[p]; ok {
			placedOrder = append(placedOrder, p)
		}
	}
	for i, p := range res.Placements {
		if placedOrder[i] != p.Pod {
			return nil, fmt.Errorf("FilterSchedulable placed %s/%s as number %d, the predicted scheduling order has %s/%s",
				p.Pod.Namespace, p.Pod.Name, i, placedOrder[i].Namespace, placedOrder[i].Name)
		}
	}
	seq.Cluster.Pending = nil
	replay, err := c.Snapshot()
	if err != nil {
		return nil, err
	}
	for _, p := range order {
		seq.Cluster.Pending = append(seq.Cluster.Pending, p.DeepCopy())
		row := make([]*simulator.FitError, len(c.Nodes))
		for j, n := range c.Nodes {
			row[j] = replay.CheckFit(p, n.Name)
		}
		seq.Sim = append(seq.Sim, row)
		seq.Placements = append(seq.Placements, placed[p])
		if node := placed[p]; node != "" {
			bound := p.DeepCopy()
			bound.Spec.NodeName = node
			if err := replay.AddPod(bound); err != nil {
				return nil, err
			}
		}
	}
	return seq, nil
}

// Request returns the oracle request that schedules the sequence's pods
// in order with the same placements.
func (s *Sequence) Request() *Request {
	r := s.Cluster.Request()
	r.Placements = s.Placements
	return r
}

// Compare counts the sequence's pairs into the tally and returns every
// disagreement: on CheckFit's verdicts, and on FilterSchedulable's
// decisions (a placement kube-scheduler finds infeasible, a pod left
// pending that kube-scheduler finds feasible somewhere).
func (s *Sequence) Compare(resp *Response, t *Tally) ([]Disagreement, error) {
	ds, err := Compare(s.Cluster, resp, s.Sim, t)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		ds[i].Sequence = s
	}
	c := s.Cluster
	for i, node := range s.Placements {
		if notSimulated(s.Sim[i]) {
			continue // FilterSchedulable leaves such pods pending by design
		}
		r := &resp.Results[i]
		t.Placements++
		for j, n := range c.Nodes {
			o := Verdict{Filter: r.Plugins[j], Reason: r.Reasons[j]}
			switch {
			case node == n.Name && o.Filter != "":
				ds = append(ds, Disagreement{Cluster: c, Pod: i, Node: j, Oracle: o, Simulator: Verdict{Reason: PlacedHere}, Sequence: s})
			case node == "" && o.Filter == "":
				ds = append(ds, Disagreement{Cluster: c, Pod: i, Node: j, Oracle: o, Simulator: Verdict{Filter: LeftPending}, Sequence: s})
			default:
				continue
			}
			t.PlacementDisagreements++
			break
		}
	}
	return ds, nil
}

func notSimulated(row []*simulator.FitError) bool {
	for _, fe := range row {
		if fe != nil && fe.Filter == simulator.FilterNotSimulated {
			return true
		}
	}
	return false
}
