package recommendation

import (
	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// DefaultControlledResources are the resources a VPA controls when a
// container policy does not list controlledResources.
var defaultControlledResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// ContainerPolicy returns the policy entry for the named container: the entry
// with that exact name, else the "*" entry, else nil.
func ContainerPolicy(policy *vpav1.PodResourcePolicy, name string) *vpav1.ContainerResourcePolicy {
	if policy == nil {
		return nil
	}
	var wildcard *vpav1.ContainerResourcePolicy
	for i := range policy.ContainerPolicies {
		cp := &policy.ContainerPolicies[i]
		switch cp.ContainerName {
		case name:
			return cp
		case vpav1.DefaultContainerResourcePolicy:
			wildcard = cp
		}
	}
	return wildcard
}

// IsOff reports whether the container policy turns autoscaling off.
func IsOff(cp *vpav1.ContainerResourcePolicy) bool {
	return cp != nil && cp.Mode != nil && *cp.Mode == vpav1.ContainerScalingModeOff
}

// ControlledValues returns the container policy's controlledValues, by
// default RequestsAndLimits.
func ControlledValues(cp *vpav1.ContainerResourcePolicy) vpav1.ContainerControlledValues {
	if cp == nil || cp.ControlledValues == nil {
		return vpav1.ContainerControlledValuesRequestsAndLimits
	}
	return *cp.ControlledValues
}

// ControlledResources returns the container policy's controlledResources,
// by default cpu and memory.
func ControlledResources(cp *vpav1.ContainerResourcePolicy) []corev1.ResourceName {
	if cp == nil || cp.ControlledResources == nil {
		return defaultControlledResources
	}
	return *cp.ControlledResources
}
