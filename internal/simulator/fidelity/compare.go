package fidelity

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kscale/kscale/internal/simulator"
)

// Feasible is the verdict name of a pair where the pod fits.
const Feasible = "(feasible)"

// Verdict is one side's answer for a pod on a node.
type Verdict struct {
	// Filter is the rejecting plugin, or "" when the pod fits.
	Filter string
	// Reason is the rejection's message.
	Reason string
	// Error is true when the oracle's plugin failed with an error.
	Error bool
}

func (v Verdict) String() string {
	if v.Filter == "" {
		return "fits"
	}
	s := v.Filter + ": " + v.Reason
	if v.Error {
		s += " (error)"
	}
	return s
}

// Disagreement is a pair on which the simulator and the oracle differ.
type Disagreement struct {
	// Cluster is the case; Pod and Node index its Pending and Nodes.
	Cluster   *Cluster
	Pod, Node int
	Oracle    Verdict
	Simulator Verdict
	// Sequence is set for a disagreement of a placement case: the pods
	// were scheduled in order, each with the earlier placements bound.
	Sequence *Sequence
}

func (d *Disagreement) String() string {
	p, n := d.Cluster.Pending[d.Pod], d.Cluster.Nodes[d.Node]
	return fmt.Sprintf("pod %s/%s on node %s: kube-scheduler says %s; the simulator says %s",
		p.Namespace, p.Name, n.Name, d.Oracle, d.Simulator)
}

// FilterTally counts the pairs one filter decided.
type FilterTally struct {
	// Oracle and Simulator count the pairs each side rejected with the
	// filter (or found feasible, for Feasible); Agreed those both did.
	Oracle, Simulator, Agreed int64
	// NotSimulated counts the oracle's verdicts of this filter for pairs the
	// simulator answered "not simulated".
	NotSimulated int64
}

// Tally accumulates comparisons.
type Tally struct {
	// Pairs is the number of (pod, node) pairs compared.
	Pairs int64
	// Clusters is the number of clusters compared.
	Clusters int64
	// NotSimulated counts pairs the simulator answered "not simulated".
	NotSimulated int64
	// Disagreements counts pairs on which the two differ.
	Disagreements int64
	// Placements counts FilterSchedulable's decisions checked in placement
	// cases, PlacementDisagreements those kube-scheduler contradicts.
	Placements, PlacementDisagreements int64
	// Filters is keyed by filter name (Feasible for fitting pairs).
	Filters map[string]*FilterTally
	// Features counts the generated pending pods per feature they use.
	Features map[string]int64
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{Filters: map[string]*FilterTally{}, Features: map[string]int64{}}
}

func (t *Tally) filter(name string) *FilterTally {
	if name == "" {
		name = Feasible
	}
	f := t.Filters[name]
	if f == nil {
		f = &FilterTally{}
		t.Filters[name] = f
	}
	return f
}

// Add merges another tally into t.
func (t *Tally) Add(o *Tally) {
	t.Pairs += o.Pairs
	t.Clusters += o.Clusters
	t.NotSimulated += o.NotSimulated
	t.Disagreements += o.Disagreements
	t.Placements += o.Placements
	t.PlacementDisagreements += o.PlacementDisagreements
	for k, v := range o.Filters {
		f := t.filter(k)
		f.Oracle += v.Oracle
		f.Simulator += v.Simulator
		f.Agreed += v.Agreed
		f.NotSimulated += v.NotSimulated
	}
	for k, v := range o.Features {
		t.Features[k] += v
	}
}

// Compare compares the simulator's verdicts with the oracle's response
// for the cluster, counts them into the tally and returns every
// disagreement.
func Compare(c *Cluster, resp *Response, sim [][]*simulator.FitError, t *Tally) ([]Disagreement, error) {
	if len(resp.Results) != len(c.Pending) {
		return nil, fmt.Errorf("oracle answered %d pods, want %d", len(resp.Results), len(c.Pending))
	}
	t.Clusters++
	var out []Disagreement
	for i := range c.Pending {
		r := &resp.Results[i]
		if len(r.Plugins) != len(c.Nodes) {
			return nil, fmt.Errorf("oracle answered %d nodes, want %d", len(r.Plugins), len(c.Nodes))
		}
		for j := range c.Nodes {
			o := Verdict{Filter: r.Plugins[j], Reason: r.Reasons[j], Error: len(r.Errors) > 0 && r.Errors[j]}
			var s Verdict
			if fe := sim[i][j]; fe != nil {
				s = Verdict{Filter: fe.Filter, Reason: fe.Reason}
			}
			t.Pairs++
			if s.Filter == simulator.FilterNotSimulated {
				t.NotSimulated++
				t.filter(o.Filter).NotSimulated++
				continue
			}
			t.filter(o.Filter).Oracle++
			t.filter(s.Filter).Simulator++
			if o.Filter == s.Filter {
				t.filter(o.Filter).Agreed++
				continue
			}
			t.Disagreements++
			out = append(out, Disagreement{Cluster: c, Pod: i, Node: j, Oracle: o, Simulator: s})
		}
	}
	return out, nil
}

// Report renders the tally as a table: pairs, disagreements and, per
// filter, how many pairs each side decided with it.
func (t *Tally) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "clusters: %d, pod-node pairs compared: %d, disagreements: %d, not simulated: %d\n",
		t.Clusters, t.Pairs, t.Disagreements, t.NotSimulated)
	fmt.Fprintf(&b, "FilterSchedulable decisions checked in sequence: %d, contradicted: %d\n", t.Placements, t.PlacementDisagreements)
	fmt.Fprintf(&b, "%-22s %12s %12s %12s %12s\n", "filter", "oracle", "simulator", "agreed", "not-simul.")
	for _, name := range slices.Sorted(maps.Keys(t.Filters)) {
		f := t.Filters[name]
		fmt.Fprintf(&b, "%-22s %12d %12d %12d %12d\n", name, f.Oracle, f.Simulator, f.Agreed, f.NotSimulated)
	}
	if len(t.Features) > 0 {
		b.WriteString("pending pods per generated feature:\n")
		for _, name := range slices.Sorted(maps.Keys(t.Features)) {
			fmt.Fprintf(&b, "  %-40s %10d\n", name, t.Features[name])
		}
	}
	return b.String()
}
