package updater

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// Candidate is a pod worth updating, with its assessment.
type Candidate struct {
	// Pod is the pod.
	Pod *corev1.Pod
	// Priority is the pod's assessment.
	Priority Priority
	// Processed is the pod's processed recommendation.
	Processed recommendation.Result
}

// SortByPriority orders candidates in place: scale-ups first, then larger
// ResourceDiff first; equal candidates keep their order.
func SortByPriority(cs []Candidate) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		if a.Priority.ScaleUp != b.Priority.ScaleUp {
			if a.Priority.ScaleUp {
				return -1
			}
			return 1
		}
		switch {
		case a.Priority.ResourceDiff > b.Priority.ResourceDiff:
			return -1
		case a.Priority.ResourceDiff < b.Priority.ResourceDiff:
			return 1
		}
		return 0
	})
}

// PassesEvictionRequirements reports whether the pod meets the VPA's
// updatePolicy.evictionRequirements: some container with a recommendation
// meets every requirement, where a requirement is met when any of its
// resources changes in the required direction. A container without a CPU
// or memory request always passes.
func PassesEvictionRequirements(pod *corev1.Pod, processed recommendation.Result, reqs []*vpav1.EvictionRequirement) bool {
	if len(reqs) == 0 {
		return true
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		rec, ok := processed.Find(c.Name)
		if !ok {
			continue
		}
		actual := recommendation.ActualResources(pod, i)
		if !hasRequest(actual, corev1.ResourceCPU) || !hasRequest(actual, corev1.ResourceMemory) {
			return true
		}
		if meetsAll(actual, rec, reqs) {
			return true
		}
	}
	return false
}

func hasRequest(actual corev1.ResourceRequirements, name corev1.ResourceName) bool {
	q, ok := actual.Requests[name]
	return ok && !q.IsZero()
}

func meetsAll(actual corev1.ResourceRequirements, rec recommendation.Container, reqs []*vpav1.EvictionRequirement) bool {
	for _, r := range reqs {
		if r == nil {
			continue
		}
		met := false
		for _, name := range r.Resources {
			t, okT := rec.Target[name]
			q, okQ := actual.Requests[name]
			if !okT || !okQ {
				continue
			}
			switch r.ChangeRequirement {
			case vpav1.TargetHigherThanRequests:
				met = met || t.Cmp(q) > 0
			case vpav1.TargetLowerThanRequests:
				met = met || t.Cmp(q) < 0
			}
		}
		if !met {
			return false
		}
	}
	return true
}
