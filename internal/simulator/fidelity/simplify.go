package fidelity

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// podSimplifications lists every single-step simplification of the pod:
// dropping one label, container, resource, toleration, selector entry,
// term, expression, constraint or volume, or clearing a field. Each
// returns whether it changed the pod.
func podSimplifications(p *corev1.Pod) []func() bool {
	var out []func() bool
	add := func(f func() bool) { out = append(out, f) }
	for _, k := range slices.Sorted(maps.Keys(p.Labels)) {
		add(func() bool { delete(p.Labels, k); return true })
	}
	if len(p.Spec.Containers) > 1 {
		for i := range p.Spec.Containers {
			add(func() bool { p.Spec.Containers = slices.Delete(p.Spec.Containers, i, i+1); return true })
		}
	}
	for i := range p.Spec.Containers {
		out = append(out, containerSimplifications(&p.Spec.Containers[i])...)
	}
	for i := range p.Spec.InitContainers {
		add(func() bool { p.Spec.InitContainers = slices.Delete(p.Spec.InitContainers, i, i+1); return true })
	}
	for i := range p.Spec.InitContainers {
		out = append(out, containerSimplifications(&p.Spec.InitContainers[i])...)
	}
	for i := range p.Spec.Tolerations {
		add(func() bool { p.Spec.Tolerations = slices.Delete(p.Spec.Tolerations, i, i+1); return true })
	}
	for _, k := range slices.Sorted(maps.Keys(p.Spec.NodeSelector)) {
		add(func() bool { delete(p.Spec.NodeSelector, k); return true })
	}
	for i := range p.Spec.TopologySpreadConstraints {
		add(func() bool {
			p.Spec.TopologySpreadConstraints = slices.Delete(p.Spec.TopologySpreadConstraints, i, i+1)
			return true
		})
		c := &p.Spec.TopologySpreadConstraints[i]
		add(func() bool { ok := c.MinDomains != nil; c.MinDomains = nil; return ok })
		add(func() bool { ok := c.NodeAffinityPolicy != nil; c.NodeAffinityPolicy = nil; return ok })
		add(func() bool { ok := c.NodeTaintsPolicy != nil; c.NodeTaintsPolicy = nil; return ok })
		add(func() bool { ok := c.MatchLabelKeys != nil; c.MatchLabelKeys = nil; return ok })
		add(func() bool { ok := c.MaxSkew != 1; c.MaxSkew = 1; return ok })
	}
	for i := range p.Spec.Volumes {
		add(func() bool { p.Spec.Volumes = slices.Delete(p.Spec.Volumes, i, i+1); return true })
	}
	if a := p.Spec.Affinity; a != nil {
		out = append(out, affinitySimplifications(p, a)...)
	}
	s := &p.Spec
	add(func() bool { ok := s.Overhead != nil; s.Overhead = nil; return ok })
	add(func() bool { ok := s.Resources != nil; s.Resources = nil; return ok })
	add(func() bool { ok := s.NodeName != "" && p.Status.Phase == corev1.PodPending; s.NodeName = ""; return ok })
	add(func() bool { ok := s.Priority != nil; s.Priority = nil; return ok })
	add(func() bool { ok := s.ResourceClaims != nil; s.ResourceClaims = nil; return ok })
	add(func() bool { ok := s.HostNetwork; s.HostNetwork, s.HostUsers = false, nil; return ok })
	add(func() bool { ok := p.OwnerReferences != nil; p.OwnerReferences = nil; return ok })
	add(func() bool { ok := p.DeletionTimestamp != nil; p.DeletionTimestamp = nil; return ok })
	add(func() bool { ok := p.Status.ContainerStatuses != nil; p.Status.ContainerStatuses = nil; return ok })
	add(func() bool { ok := p.Status.Conditions != nil; p.Status.Conditions = nil; return ok })
	return out
}

func containerSimplifications(c *corev1.Container) []func() bool {
	var out []func() bool
	for _, r := range slices.Sorted(maps.Keys(c.Resources.Requests)) {
		out = append(out, func() bool { delete(c.Resources.Requests, r); return true })
	}
	for i := range c.Ports {
		out = append(out, func() bool { c.Ports = slices.Delete(c.Ports, i, i+1); return true })
	}
	out = append(out, func() bool {
		ok := c.RestartPolicyRules != nil
		c.RestartPolicyRules, c.RestartPolicy = nil, nil
		return ok
	})
	return out
}

func affinitySimplifications(p *corev1.Pod, a *corev1.Affinity) []func() bool {
	var out []func() bool
	add := func(f func() bool) { out = append(out, f) }
	if na := a.NodeAffinity; na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		add(func() bool { a.NodeAffinity = nil; return true })
		req := na.RequiredDuringSchedulingIgnoredDuringExecution
		for i := range req.NodeSelectorTerms {
			add(func() bool { req.NodeSelectorTerms = slices.Delete(req.NodeSelectorTerms, i, i+1); return true })
			t := &req.NodeSelectorTerms[i]
			for j := range t.MatchExpressions {
				add(func() bool { t.MatchExpressions = slices.Delete(t.MatchExpressions, j, j+1); return true })
			}
			for j := range t.MatchFields {
				add(func() bool { t.MatchFields = slices.Delete(t.MatchFields, j, j+1); return true })
			}
		}
	}
	if pa := a.PodAffinity; pa != nil {
		add(func() bool { a.PodAffinity = nil; return true })
		out = append(out, termSimplifications(&pa.RequiredDuringSchedulingIgnoredDuringExecution)...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		add(func() bool { a.PodAntiAffinity = nil; return true })
		out = append(out, termSimplifications(&pa.RequiredDuringSchedulingIgnoredDuringExecution)...)
	}
	add(func() bool { p.Spec.Affinity = nil; return true })
	return out
}

func termSimplifications(terms *[]corev1.PodAffinityTerm) []func() bool {
	var out []func() bool
	for i := range *terms {
		out = append(out, func() bool { *terms = slices.Delete(*terms, i, i+1); return true })
		t := &(*terms)[i]
		out = append(out,
			func() bool { ok := t.Namespaces != nil; t.Namespaces = nil; return ok },
			func() bool { ok := t.NamespaceSelector != nil; t.NamespaceSelector = nil; return ok })
	}
	return out
}

// nodeSimplifications lists the node's single-step simplifications:
// dropping one label, taint or declared feature list, uncordoning.
func nodeSimplifications(n *corev1.Node) []func() bool {
	var out []func() bool
	for _, k := range slices.Sorted(maps.Keys(n.Labels)) {
		out = append(out, func() bool { delete(n.Labels, k); return true })
	}
	for i := range n.Spec.Taints {
		out = append(out, func() bool { n.Spec.Taints = slices.Delete(n.Spec.Taints, i, i+1); return true })
	}
	out = append(out,
		func() bool { ok := n.Status.Capacity != nil; n.Status.Capacity = nil; return ok },
		func() bool { ok := n.Spec.Unschedulable; n.Spec.Unschedulable = false; return ok },
		func() bool { ok := n.Status.DeclaredFeatures != nil; n.Status.DeclaredFeatures = nil; return ok })
	return out
}
