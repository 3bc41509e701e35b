package scheduling

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Reasons of kube-scheduler's InterPodAffinity filter.
const (
	ReasonAffinity         = "node(s) didn't match pod affinity rules"
	ReasonAntiAffinity     = "node(s) didn't match pod anti-affinity rules"
	ReasonExistingAntiAffn = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// AffinityTerm is a parsed required pod (anti-)affinity term.
type AffinityTerm struct {
	// Selector selects the pods the term is about.
	Selector labels.Selector
	// Namespaces are the namespaces named by the term; when the term names
	// none and has no namespace selector, the owning pod's namespace.
	Namespaces []string
	// NamespaceSelector selects further namespaces by their labels; nil
	// when the term has none (an empty selector selects all namespaces).
	NamespaceSelector labels.Selector
	// TopologyKey is the node label whose value forms the domain.
	TopologyKey string
	// IndexKey and IndexValue are one label the selected pods must carry
	// (from matchLabels or a single-value In), for index lookups; empty
	// when the selector has no such requirement.
	IndexKey, IndexValue string
	// IndexOnly is true when the selector is exactly IndexKey=IndexValue,
	// so a pod found through the index needs no further label matching.
	IndexOnly bool
}

// NamespaceLabels returns the labels of a namespace, and whether it is known.
type NamespaceLabels func(namespace string) (labels.Set, bool)

// Matches reports whether the term of a pod being scheduled selects the
// pod: its namespace is named or selected, and its labels match.
func (t *AffinityTerm) Matches(pod *corev1.Pod, nsLabels NamespaceLabels) bool {
	if !t.MatchesNamespace(pod.Namespace, nsLabels) {
		return false
	}
	return t.Selector.Matches(labels.Set(pod.Labels))
}

// MatchesNamespace reports whether the term of a pod being scheduled
// covers the namespace: it is named, or the term's namespace selector is
// empty (every namespace), or the namespace is registered and its labels
// match the selector. kube-scheduler resolves the selector to the
// namespaces it knows, so an unregistered namespace is never selected.
func (t *AffinityTerm) MatchesNamespace(ns string, nsLabels NamespaceLabels) bool {
	if slices.Contains(t.Namespaces, ns) {
		return true
	}
	if t.NamespaceSelector == nil {
		return false
	}
	if t.NamespaceSelector.Empty() {
		return true
	}
	if nsLabels == nil {
		return false
	}
	set, known := nsLabels(ns)
	return known && t.NamespaceSelector.Matches(set)
}

// SelectsIncoming reports whether the term of a bound pod selects a pod
// being scheduled: its namespace is named or its namespace's labels match
// the term's namespace selector (an unregistered namespace has no labels),
// and its labels match. indexed says the pod was found in the label index
// under the term's IndexKey=IndexValue.
func (t *AffinityTerm) SelectsIncoming(pod *corev1.Pod, nsLabels NamespaceLabels, indexed bool) bool {
	if !slices.Contains(t.Namespaces, pod.Namespace) {
		if t.NamespaceSelector == nil {
			return false
		}
		var set labels.Set
		if nsLabels != nil {
			set, _ = nsLabels(pod.Namespace)
		}
		if !t.NamespaceSelector.Matches(set) {
			return false
		}
	}
	return indexed && t.IndexOnly || t.Selector.Matches(labels.Set(pod.Labels))
}

// RequiredAffinityTerms parses the pod's required pod-affinity terms.
func RequiredAffinityTerms(pod *corev1.Pod) ([]AffinityTerm, error) {
	a := pod.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return nil, nil
	}
	return parseTerms(pod, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
}

// RequiredAntiAffinityTerms parses the pod's required pod-anti-affinity terms.
func RequiredAntiAffinityTerms(pod *corev1.Pod) ([]AffinityTerm, error) {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil, nil
	}
	return parseTerms(pod, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
}

func parseTerms(pod *corev1.Pod, terms []corev1.PodAffinityTerm) ([]AffinityTerm, error) {
	out := make([]AffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := parseTerm(pod, &terms[i])
		if err != nil {
			return nil, fmt.Errorf("parsing pod affinity term %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTerm(pod *corev1.Pod, term *corev1.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("parsing labelSelector: %w", err)
	}
	t := AffinityTerm{Selector: sel, Namespaces: term.Namespaces, TopologyKey: term.TopologyKey}
	if term.NamespaceSelector != nil {
		if t.NamespaceSelector, err = metav1.LabelSelectorAsSelector(term.NamespaceSelector); err != nil {
			return AffinityTerm{}, fmt.Errorf("parsing namespaceSelector: %w", err)
		}
	} else if len(term.Namespaces) == 0 {
		t.Namespaces = []string{pod.Namespace}
	}
	t.IndexKey, t.IndexValue = IndexLabel(term.LabelSelector)
	t.IndexOnly = isSingleLabel(term.LabelSelector)
	return t, nil
}

// IndexLabel returns one key=value pair every pod selected by the selector
// carries (the smallest matchLabels key, else the first single-value In
// expression), or empty strings when there is none.
func IndexLabel(sel *metav1.LabelSelector) (string, string) {
	if sel == nil {
		return "", ""
	}
	best := ""
	for k := range sel.MatchLabels {
		if best == "" || k < best {
			best = k
		}
	}
	if best != "" {
		return best, sel.MatchLabels[best]
	}
	for _, e := range sel.MatchExpressions {
		if e.Operator == metav1.LabelSelectorOpIn && len(e.Values) == 1 {
			return e.Key, e.Values[0]
		}
	}
	return "", ""
}

// isSingleLabel reports whether the selector is exactly one matchLabels entry.
func isSingleLabel(sel *metav1.LabelSelector) bool {
	return sel != nil && len(sel.MatchLabels) == 1 && len(sel.MatchExpressions) == 0
}
