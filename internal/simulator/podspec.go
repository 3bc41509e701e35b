package simulator

import (
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scheduling"
)

// SpreadTimeoutAnnotation is Zalando's annotation: a pending pod that
// carries it (a Go duration) is simulated without its topology spread
// constraints once it has been pending longer than the duration.
const SpreadTimeoutAnnotation = "zalando.org/topology-spread-timeout"

// podSpec is everything the filters need from a pod, parsed once and
// shared by every pod of an equivalence group. A snapshot holds one per
// bound pod, so what most pods lack (node affinity, ports, pod affinity,
// spread, claims, disk volumes, features) is kept apart in constraints,
// which plain pods share.
type podSpec struct {
	namespace   string
	labels      map[string]string
	requests    scheduling.Resources
	tolerations []corev1.Toleration
	nodeName    string
	priority    int32
	// spreadDropped is true when the spread timeout removed the constraints.
	spreadDropped bool
	// size orders groups for first-fit decreasing in estimates.
	size float64
	// pod is the representative pod.
	pod *corev1.Pod
	// constraints are never written once newPodSpec returned: a pod
	// without any points at the one unconstrained value.
	*constraints
}

// constraints are the parsed filters of a pod beyond resources, taints
// and priority.
type constraints struct {
	nodeMatcher scheduling.NodeMatcher
	ports       []scheduling.HostPort
	affinity    []scheduling.AffinityTerm
	anti        []scheduling.AffinityTerm
	spread      []scheduling.SpreadConstraint
	claims      []string
	// diskVolumes are inline volumes the VolumeRestrictions filter checks
	// for conflicts with the node's pods.
	diskVolumes []*corev1.Volume
	// features are the node-declared features the pod needs.
	features scheduling.RequiredFeatures
	// notSimulated names a feature of the pod the simulator does not
	// model; such a pod fits no node.
	notSimulated string
	// parseErr is set when a selector of the pod does not parse; such a
	// pod fits nowhere.
	parseErr error
}

// unconstrained is the constraints value of a pod without any: an empty
// node matcher and nothing else. It is only read.
var unconstrained = &constraints{nodeMatcher: scheduling.NewNodeMatcher(&corev1.Pod{})}

// none reports whether c holds nothing but an empty node matcher.
func (c *constraints) none() bool {
	return c.nodeMatcher.IsEmpty() && len(c.ports) == 0 && len(c.affinity) == 0 && len(c.anti) == 0 &&
		len(c.spread) == 0 && len(c.claims) == 0 && len(c.diskVolumes) == 0 && c.features.IsEmpty() &&
		c.notSimulated == "" && c.parseErr == nil
}

// newPodSpec parses the pod. now decides the spread timeout.
func newPodSpec(pod *corev1.Pod, now time.Time) *podSpec {
	s := &podSpec{
		namespace: pod.Namespace, labels: pod.Labels, pod: pod,
		requests:    scheduling.PodRequests(pod),
		tolerations: pod.Spec.Tolerations,
		nodeName:    pod.Spec.NodeName,
	}
	if pod.Spec.Priority != nil {
		s.priority = *pod.Spec.Priority
	}
	s.constraints = unconstrained
	if c := parseConstraints(pod, now, &s.spreadDropped); !c.none() {
		kept := c // only a pod with constraints allocates them
		s.constraints = &kept
	}
	return s
}

// parseConstraints parses the pod's constraints; spreadDropped is set
// when the spread timeout removed its spread constraints.
func parseConstraints(pod *corev1.Pod, now time.Time, spreadDropped *bool) constraints {
	c := constraints{
		nodeMatcher:  scheduling.NewNodeMatcher(pod),
		ports:        scheduling.PodHostPorts(pod),
		claims:       scheduling.PodClaimNames(pod),
		features:     scheduling.PodRequiredFeatures(pod),
		notSimulated: notSimulated(pod),
	}
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; scheduling.HasDiskConflictVolume(v) {
			c.diskVolumes = append(c.diskVolumes, v)
		}
	}
	var err error
	if c.affinity, err = scheduling.RequiredAffinityTerms(pod); err != nil {
		c.parseErr = err
		return c
	}
	if c.anti, err = scheduling.RequiredAntiAffinityTerms(pod); err != nil {
		c.parseErr = err
		return c
	}
	if spreadExpired(pod, now) {
		*spreadDropped = true
	} else if c.spread, err = scheduling.HardSpreadConstraints(pod); err != nil {
		c.parseErr = err
	}
	return c
}

// notSimulated returns the feature of the pod that the simulator does not
// model, or "": resource claims (dynamic resource allocation), and inline
// in-tree cloud disks (kube-scheduler translates them to CSI volumes and
// counts them towards attach limits).
func notSimulated(pod *corev1.Pod) string {
	if len(pod.Spec.ResourceClaims) > 0 {
		return "dynamic resource allocation (spec.resourceClaims)"
	}
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; scheduling.InTreeCloudDisk(v) {
			return "in-tree cloud disk volume " + v.Name + " (translated to CSI by kube-scheduler)"
		}
	}
	return ""
}

// spreadExpired reports whether the pod's topology-spread timeout has
// passed at now. A missing or malformed annotation never expires.
func spreadExpired(pod *corev1.Pod, now time.Time) bool {
	if now.IsZero() {
		return false
	}
	v, ok := pod.Annotations[SpreadTimeoutAnnotation]
	if !ok {
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
	return s.monotonic() && len(s.anti) == 0 && len(s.ports) == 0 && len(s.claims) == 0 && len(s.diskVolumes) == 0 && s.parseErr == nil
}

// boundSpec returns the spec of a pod AddPod binds to the node. Bound pods
// are parsed without a spread timeout: it only concerns pending pods. A
// plain pod (see plainPod) whose parsed fields equal those of the node's
// last plain pod shares that pod's spec, so a node's replicas are parsed
// once; the comparison is exact, field by field.
func (n *nodeInfo) boundSpec(pod *corev1.Pod) *podSpec {
	if !plainPod(pod) {
		return newPodSpec(pod, time.Time{})
	}
	if last := n.lastSpec; last != nil && samePlain(last.pod, pod) {
		return last
	}
	n.lastSpec = newPodSpec(pod, time.Time{})
	return n.lastSpec
}

// plainPod reports whether newPodSpec reads nothing of the pod but its
// namespace, labels, node name, node selector, tolerations, priority and
// its single container's requests: no init containers, overhead,
// pod-level resources, container statuses (in-place resize), ports,
// restart policy or rules, host network, volumes, resource claims, affinity or
// spread constraints.
func plainPod(p *corev1.Pod) bool {
	sp := &p.Spec
	if len(sp.Containers) != 1 || len(sp.InitContainers) != 0 || sp.Overhead != nil || sp.Resources != nil ||
		len(p.Status.ContainerStatuses) != 0 || len(p.Status.InitContainerStatuses) != 0 || sp.HostNetwork ||
		len(sp.Volumes) != 0 || len(sp.ResourceClaims) != 0 || sp.Affinity != nil || len(sp.TopologySpreadConstraints) != 0 {
		return false
	}
	c := &sp.Containers[0]
	return len(c.Ports) == 0 && len(c.RestartPolicyRules) == 0 && c.RestartPolicy == nil
}

// samePlain reports whether two plain pods have equal fields of those
// plainPod lists as read.
func samePlain(a, b *corev1.Pod) bool {
	sa, sb := &a.Spec, &b.Spec
	return a.Namespace == b.Namespace && sa.NodeName == sb.NodeName && equalPtr(sa.Priority, sb.Priority) &&
		maps.Equal(a.Labels, b.Labels) && maps.Equal(sa.NodeSelector, sb.NodeSelector) &&
		equalList(sa.Containers[0].Resources.Requests, sb.Containers[0].Resources.Requests) &&
		equalSliceDeep(sa.Tolerations, sb.Tolerations)
}
