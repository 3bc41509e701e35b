package estimator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// PolicyError is an invalid VPA resource policy.
type PolicyError struct {
	// Field is the JSON path of the offending field.
	Field string
	// Message says what is wrong.
	Message string
}

// Error returns "field: message".
func (e *PolicyError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// supported are the resources a VPA may control.
var supported = map[corev1.ResourceName]bool{corev1.ResourceCPU: true, corev1.ResourceMemory: true}

// ValidatePolicy checks a VPA resource policy: unique non-empty container
// names, known modes and controlled values, only cpu and memory, no
// negative quantities and minAllowed not above maxAllowed.
func ValidatePolicy(p *vpav1.PodResourcePolicy) error {
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	for i, cp := range p.ContainerPolicies {
		f := fmt.Sprintf("spec.resourcePolicy.containerPolicies[%d]", i)
		if cp.ContainerName == "" {
			return &PolicyError{Field: f + ".containerName", Message: "must not be empty"}
		}
		if seen[cp.ContainerName] {
			return &PolicyError{Field: f + ".containerName", Message: fmt.Sprintf("duplicate container %q", cp.ContainerName)}
		}
		seen[cp.ContainerName] = true
		if err := validateContainerPolicy(f, &cp); err != nil {
			return err
		}
	}
	return nil
}

// validateContainerPolicy checks one container policy.
func validateContainerPolicy(f string, cp *vpav1.ContainerResourcePolicy) error {
	if cp.Mode != nil && *cp.Mode != vpav1.ContainerScalingModeAuto && *cp.Mode != vpav1.ContainerScalingModeOff {
		return &PolicyError{Field: f + ".mode", Message: fmt.Sprintf("unsupported value %q", *cp.Mode)}
	}
	if cp.ControlledValues != nil && *cp.ControlledValues != vpav1.ContainerControlledValuesRequestsAndLimits &&
		*cp.ControlledValues != vpav1.ContainerControlledValuesRequestsOnly {
		return &PolicyError{Field: f + ".controlledValues", Message: fmt.Sprintf("unsupported value %q", *cp.ControlledValues)}
	}
	if cp.ControlledResources != nil {
		for j, r := range *cp.ControlledResources {
			if !supported[r] {
				return &PolicyError{Field: fmt.Sprintf("%s.controlledResources[%d]", f, j), Message: fmt.Sprintf("unsupported resource %q", r)}
			}
		}
	}
	for _, l := range []struct {
		name string
		list corev1.ResourceList
	}{{"minAllowed", cp.MinAllowed}, {"maxAllowed", cp.MaxAllowed}} {
		for r, q := range l.list {
			if !supported[r] {
				return &PolicyError{Field: fmt.Sprintf("%s.%s.%s", f, l.name, r), Message: "unsupported resource"}
			}
			if q.Sign() < 0 {
				return &PolicyError{Field: fmt.Sprintf("%s.%s.%s", f, l.name, r), Message: "must not be negative"}
			}
		}
	}
	for r, lo := range cp.MinAllowed {
		if hi, ok := cp.MaxAllowed[r]; ok && !hi.IsZero() && !lo.IsZero() && lo.Cmp(hi) > 0 {
			return &PolicyError{Field: fmt.Sprintf("%s.minAllowed.%s", f, r),
				Message: fmt.Sprintf("%s is above maxAllowed %s", lo.String(), hi.String())}
		}
	}
	return nil
}

// containerPolicy returns the policy for name: the entry with that name,
// else the "*" entry, else nil.
func containerPolicy(p *vpav1.PodResourcePolicy, name string) *vpav1.ContainerResourcePolicy {
	if p == nil {
		return nil
	}
	var def *vpav1.ContainerResourcePolicy
	for i := range p.ContainerPolicies {
		switch p.ContainerPolicies[i].ContainerName {
		case name:
			return &p.ContainerPolicies[i]
		case vpav1.DefaultContainerResourcePolicy:
			def = &p.ContainerPolicies[i]
		}
	}
	return def
}

// isOff reports whether the container's policy mode is Off.
func isOff(cp *vpav1.ContainerResourcePolicy) bool {
	return cp != nil && cp.Mode != nil && *cp.Mode == vpav1.ContainerScalingModeOff
}

// controlled returns whether the policy controls resource r (cpu and memory by default).
func controlled(cp *vpav1.ContainerResourcePolicy, r corev1.ResourceName) bool {
	if cp == nil || cp.ControlledResources == nil {
		return true
	}
	for _, x := range *cp.ControlledResources {
		if x == r {
			return true
		}
	}
	return false
}
