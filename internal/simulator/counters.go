package simulator

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// counter is a per-run count of bound pods per topology domain that is
// kept current as the run places pods and adds nodes.
type counter interface {
	placed(e *podEntry, n *nodeInfo)
	nodeAdded(n *nodeInfo)
	// indexLabels returns labels one of which every counted pod carries;
	// ok is false when the counter may count pods without any of them.
	indexLabels() (labels []labelKV, ok bool)
}

// spreadCounter counts, for one spread constraint of one kind of pod, the
// matching pods per domain over the eligible nodes.
type spreadCounter struct {
	ns          string
	c           *scheduling.SpreadConstraint
	keys        []string
	nm          scheduling.NodeMatcher
	tolerations []corev1.Toleration
	counts      *scheduling.DomainCounts
	eligible    []int8
}

func newSpreadCounter(s *Snapshot, spec *podSpec, c *scheduling.SpreadConstraint) *spreadCounter {
	sc := &spreadCounter{
		ns: spec.namespace, c: c, nm: spec.nodeMatcher, tolerations: spec.tolerations,
		counts: scheduling.NewDomainCounts(),
	}
	for i := range spec.spread {
		sc.keys = append(sc.keys, spec.spread[i].TopologyKey)
	}
	for _, n := range s.nodes {
		sc.nodeAdded(n)
	}
	s.eachCandidate(c.IndexKey, c.IndexValue, func(e *podEntry) {
		if sc.c.CountsIndexed(sc.ns, e.pod) && sc.isEligible(e.node) {
			sc.counts.Add(e.node.node.Labels[sc.c.TopologyKey], 1)
		}
	})
	return sc
}

// isEligible reports whether the node carries every topology key of the
// pod's constraints and passes the constraint's node inclusion policies.
func (sc *spreadCounter) isEligible(n *nodeInfo) bool {
	if n.id < len(sc.eligible) && sc.eligible[n.id] != 0 {
		return sc.eligible[n.id] == 1
	}
	ok := hasKeys(n.node, sc.keys) && sc.c.NodeEligible(n.node, sc.nm, sc.tolerations)
	for n.id >= len(sc.eligible) {
		sc.eligible = append(sc.eligible, 0)
	}
	sc.eligible[n.id] = 2
	if ok {
		sc.eligible[n.id] = 1
	}
	return ok
}

func hasKeys(node *corev1.Node, keys []string) bool {
	for _, k := range keys {
		if _, ok := node.Labels[k]; !ok {
			return false
		}
	}
	return true
}

func (sc *spreadCounter) nodeAdded(n *nodeInfo) {
	if sc.isEligible(n) {
		sc.counts.AddDomain(n.node.Labels[sc.c.TopologyKey])
	}
}

func (sc *spreadCounter) indexLabels() ([]labelKV, bool) {
	if sc.c.IndexKey == "" {
		return nil, false
	}
	return []labelKV{{sc.c.IndexKey, sc.c.IndexValue}}, true
}

func (sc *spreadCounter) placed(e *podEntry, n *nodeInfo) {
	if sc.c.CountsPod(sc.ns, e.pod) && sc.isEligible(n) {
		sc.counts.Add(n.node.Labels[sc.c.TopologyKey], 1)
	}
}

// termCounter counts, per term, the pods selected per domain. With all
// set (pod affinity) a pod counts only when it matches every term; else
// (anti-affinity) each matching term counts on its own.
type termCounter struct {
	terms  []scheduling.AffinityTerm
	all    bool
	nsl    scheduling.NamespaceLabels
	counts []map[string]int
	total  int
}

func newTermCounter(s *Snapshot, terms []scheduling.AffinityTerm, all bool) *termCounter {
	tc := &termCounter{terms: terms, all: all, nsl: s.namespaceLabels, counts: make([]map[string]int, len(terms))}
	for i := range tc.counts {
		tc.counts[i] = map[string]int{}
	}
	count := func(e *podEntry) { tc.placed(e, e.node) }
	if all {
		s.eachCandidate(terms[0].IndexKey, terms[0].IndexValue, count)
		return tc
	}
	for i := range terms {
		one := &termCounter{terms: terms[i : i+1], nsl: tc.nsl, counts: tc.counts[i : i+1]}
		s.eachCandidate(terms[i].IndexKey, terms[i].IndexValue, func(e *podEntry) { one.placed(e, e.node) })
		tc.total += one.total
	}
	return tc
}

func (tc *termCounter) placed(e *podEntry, n *nodeInfo) {
	if tc.all {
		for i := range tc.terms {
			if !tc.terms[i].Matches(e.pod, tc.nsl) {
				return
			}
		}
	}
	for i := range tc.terms {
		t := &tc.terms[i]
		if !tc.all && !t.Matches(e.pod, tc.nsl) {
			continue
		}
		if v, ok := n.node.Labels[t.TopologyKey]; ok {
			tc.counts[i][v]++
			tc.total++
		}
	}
}

func (tc *termCounter) nodeAdded(*nodeInfo) {}

func (tc *termCounter) indexLabels() ([]labelKV, bool) {
	if tc.all {
		t := &tc.terms[0]
		return []labelKV{{t.IndexKey, t.IndexValue}}, t.IndexKey != ""
	}
	var out []labelKV
	for i := range tc.terms {
		t := &tc.terms[i]
		if t.IndexKey == "" {
			return nil, false
		}
		if !slices.Contains(out, labelKV{t.IndexKey, t.IndexValue}) {
			out = append(out, labelKV{t.IndexKey, t.IndexValue})
		}
	}
	return out, true
}

// termsKey identifies a set of terms for sharing counters within a run.
func termsKey(prefix string, terms []scheduling.AffinityTerm) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := range terms {
		t := &terms[i]
		fmt.Fprintf(&b, "|%s|%v|%s|%s", t.TopologyKey, t.Namespaces, t.Selector, selectorString(t))
	}
	return b.String()
}

func selectorString(t *scheduling.AffinityTerm) string {
	if t.NamespaceSelector == nil {
		return "<none>"
	}
	return "ns:" + t.NamespaceSelector.String()
}

// spreadKey identifies a spread counter for sharing within a run.
func spreadKey(spec *podSpec, c *scheduling.SpreadConstraint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%t|%t", spec.namespace, c.TopologyKey, c.Selector, c.HonorNodeAffinity, c.HonorNodeTaints)
	for i := range spec.spread {
		b.WriteString("|" + spec.spread[i].TopologyKey)
	}
	if c.HonorNodeAffinity && !spec.nodeMatcher.IsEmpty() {
		a := spec.pod.Spec.Affinity
		fmt.Fprintf(&b, "|%v", spec.pod.Spec.NodeSelector)
		if a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			fmt.Fprintf(&b, "|%+v", *a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		}
	}
	if c.HonorNodeTaints {
		fmt.Fprintf(&b, "|%+v", spec.tolerations)
	}
	return b.String()
}
