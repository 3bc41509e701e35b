package mismatch

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
)

// Kind names what differs between a template and a real node.
type Kind string

// Kinds of differences.
const (
	// KindTaint is a taint on the real node that the template lacks.
	KindTaint Kind = "taint"
	// KindLabel is a template label the real node lacks or carries with
	// another value.
	KindLabel Kind = "label"
	// KindResource is less allocatable on the real node than on the
	// template.
	KindResource Kind = "resource"
	// KindPod is a DaemonSet or static pod on the real node that the
	// template does not hold.
	KindPod Kind = "pod"
)

// Difference is one way a real node differs from its group's template.
type Difference struct {
	// Kind says what differs.
	Kind Kind
	// Key is the taint or label key, resource name, or pod namespace/name.
	Key string
	// Template is the template's value ("" when it has none).
	Template string
	// Real is the real node's value ("" when it has none).
	Real string
}

// String describes the difference for events and the status ConfigMap.
func (d Difference) String() string {
	switch d.Kind {
	case KindTaint:
		return "taint " + d.Real + " not on the template"
	case KindLabel:
		if d.Real == "" {
			return fmt.Sprintf("label %s=%s of the template missing", d.Key, d.Template)
		}
		return fmt.Sprintf("label %s is %s, the template says %s", d.Key, d.Real, d.Template)
	case KindResource:
		return fmt.Sprintf("allocatable %s is %s, the template says %s", d.Key, d.Real, d.Template)
	default:
		return "pod " + d.Key + " not on the template"
	}
}

// Describe joins differences into one message.
func Describe(ds []Difference) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, "; ")
}

// lateResources are never compared: device plugins report them after the
// node is Ready, as the template estimator also assumes.
var lateResources = []corev1.ResourceName{"nvidia.com/gpu", "amd.com/gpu"}

// Compare lists how node (with the pods bound to it) differs from the
// template in ways that can keep a pod off it: taints the template lacks
// (ignored and node lifecycle taints aside), template labels the node
// lacks or carries with another value (the hostname, and the zone when it
// is one of the group's zones, aside), less allocatable, and DaemonSet or
// static pods the template does not hold. The result is sorted.
func Compare(t *template.Template, zones []string, node *corev1.Node, pods []*corev1.Pod, ignore nodetemplate.IgnoreTaint) []Difference {
	var out []Difference
	out = append(out, compareTaints(t.Node, node, ignore)...)
	out = append(out, compareLabels(t.Node, zones, node)...)
	out = append(out, compareResources(t.Node, node)...)
	out = append(out, comparePods(t.DaemonSetPods, pods)...)
	return out
}

func compareTaints(tmpl, node *corev1.Node, ignore nodetemplate.IgnoreTaint) []Difference {
	var out []Difference
	for _, t := range node.Spec.Taints {
		if strings.HasPrefix(t.Key, "node.kubernetes.io/") || (ignore != nil && ignore(t.Key)) {
			continue
		}
		if !slices.ContainsFunc(tmpl.Spec.Taints, func(x corev1.Taint) bool { return x.MatchTaint(&t) && x.Value == t.Value }) {
			out = append(out, Difference{Kind: KindTaint, Key: t.Key + ":" + string(t.Effect), Real: t.ToString()})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func compareLabels(tmpl *corev1.Node, zones []string, node *corev1.Node) []Difference {
	var out []Difference
	for k, v := range tmpl.Labels {
		if k == nodetemplate.LabelHostname {
			continue
		}
		real, ok := node.Labels[k]
		if (k == nodetemplate.LabelZone || k == nodetemplate.LabelZoneBeta) && slices.Contains(zones, real) {
			continue
		}
		if v == nodetemplate.MultipleTypes && (k == nodetemplate.LabelInstanceType || k == nodetemplate.LabelInstanceTypeBeta) {
			continue
		}
		if !ok || real != v {
			out = append(out, Difference{Kind: KindLabel, Key: k, Template: v, Real: real})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func compareResources(tmpl, node *corev1.Node) []Difference {
	var out []Difference
	for name, q := range tmpl.Status.Allocatable {
		if slices.Contains(lateResources, name) {
			continue
		}
		real, ok := node.Status.Allocatable[name]
		if !ok {
			real = resource.Quantity{}
		}
		if real.Cmp(q) < 0 {
			out = append(out, Difference{Kind: KindResource, Key: string(name), Template: q.String(), Real: real.String()})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// comparePods lists the node's DaemonSet and static pods whose owner no
// template pod shares.
func comparePods(tmplPods, pods []*corev1.Pod) []Difference {
	have := map[string]bool{}
	for _, p := range tmplPods {
		have[stayKey(p)] = true
	}
	var out []Difference
	for _, p := range pods {
		if k := stayKey(p); k != "" && !have[k] {
			have[k] = true
			out = append(out, Difference{Kind: KindPod, Key: p.Namespace + "/" + p.Name, Real: k})
		}
	}
	return out
}

// stayKey identifies a pod that comes with every node of a group: its
// DaemonSet, or for a static pod its namespace and name without the node
// suffix. Other pods give "".
func stayKey(p *corev1.Pod) string {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller && r.Kind == "DaemonSet" {
			return "DaemonSet/" + p.Namespace + "/" + r.Name
		}
	}
	if _, ok := p.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		name := p.Name
		if p.Spec.NodeName != "" {
			name = strings.TrimSuffix(name, "-"+p.Spec.NodeName)
		}
		return "static/" + p.Namespace + "/" + name
	}
	return ""
}
