package scaledown

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// pdbIndex finds the PodDisruptionBudgets that select a pod.
type pdbIndex struct {
	byNamespace map[string][]parsedPDB
}

type parsedPDB struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

// newPDBIndex parses every budget's selector once. A budget whose selector
// does not parse selects nothing, as the disruption controller treats it.
func newPDBIndex(pdbs []*policyv1.PodDisruptionBudget) *pdbIndex {
	idx := &pdbIndex{byNamespace: map[string][]parsedPDB{}}
	for _, p := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil {
			continue
		}
		idx.byNamespace[p.Namespace] = append(idx.byNamespace[p.Namespace], parsedPDB{pdb: p, selector: sel})
	}
	return idx
}

// check reports whether any budget selects the pod, and the first budget
// (by list order) that allows no disruption now.
func (idx *pdbIndex) check(pod *corev1.Pod) (covered bool, blocking *policyv1.PodDisruptionBudget) {
	for _, p := range idx.byNamespace[pod.Namespace] {
		if !p.selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		covered = true
		if p.pdb.Status.DisruptionsAllowed < 1 && blocking == nil {
			blocking = p.pdb
		}
	}
	return covered, blocking
}
