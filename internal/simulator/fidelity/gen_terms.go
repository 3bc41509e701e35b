package fidelity

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func (g *gen) tolerations(p *corev1.Pod) {
	g.feature("tolerations")
	for range 1 + g.r.IntN(3) {
		t := corev1.Toleration{}
		switch g.r.IntN(8) {
		case 0:
			g.feature("tolerations/all (empty key, Exists)")
			t.Operator = corev1.TolerationOpExists
		case 1:
			g.feature("tolerations/cordon")
			t = corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
		default:
			taint := pick(g, taintVocabulary)
			t.Key = taint.Key
			if g.chance(0.5) {
				t.Operator = corev1.TolerationOpExists
			} else {
				t.Operator = pick(g, []corev1.TolerationOperator{"", corev1.TolerationOpEqual})
				t.Value = pick(g, []string{taint.Value, taint.Value, "other"})
			}
			t.Effect = pick(g, []corev1.TaintEffect{"", taint.Effect, taint.Effect, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute})
			if t.Effect == corev1.TaintEffectNoExecute && g.chance(0.3) {
				t.TolerationSeconds = ptr.To(int64(300))
			}
		}
		p.Spec.Tolerations = append(p.Spec.Tolerations, t)
	}
}

// labelValues are the values node selectors draw for each node label.
var labelValues = map[string][]string{
	keyZone: zones, keyRegion: {"r1", "r2"}, keyRack: racks, keyPool: pools, keyCores: cores, keyGPU: {"true"},
	keyHost: {"n0", "n1", "n2", "host-n1", "n5"}, "example.com/absent": {"x"},
}

var nodeLabelKeys = []string{keyZone, keyRegion, keyRack, keyPool, keyCores, keyGPU, keyHost, "example.com/absent"}

func (g *gen) nodeSelector(p *corev1.Pod) {
	g.feature("nodeSelector")
	p.Spec.NodeSelector = map[string]string{}
	for _, k := range some(g, nodeLabelKeys, 2) {
		p.Spec.NodeSelector[k] = pick(g, labelValues[k])
	}
}

func (g *gen) nodeAffinity(p *corev1.Pod) {
	g.feature("node-affinity")
	ns := &corev1.NodeSelector{}
	for range 1 + g.r.IntN(3) {
		var term corev1.NodeSelectorTerm
		for range g.r.IntN(3) {
			term.MatchExpressions = append(term.MatchExpressions, g.nodeRequirement())
		}
		if g.chance(0.2) {
			op := pick(g, []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn})
			g.feature("node-affinity/matchFields " + string(op))
			name := pick(g, g.c.Nodes).Name
			if g.chance(0.1) {
				name = "absent-node"
			}
			term.MatchFields = append(term.MatchFields, corev1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: op, Values: []string{name}})
		}
		ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
	}
	p.Spec.Affinity = affinityOf(p)
	p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: ns}
}

func (g *gen) nodeRequirement() corev1.NodeSelectorRequirement {
	ops := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
		corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}
	op := pick(g, ops)
	g.feature("node-affinity/" + string(op))
	key := pick(g, nodeLabelKeys)
	r := corev1.NodeSelectorRequirement{Key: key, Operator: op}
	switch op {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		r.Values = some(g, labelValues[key], 2)
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if g.chance(0.8) {
			r.Key = keyCores
		}
		r.Values = []string{pick(g, cores)}
	}
	return r
}

func affinityOf(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		return &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

// topologyKeys are drawn for pod (anti-)affinity and spread: hostname and
// zone mostly, a custom key and region sometimes.
func (g *gen) topologyKey(what string) string {
	k := pick(g, []string{keyHost, keyHost, keyZone, keyZone, keyRack, keyRegion})
	names := map[string]string{keyHost: "hostname", keyZone: "zone", keyRack: "custom key", keyRegion: "region"}
	g.feature(what + "/topology " + names[k])
	return k
}

// podSelector returns a label selector over the pod label vocabulary.
func (g *gen) podSelector(what string) *metav1.LabelSelector {
	switch x := g.r.IntN(20); {
	case x < 12:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, apps)}}
	case x < 17:
		g.feature(what + "/selector expressions")
		ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
		sel := &metav1.LabelSelector{}
		for range 1 + g.r.IntN(2) {
			key := pick(g, []string{"app", "tier", "ver"})
			req := metav1.LabelSelectorRequirement{Key: key, Operator: pick(g, ops)}
			if req.Operator == metav1.LabelSelectorOpIn || req.Operator == metav1.LabelSelectorOpNotIn {
				req.Values = some(g, map[string][]string{"app": apps, "tier": tiers, "ver": versions}[key], 2)
			}
			sel.MatchExpressions = append(sel.MatchExpressions, req)
		}
		return sel
	case x < 18:
		g.feature(what + "/selector empty (all pods)")
		return &metav1.LabelSelector{}
	case x < 19:
		g.feature(what + "/selector nil (no pods)")
		return nil
	default:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, apps), "tier": pick(g, tiers)}}
	}
}

func (g *gen) affinityTerms() []corev1.PodAffinityTerm {
	var out []corev1.PodAffinityTerm
	for range 1 + g.r.IntN(2) {
		t := corev1.PodAffinityTerm{LabelSelector: g.podSelector("pod-affinity"), TopologyKey: g.topologyKey("pod-affinity")}
		switch g.r.IntN(10) {
		case 0, 1:
			g.feature("pod-affinity/namespaces list")
			t.Namespaces = some(g, namespaces, 2)
		case 2:
			g.feature("pod-affinity/namespaceSelector empty (all)")
			t.NamespaceSelector = &metav1.LabelSelector{}
		case 3:
			g.feature("pod-affinity/namespaceSelector labels")
			t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": pick(g, []string{"x", "y"})}}
			if g.chance(0.3) {
				t.Namespaces = []string{pick(g, namespaces)}
			}
		}
		out = append(out, t)
	}
	return out
}

func (g *gen) podAffinity(p *corev1.Pod, anti bool) {
	a := affinityOf(p)
	terms := g.affinityTerms()
	if app := p.Labels["app"]; app != "" && g.chance(0.35) {
		g.feature("pod-affinity/selects its own pods")
		terms[0].LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}
	if anti {
		g.feature("pod-anti-affinity")
		a.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	} else {
		g.feature("pod-affinity")
		a.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}
	}
	p.Spec.Affinity = a
}

func (g *gen) spread(p *corev1.Pod) {
	g.feature("spread")
	for range 1 + g.r.IntN(2) {
		c := corev1.TopologySpreadConstraint{MaxSkew: int32(pick(g, []int{1, 1, 1, 2, 3})), TopologyKey: g.topologyKey("spread"),
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: g.podSelector("spread")}
		if g.chance(0.4) && p.Labels["app"] != "" {
			c.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}}
		}
		if g.chance(0.2) {
			g.feature("spread/ScheduleAnyway")
			c.WhenUnsatisfiable = corev1.ScheduleAnyway
		} else if g.chance(0.3) {
			g.feature("spread/minDomains")
			c.MinDomains = ptr.To(int32(1 + g.r.IntN(5)))
		}
		policies := []*corev1.NodeInclusionPolicy{nil, nil, ptr.To(corev1.NodeInclusionPolicyHonor), ptr.To(corev1.NodeInclusionPolicyIgnore)}
		if c.NodeAffinityPolicy = pick(g, policies); c.NodeAffinityPolicy != nil {
			g.feature("spread/nodeAffinityPolicy " + string(*c.NodeAffinityPolicy))
		}
		if c.NodeTaintsPolicy = pick(g, policies); c.NodeTaintsPolicy != nil {
			g.feature("spread/nodeTaintsPolicy " + string(*c.NodeTaintsPolicy))
		}
		if g.chance(0.25) {
			g.feature("spread/matchLabelKeys")
			c.MatchLabelKeys = some(g, []string{"ver", "tier", "absent"}, 2)
		}
		if c.MaxSkew > 1 {
			g.feature("spread/maxSkew > 1")
		}
		if !slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(o corev1.TopologySpreadConstraint) bool {
			return o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable
		}) { // the API server rejects duplicates
			p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
		}
	}
}
