package recommendation

import (
	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// applyPodBounds fits one field of one resource, summed over the pod's
// containers, into the pod-level LimitRange. Containers without a
// recommendation count with their current request and are not changed.
func applyPodBounds(states []state, f field, name corev1.ResourceName, limits Limits) {
	minV, hasMin := lookup(limits.Pod.Min, name)
	maxV, hasMax := lookup(limits.Pod.Max, name)
	var sum, sumLimits int64
	for i := range states {
		v := states[i].current(f, name)
		sum += v
		request, hasRequest := lookup(states[i].res.Requests, name)
		limit, hasLimit := states[i].limitOrDefault(name, limits.Container)
		if l, ok, _ := proportionalLimit(limit, hasLimit, request, hasRequest, v); ok {
			sumLimits += l
		}
	}
	if hasMin && sum > 0 && sum < minV {
		scaleField(states, f, name, minV, sum, true)
		return
	}
	switch {
	case sumLimits == 0:
	case hasMax && sumLimits > maxV:
		scaleField(states, f, name, maxV, sumLimits, false)
	case hasMin && sumLimits < minV:
		scaleField(states, f, name, minV, sumLimits, false)
	}
}

// current is the value a container contributes to the pod-level sums: its
// recommendation if it has one for name, else its current request.
func (s *state) current(f field, name corev1.ResourceName) int64 {
	if s.recommended {
		if v, ok := s.fields[f][name]; ok {
			return v
		}
	}
	v, _ := lookup(s.res.Requests, name)
	return v
}

func scaleField(states []state, f field, name corev1.ResourceName, num, den int64, roundUp bool) {
	for i := range states {
		s := &states[i]
		if v, ok := s.fields[f][name]; ok && s.recommended {
			s.fields[f][name], _ = scale(v, num, den, roundUp)
			if f == target {
				s.notes = append(s.notes, string(name)+" capped to fit the pod LimitRange")
			}
		}
	}
}

// capContainer caps one value to the container LimitRange, then to the
// policy's minAllowed and maxAllowed, then (RequestsOnly) to the limit.
func (s *state) capContainer(f field, name corev1.ResourceName, lr Bounds) {
	v := s.fields[f][name]
	note := func(reason string) {
		if f == target {
			s.notes = append(s.notes, string(name)+" capped to "+reason)
		}
	}
	lo, hi, hasLo, hasHi := s.limitRangeRequestBounds(name, lr)
	if hasHi && v > hi {
		v = hi
		note("fit Max in container LimitRange")
	}
	if hasLo && v < lo {
		v = lo
		note("fit Min in container LimitRange")
	}
	if s.policy != nil {
		if m, ok := lookup(s.policy.MinAllowed, name); ok && v < m {
			v = m
			note("minAllowed")
		}
		if m, ok := lookup(s.policy.MaxAllowed, name); ok && v > m {
			v = m
			note("maxAllowed")
		}
	}
	if ControlledValues(s.policy) == vpav1.ContainerControlledValuesRequestsOnly {
		if l, ok := lookup(s.res.Limits, name); ok && v > l {
			v = l
			note("container limit")
		}
	}
	s.fields[f][name] = v
}

// limitRangeRequestBounds converts the container LimitRange's Min and Max
// into bounds on the request. Max bounds the limit, which scales with the
// request, so it is converted through the container's limit/request ratio
// (using the LimitRange default limit when the container has no limit). Min
// bounds the request directly; its ratio-converted form is never stricter,
// because a valid request is at most its limit. With RequestsOnly the limit
// does not move, so Max bounds the request directly.
func (s *state) limitRangeRequestBounds(name corev1.ResourceName, lr Bounds) (lo, hi int64, hasLo, hasHi bool) {
	request, hasRequest := lookup(s.res.Requests, name)
	limit, hasLimit := s.limitOrDefault(name, lr)
	scales := ControlledValues(s.policy) == vpav1.ContainerControlledValuesRequestsAndLimits
	if hi, hasHi = lookup(lr.Max, name); hasHi && scales && hasRequest && hasLimit && request <= limit {
		hi, _ = scale(hi, request, limit, false)
	}
	lo, hasLo = lookup(lr.Min, name)
	return lo, hi, hasLo, hasHi
}
