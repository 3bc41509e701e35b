package scheduling

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// Reasons of kube-scheduler's PodTopologySpread filter.
const (
	ReasonSpread             = "node(s) didn't match pod topology spread constraints"
	ReasonSpreadMissingLabel = ReasonSpread + " (missing required label)"
)

// SpreadConstraint is a parsed whenUnsatisfiable=DoNotSchedule topology
// spread constraint.
type SpreadConstraint struct {
	// MaxSkew is the largest allowed difference to the global minimum.
	MaxSkew int32
	// TopologyKey is the node label whose value forms the domain.
	TopologyKey string
	// Selector selects the counted pods (in the pod's namespace), with
	// matchLabelKeys merged in.
	Selector labels.Selector
	// MinDomains is the number of eligible domains below which the global
	// minimum counts as 0 (1 when unset).
	MinDomains int32
	// HonorNodeAffinity counts only nodes matching the pod's node
	// affinity/selector (nodeAffinityPolicy Honor, the default).
	HonorNodeAffinity bool
	// HonorNodeTaints counts only nodes whose taints the pod tolerates
	// (nodeTaintsPolicy Honor; the default is Ignore).
	HonorNodeTaints bool
	// IndexKey and IndexValue are one label the counted pods must carry,
	// for index lookups; empty when there is none.
	IndexKey, IndexValue string
	// IndexOnly is true when the selector is exactly IndexKey=IndexValue.
	IndexOnly bool
}

// HardSpreadConstraints parses the pod's DoNotSchedule spread constraints.
func HardSpreadConstraints(pod *corev1.Pod) ([]SpreadConstraint, error) {
	var out []SpreadConstraint
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		sc, err := parseSpread(pod, c)
		if err != nil {
			return nil, fmt.Errorf("parsing topology spread constraint %d: %w", i, err)
		}
		out = append(out, sc)
	}
	return out, nil
}

func parseSpread(pod *corev1.Pod, c *corev1.TopologySpreadConstraint) (SpreadConstraint, error) {
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		return SpreadConstraint{}, fmt.Errorf("parsing labelSelector: %w", err)
	}
	sc := SpreadConstraint{
		MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, MinDomains: 1,
		HonorNodeAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
		HonorNodeTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
	}
	if c.MinDomains != nil {
		sc.MinDomains = *c.MinDomains
	}
	sc.IndexKey, sc.IndexValue = IndexLabel(c.LabelSelector)
	sc.IndexOnly = isSingleLabel(c.LabelSelector)
	for _, key := range c.MatchLabelKeys {
		v, ok := pod.Labels[key]
		if !ok {
			continue
		}
		req, err := labels.NewRequirement(key, selection.In, []string{v})
		if err != nil {
			return SpreadConstraint{}, fmt.Errorf("merging matchLabelKeys %q: %w", key, err)
		}
		sel = sel.Add(*req)
		sc.IndexOnly = false
		if sc.IndexKey == "" {
			sc.IndexKey, sc.IndexValue = key, v
		}
	}
	sc.Selector = sel
	return sc, nil
}

// CountsPod reports whether a pod is counted by the constraint of a pod in
// namespace ns: same namespace, not terminating, labels selected. An empty
// selector counts nothing, as in kube-scheduler.
func (c *SpreadConstraint) CountsPod(ns string, pod *corev1.Pod) bool {
	if pod.Namespace != ns || pod.DeletionTimestamp != nil || c.Selector.Empty() {
		return false
	}
	return c.Selector.Matches(labels.Set(pod.Labels))
}

// CountsIndexed is CountsPod for a pod found in the label index under the
// constraint's IndexKey=IndexValue.
func (c *SpreadConstraint) CountsIndexed(ns string, pod *corev1.Pod) bool {
	if pod.Namespace != ns || pod.DeletionTimestamp != nil {
		return false
	}
	if c.IndexOnly {
		return true
	}
	return !c.Selector.Empty() && c.Selector.Matches(labels.Set(pod.Labels))
}

// NodeEligible reports whether the node's pods count towards the
// constraint for a pod with the given node matcher and tolerations.
func (c *SpreadConstraint) NodeEligible(node *corev1.Node, nm NodeMatcher, tolerations []corev1.Toleration) bool {
	if c.HonorNodeAffinity && !nm.Match(node) {
		return false
	}
	if c.HonorNodeTaints {
		if _, bad := UntoleratedTaint(node.Spec.Taints, tolerations); bad {
			return false
		}
	}
	return true
}

// DomainCounts holds one constraint's matching-pod count per domain value
// over the eligible nodes, and the global minimum, kept up to date in
// amortised constant time.
type DomainCounts struct {
	counts map[string]int
	min    int
	atMin  int
	stale  bool
}

// NewDomainCounts returns empty counts.
func NewDomainCounts() *DomainCounts {
	return &DomainCounts{counts: map[string]int{}, min: math.MaxInt32}
}

// AddDomain makes the value a domain (with count 0 when new).
func (d *DomainCounts) AddDomain(value string) {
	if _, ok := d.counts[value]; !ok {
		d.Add(value, 0)
	}
}

// Add adds n matching pods to the domain, making it a domain if needed.
func (d *DomainCounts) Add(value string, n int) {
	if d.stale {
		d.recompute()
	}
	old, ok := d.counts[value]
	now := old + n
	d.counts[value] = now
	if ok && old == d.min {
		d.atMin--
	}
	switch {
	case now < d.min:
		d.min, d.atMin = now, 1
	case now == d.min:
		d.atMin++
	}
	if d.atMin == 0 {
		d.stale = true
	}
}

func (d *DomainCounts) recompute() {
	d.min, d.atMin = math.MaxInt32, 0
	for _, n := range d.counts {
		switch {
		case n < d.min:
			d.min, d.atMin = n, 1
		case n == d.min:
			d.atMin++
		}
	}
	d.stale = false
}

// Count returns the domain's count (0 for unknown domains).
func (d *DomainCounts) Count(value string) int { return d.counts[value] }

// Domains returns the number of eligible domains.
func (d *DomainCounts) Domains() int { return len(d.counts) }

// Min returns the global minimum over eligible domains, or MaxInt32 when
// there are none.
func (d *DomainCounts) Min() int {
	if d.stale {
		d.recompute()
	}
	return d.min
}

// Fits applies kube-scheduler's skew rule for placing one pod in the
// domain: count + selfMatch - globalMin <= maxSkew, where the global
// minimum is 0 while there are fewer eligible domains than minDomains.
func (c *SpreadConstraint) Fits(d *DomainCounts, value string, selfMatch bool) bool {
	m := d.Min()
	if d.Domains() < int(c.MinDomains) {
		m = 0
	}
	self := 0
	if selfMatch {
		self = 1
	}
	return d.Count(value)+self-m <= int(c.MaxSkew)
}
