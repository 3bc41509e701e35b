package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// budgets checks the podDisruptionBudgets list: valid names unique per
// namespace (the workloads' pdb shorthands included, which are named
// after their workload), a valid selector and exactly one valid budget.
// It defaults the namespace.
func (c *checker) budgets(s *Scenario) {
	names := map[string]bool{}
	for _, w := range s.Workloads {
		if w.PDB != nil {
			names[w.Namespace+"/"+w.Name] = true
		}
	}
	for i := range s.PodDisruptionBudgets {
		b := &s.PodDisruptionBudgets[i]
		at := p("podDisruptionBudgets", i)
		f := func(field string) []any { return append(slices.Clone(at), field) }
		entry := fmt.Sprintf("podDisruptionBudgets[%d]", i)
		if b.Namespace == "" {
			b.Namespace = "default"
		}
		c.failf(len(validation.IsDNS1123Label(b.Namespace)) > 0, f("namespace"), "%s.namespace: %q is not a valid namespace", entry, b.Namespace)
		c.failf(len(validation.IsDNS1123Subdomain(b.Name)) > 0, f("name"), "%s.name: %q is not a valid name", entry, b.Name)
		key := b.Namespace + "/" + b.Name
		c.failf(names[key], f("name"), "%s.name: %q is defined twice in namespace %s (a workload's pdb is named after the workload)",
			entry, b.Name, b.Namespace)
		names[key] = true
		c.failf(b.Selector == nil, f("selector"), "%s.selector: required (an empty selector {} selects every pod of the namespace)", entry)
		if b.Selector != nil {
			errs := metav1validation.ValidateLabelSelector(&b.Selector.Value, metav1validation.LabelSelectorValidationOptions{},
				field.NewPath("podDisruptionBudgets").Index(i).Child("selector"))
			for _, e := range errs {
				c.failf(true, f("selector"), "%s", e.Error())
			}
		}
		c.budgetValues(b.MinAvailable, b.MaxUnavailable, at, entry)
		c.failf(b.UnhealthyPodEvictionPolicy != "" && !slices.Contains(unhealthyPolicies, b.UnhealthyPodEvictionPolicy),
			f("unhealthyPodEvictionPolicy"), "%s.unhealthyPodEvictionPolicy: must be one of %v, got %q", entry, unhealthyPolicies, b.UnhealthyPodEvictionPolicy)
	}
}

// budgetValues checks that exactly one of minAvailable and maxUnavailable
// is set, to an int or a percentage, for the entry written at at.
func (c *checker) budgetValues(minAvailable, maxUnavailable string, at []any, entry string) {
	c.failf((minAvailable == "") == (maxUnavailable == ""), at, "%s: needs exactly one of minAvailable and maxUnavailable", entry)
	for _, fv := range [][2]string{{"minAvailable", minAvailable}, {"maxUnavailable", maxUnavailable}} {
		if fv[1] != "" {
			err := intOrPercent(fv[1])
			c.failf(err != nil, append(slices.Clone(at), fv[0]), "%s.%s: %v", entry, fv[0], err)
		}
	}
}

// intOrPercent checks a budget value: a non-negative int or a percentage
// from 0% to 100%, as the API server validates it.
func intOrPercent(v string) error {
	num, percent := strings.CutSuffix(v, "%")
	n, err := strconv.Atoi(num)
	switch {
	case err != nil || n < 0:
		return fmt.Errorf("%q: want a non-negative int or a percentage such as 50%%", v)
	case percent && n > 100:
		return fmt.Errorf("%q: a percentage is at most 100%%", v)
	}
	return nil
}
