package recommendation

import (
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// Container is the processed recommendation for one container of a pod.
type Container struct {
	// Index is the container's position in pod.spec.containers.
	Index int
	// Name is the container's name.
	Name string
	// Target, LowerBound and UpperBound are the recommendation after
	// LimitRange and policy capping.
	Target, LowerBound, UpperBound corev1.ResourceList
	// Requests are the requests to set: the capped target.
	Requests corev1.ResourceList
	// Limits are the limits to set; empty when limits are not controlled or
	// the container has no limit (and no LimitRange default limit).
	Limits corev1.ResourceList
	// Notes explain why the target or a limit differs from the raw
	// recommendation, for example "cpu capped to maxAllowed".
	Notes []string
}

// Result is the processed recommendation of one pod: one entry per regular
// container that has a recommendation (under a pod LimitRange item, one
// made of its requests when it has none) and is not switched off, in pod
// order.
// Containers without an entry are left as they are.
type Result struct {
	Containers []Container
}

// Find returns the entry for the named container.
func (r Result) Find(name string) (Container, bool) {
	for _, c := range r.Containers {
		if c.Name == name {
			return c, true
		}
	}
	return Container{}, false
}

// field indexes the three recommendation fields, in processing order.
type field int

const (
	upperBound field = iota
	target
	lowerBound
	fieldCount
)

// values holds one field of one container in processing units.
type values map[corev1.ResourceName]int64

// state is one container while it is processed.
type state struct {
	index int
	spec  *corev1.Container
	// res is what the container runs with (ActualResources).
	res corev1.ResourceRequirements
	// rec holds the recommended quantities per field: a CPU value units
	// saturated is written back as recommended (upstream keeps the
	// quantity, so a 1Ei target stays 1Ei).
	rec         [fieldCount]corev1.ResourceList
	policy      *vpav1.ContainerResourcePolicy
	recommended bool
	// hasEntry reports that the VPA's recommendation lists the container.
	hasEntry bool
	fields   [fieldCount]values
	notes    []string
}

// Process computes the resources of pod from the VPA recommendation rec, the
// VPA's resource policy and the LimitRanges of the pod's namespace. A nil rec
// gives an empty result.
func Process(pod *corev1.Pod, rec *vpav1.RecommendedPodResources, policy *vpav1.PodResourcePolicy, limits Limits) Result {
	states := newStates(pod, rec, policy)
	if limits.Pod.Present {
		insertRequests(states)
	}
	for f := range fieldCount {
		for _, name := range podBoundResources(limits.Pod) {
			applyPodBounds(states, f, name, limits)
		}
	}
	var out Result
	for i := range states {
		s := &states[i]
		if !s.recommended {
			continue
		}
		for f := range fieldCount {
			for _, name := range sortedNames(s.fields[f]) {
				s.capContainer(f, name, limits.Container)
			}
		}
		out.Containers = append(out.Containers, s.result(limits.Container))
	}
	return out
}

// insertRequests gives each container the VPA has no recommendation for
// (and that is not switched off) one made of its requests, a target without
// bounds, as upstream does before it fits a pod into a pod-level LimitRange:
// such a container is then scaled with the others and capped like them.
func insertRequests(states []state) {
	for i := range states {
		s := &states[i]
		if s.recommended || s.hasEntry || IsOff(s.policy) || len(s.res.Requests) == 0 {
			continue
		}
		s.rec[target] = s.res.Requests
		s.fields = [fieldCount]values{upperBound: {}, target: filter(s.res.Requests, slices.Collect(maps.Keys(s.res.Requests))), lowerBound: {}}
		s.recommended = len(s.fields[target]) > 0
	}
}

// newStates builds one state per regular container, with its recommendation
// filtered by the container's policy.
func newStates(pod *corev1.Pod, rec *vpav1.RecommendedPodResources, policy *vpav1.PodResourcePolicy) []state {
	states := make([]state, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		s := state{index: i, spec: c, res: ActualResources(pod, i), policy: ContainerPolicy(policy, c.Name)}
		r := findRecommendation(rec, c.Name)
		s.hasEntry = r != nil
		if r != nil && !IsOff(s.policy) {
			controlled := ControlledResources(s.policy)
			s.rec = [fieldCount]corev1.ResourceList{upperBound: r.UpperBound, target: r.Target, lowerBound: r.LowerBound}
			s.fields[upperBound] = filter(r.UpperBound, controlled)
			s.fields[target] = filter(r.Target, controlled)
			s.fields[lowerBound] = filter(r.LowerBound, controlled)
			s.recommended = len(s.fields[target]) > 0
		}
		states[i] = s
	}
	return states
}

func findRecommendation(rec *vpav1.RecommendedPodResources, name string) *vpav1.RecommendedContainerResources {
	if rec == nil {
		return nil
	}
	for i := range rec.ContainerRecommendations {
		if rec.ContainerRecommendations[i].ContainerName == name {
			return &rec.ContainerRecommendations[i]
		}
	}
	return nil
}

func filter(list corev1.ResourceList, controlled []corev1.ResourceName) values {
	out := values{}
	for name, q := range list {
		if slices.Contains(controlled, name) {
			out[name] = units(name, q)
		}
	}
	return out
}

// podBoundResources lists the resources the pod-level LimitRange bounds, in
// a stable order.
func podBoundResources(b Bounds) []corev1.ResourceName {
	var names []corev1.ResourceName
	for name := range b.Min {
		names = append(names, name)
	}
	for name := range b.Max {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// result converts a processed state into its Container entry.
func (s *state) result(lr Bounds) Container {
	c := Container{
		Index: s.index, Name: s.spec.Name,
		UpperBound: s.list(upperBound), Target: s.list(target), LowerBound: s.list(lowerBound),
		Requests: s.list(target), Limits: corev1.ResourceList{},
	}
	if ControlledValues(s.policy) == vpav1.ContainerControlledValuesRequestsAndLimits {
		for _, name := range sortedNames(s.fields[target]) {
			newRequest := s.fields[target][name]
			request, hasRequest := lookup(s.res.Requests, name)
			limit, hasLimit := s.limitOrDefault(name, lr)
			v, ok, clamped := proportionalLimit(limit, hasLimit, request, hasRequest, newRequest)
			if !ok {
				continue
			}
			c.Limits[name] = quantity(name, v)
			if v == newRequest && !clamped {
				c.Limits[name] = c.Requests[name].DeepCopy() // 1Ei stays 1Ei
			}
			if clamped {
				s.notes = append(s.notes, string(name)+" limit capped to the largest int64")
			}
		}
	}
	c.Notes = s.notes
	return c
}

func (s *state) list(f field) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, v := range s.fields[f] {
		out[name] = quantity(name, v)
		if q, ok := s.rec[f][name]; ok && v == math.MaxInt64 && saturates(name, q) {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// limitOrDefault returns the container's limit for name, or the container
// LimitRange's default limit when the container has none.
func (s *state) limitOrDefault(name corev1.ResourceName, lr Bounds) (int64, bool) {
	if v, ok := lookup(s.res.Limits, name); ok {
		return v, true
	}
	return lookup(lr.Default, name)
}

func sortedNames(v values) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
