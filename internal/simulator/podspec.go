package simulator

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// SpreadTimeoutAnnotation is Zalando's annotation: a pending pod that
// carries it (a Go duration) is simulated without its topology spread
// constraints once it has been pending longer than the duration.
const SpreadTimeoutAnnotation = "zalando.org/topology-spread-timeout"

// podSpec is everything the filters need from a pod, parsed once and
// shared by every pod of an equivalence group.
type podSpec struct {
	namespace   string
	labels      map[string]string
	requests    scheduling.Resources
	tolerations []corev1.Toleration
	nodeName    string
	nodeMatcher scheduling.NodeMatcher
	ports       []scheduling.HostPort
	affinity    []scheduling.AffinityTerm
	anti        []scheduling.AffinityTerm
	spread      []scheduling.SpreadConstraint
	claims      []string
	priority    int32
	// parseErr is set when a selector of the pod does not parse; such a
	// pod fits nowhere.
	parseErr error
	// selfAffinity is true when the pod matches all its own affinity terms.
	selfAffinity bool
	// spreadDropped is true when the spread timeout removed the constraints.
	spreadDropped bool
	// size orders groups for first-fit decreasing in estimates.
	size float64
	// pod is the representative pod.
	pod *corev1.Pod
}

// newPodSpec parses the pod. now decides the spread timeout.
func newPodSpec(pod *corev1.Pod, now time.Time) *podSpec {
	s := &podSpec{
		namespace: pod.Namespace, labels: pod.Labels, pod: pod,
		requests:    scheduling.PodRequests(pod),
		tolerations: pod.Spec.Tolerations,
		nodeName:    pod.Spec.NodeName,
		nodeMatcher: scheduling.NewNodeMatcher(pod),
		ports:       scheduling.PodHostPorts(pod),
		claims:      scheduling.PodClaimNames(pod),
	}
	if pod.Spec.Priority != nil {
		s.priority = *pod.Spec.Priority
	}
	var err error
	if s.affinity, err = scheduling.RequiredAffinityTerms(pod); err != nil {
		s.parseErr = err
		return s
	}
	if s.anti, err = scheduling.RequiredAntiAffinityTerms(pod); err != nil {
		s.parseErr = err
		return s
	}
	if spreadExpired(pod, now) {
		s.spreadDropped = true
	} else if s.spread, err = scheduling.HardSpreadConstraints(pod); err != nil {
		s.parseErr = err
		return s
	}
	s.selfAffinity = len(s.affinity) > 0
	for i := range s.affinity {
		if !s.affinity[i].Matches(pod, nil) {
			s.selfAffinity = false
		}
	}
	return s
}

// hasSpreadTimeout reports whether the pod carries the spread-timeout annotation.
func hasSpreadTimeout(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[SpreadTimeoutAnnotation]
	return ok
}

// spreadExpired reports whether the pod's topology-spread timeout has
// passed at now. A missing or malformed annotation never expires.
func spreadExpired(pod *corev1.Pod, now time.Time) bool {
	v, ok := pod.Annotations[SpreadTimeoutAnnotation]
	if !ok || now.IsZero() {
		return false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return false
	}
	return pod.CreationTimestamp.Add(d).Before(now)
}

// monotonic reports whether adding pods to a node can only make this pod
// fit less: true unless it has pod affinity or spread constraints.
func (s *podSpec) monotonic() bool { return len(s.affinity) == 0 && len(s.spread) == 0 }

// simple reports whether only per-node static filters and resources
// decide the fit, so a node's capacity for the group is arithmetic.
func (s *podSpec) simple() bool {
	return s.monotonic() && len(s.anti) == 0 && len(s.ports) == 0 && len(s.claims) == 0 && s.parseErr == nil
}
