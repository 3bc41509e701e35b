package scenario

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodDisruptionBudget is a policy/v1 PodDisruptionBudget with a selector
// of its own: it may select the pods of several workloads, or a second
// budget the pods of a workload that has one. Exactly one of MinAvailable
// and MaxUnavailable is set.
type PodDisruptionBudget struct {
	// Name is the budget's name, unique in its namespace.
	Name string `yaml:"name"`
	// Namespace defaults to "default"; the budget selects pods of its
	// namespace only.
	Namespace string `yaml:"namespace"`
	// Selector is a metav1.LabelSelector (matchLabels, matchExpressions
	// with In, NotIn, Exists, DoesNotExist) over the pods' labels: the
	// pod template's labels and app=<workload>. An empty selector selects
	// every pod of the namespace, as in policy/v1.
	Selector *K8s[metav1.LabelSelector] `yaml:"selector"`
	// MinAvailable is an int or percentage.
	MinAvailable string `yaml:"minAvailable,omitempty"`
	// MaxUnavailable is an int or percentage.
	MaxUnavailable string `yaml:"maxUnavailable,omitempty"`
	// UnhealthyPodEvictionPolicy is IfHealthyBudget (the default: a pod
	// that is not Ready is evicted only while the budget is healthy) or
	// AlwaysAllow (it is always evicted), as the eviction API reads it.
	UnhealthyPodEvictionPolicy string `yaml:"unhealthyPodEvictionPolicy,omitempty"`
}

// Unhealthy pod eviction policies a budget may name (policy/v1).
var unhealthyPolicies = []string{"IfHealthyBudget", "AlwaysAllow"}

// Budget returns the workload's pdb shorthand as the budget it stands
// for: named after the workload, in its namespace, selecting
// app=<workload>; ok is false when the workload has none.
func (w *Workload) Budget() (b PodDisruptionBudget, ok bool) {
	if w.PDB == nil {
		return PodDisruptionBudget{}, false
	}
	sel := metav1.LabelSelector{MatchLabels: map[string]string{"app": w.Name}}
	return PodDisruptionBudget{Name: w.Name, Namespace: w.Namespace, Selector: &K8s[metav1.LabelSelector]{Value: sel},
		MinAvailable: w.PDB.MinAvailable, MaxUnavailable: w.PDB.MaxUnavailable}, true
}
