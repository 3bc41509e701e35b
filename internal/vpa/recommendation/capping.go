package recommendation

import (
	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// applyPodBounds fits one field of one resource, summed over the pod's
// containers, into the pod-level LimitRange, as upstream v1.7.3 does: a
// container's limit counts only where it has one (or the pod item has a
// default), nothing is scaled when no container counts a limit, and a
// container left without a recommendation (see insertRequests) counts
// with its current request and is not changed.
func applyPodBounds(states []state, f field, name corev1.ResourceName, limits Limits) {
	minV, hasMin := lookup(limits.Pod.Min, name)
	maxV, hasMax := lookup(limits.Pod.Max, name)
	var sum, sumLimits int64
	for i := range states {
		v := states[i].current(f, name)
		sum += v
		request, hasRequest := lookup(states[i].res.Requests, name)
		limit, hasLimit := states[i].limitOrDefault(name, limits.Pod)
		if l, ok, _ := proportionalLimit(limit, hasLimit, request, hasRequest, v); ok {
			sumLimits += l
		}
	}
	if hasMin && sum > 0 && sum < minV && sumLimits > 0 {
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
		return s.fields[f][name] // upstream counts a missing value as 0
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

// capContainer caps one value to the container LimitRange (Min, then Max,
// so Max wins where they conflict, as upstream), then to the policy's
// minAllowed and maxAllowed, then (RequestsOnly) to the limit.
func (s *state) capContainer(f field, name corev1.ResourceName, lr Bounds) {
	v := s.fields[f][name]
	note := func(reason string) {
		if f == target {
			s.notes = append(s.notes, string(name)+" capped to "+reason)
		}
	}
	lo, hi := s.limitRangeRequestBounds(name, lr)
	if lo > 0 && v < lo {
		v = lo
		note("fit Min in container LimitRange")
	}
	if hi > 0 && v > hi {
		v = hi
		note("fit Max in container LimitRange")
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

// limitRangeRequestBounds converts the container LimitRange's Min and Max,
// which bound the limit, into bounds on the request through the container's
// request/limit ratio (the LimitRange default limit standing in for a
// missing limit), whatever the container's controlledValues, as upstream
// does, for CPU and memory only. Without a limit there is no Max bound (0); without a request the
// bounds apply as they are. Min also bounds the request directly, so the
// larger of the two forms wins. 0 means no bound.
func (s *state) limitRangeRequestBounds(name corev1.ResourceName, lr Bounds) (lo, hi int64) {
	if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
		return 0, 0 // upstream bounds only these two
	}
	request, hasRequest := lookup(s.res.Requests, name)
	limit, hasLimit := s.limitOrDefault(name, lr)
	boundary := func(b int64) int64 {
		if !hasLimit {
			return 0
		}
		if !hasRequest {
			return b
		}
		v, _ := scale(request, b, limit, false)
		return v
	}
	if m, ok := lookup(lr.Max, name); ok {
		hi = boundary(m)
	}
	if m, ok := lookup(lr.Min, name); ok {
		lo = max(boundary(m), m)
	}
	return lo, hi
}
