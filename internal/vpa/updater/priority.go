package updater

import (
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// ObservedContainersAnnotation is set by the admission webhook on every pod
// it matches to a VPA: the names of the containers the VPA observed,
// joined by ", ". When present, only those containers are compared.
const ObservedContainersAnnotation = "vpaObservedContainers"

// Thresholds are the knobs of the update decision.
type Thresholds struct {
	// EvictAfterOOM is the longest run that still counts as a quick OOM
	// (and how recent the OOM must be); --evict-after-oom-threshold.
	EvictAfterOOM time.Duration
	// PodUpdate is the smallest ResourceDiff that updates a long-lived pod
	// whose requests are inside the recommended range; --pod-update-threshold.
	PodUpdate float64
	// Lifetime is the age from which a pod inside the range may be updated;
	// --in-recommendation-bounds-eviction-lifetime-threshold.
	Lifetime time.Duration
}

// Priority is the assessment of one pod against its processed recommendation.
type Priority struct {
	// ScaleUp is true when some target exceeds its request (or a request is missing).
	ScaleUp bool
	// OutsideRange is true when some request is below lowerBound or above
	// upperBound (or missing).
	OutsideRange bool
	// ResourceDiff is the sum over resources of |Σrequest − Σtarget| / Σrequest.
	ResourceDiff float64
	// QuickOOM is true when an observed container was OOM-killed recently
	// after a short run.
	QuickOOM bool
	// Age is how long the pod has been running (0 without a start time).
	Age time.Duration
	// HasStartTime reports whether the pod has status.startTime.
	HasStartTime bool
}

// ShouldUpdate reports whether the pod is worth updating: it is outside the
// recommended range, or had a quick OOM and its requests differ from the
// target, or it is older than the lifetime threshold and its requests
// differ by at least the update threshold.
func (p Priority) ShouldUpdate(th Thresholds) bool {
	switch {
	case p.OutsideRange:
		return true
	case p.QuickOOM && p.ResourceDiff != 0:
		return true
	default:
		return p.HasStartTime && p.Age >= th.Lifetime && p.ResourceDiff >= th.PodUpdate
	}
}

// Reason names why the pod is updated, for events and metrics.
func (p Priority) Reason() string {
	switch {
	case p.OutsideRange:
		return "OutsideRecommendedRange"
	case p.QuickOOM && p.ResourceDiff != 0:
		return "QuickOOM"
	default:
		return "Drift"
	}
}

// VPAThresholds returns the thresholds for the VPA's pods: th, with
// EvictAfterOOM replaced by the VPA's updatePolicy.evictAfterOOMSeconds
// when gate PerVPAConfig is on and the VPA sets it (≥ 1s).
func VPAThresholds(vpa *vpav1.VerticalPodAutoscaler, th Thresholds, gates features.Gates) Thresholds {
	if p := vpa.Spec.UpdatePolicy; gates.PerVPAConfig && p != nil && p.EvictAfterOOMSeconds != nil && *p.EvictAfterOOMSeconds >= 1 {
		th.EvictAfterOOM = time.Duration(*p.EvictAfterOOMSeconds) * time.Second
	}
	return th
}

// Assess compares the pod's requests with its processed recommendation at
// time now.
func Assess(pod *corev1.Pod, processed recommendation.Result, now time.Time, th Thresholds) Priority {
	observed := observedContainers(pod)
	var p Priority
	requests := map[corev1.ResourceName]float64{}
	targets := map[corev1.ResourceName]float64{}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		rec, ok := processed.Find(c.Name)
		if !ok || (observed != nil && !slices.Contains(observed, c.Name)) {
			continue
		}
		actual := recommendation.ActualResources(pod, i)
		for name, t := range rec.Target {
			req, has := actual.Requests[name]
			targets[name] += milli(t)
			if !has {
				p.ScaleUp, p.OutsideRange = true, true
				continue
			}
			requests[name] += milli(req)
			p.ScaleUp = p.ScaleUp || t.Cmp(req) > 0
			p.OutsideRange = p.OutsideRange || outside(req, name, rec)
		}
		p.QuickOOM = p.QuickOOM || quickOOM(pod, c.Name, now, th.EvictAfterOOM)
	}
	for name, t := range targets {
		// As upstream: a total request below 1 (none) counts as 1.
		r := math.Max(requests[name], 1)
		p.ResourceDiff += math.Abs(r-t) / r
	}
	if pod.Status.StartTime != nil {
		p.HasStartTime, p.Age = true, now.Sub(pod.Status.StartTime.Time)
	}
	return p
}

func milli(q resource.Quantity) float64 { return float64(q.MilliValue()) }

func outside(req resource.Quantity, name corev1.ResourceName, rec recommendation.Container) bool {
	if lo, ok := rec.LowerBound[name]; ok && req.Cmp(lo) < 0 {
		return true
	}
	if hi, ok := rec.UpperBound[name]; ok && req.Cmp(hi) > 0 {
		return true
	}
	return false
}

// observedContainers returns the names in the observed-containers
// annotation, or nil when the pod has none or it does not parse (a name
// that is not a DNS-1123 label between the ", " separators), as upstream.
func observedContainers(pod *corev1.Pod) []string {
	v, ok := pod.Annotations[ObservedContainersAnnotation]
	if !ok {
		return nil
	}
	if v == "" {
		return []string{}
	}
	names := strings.Split(v, ", ")
	for _, n := range names {
		if len(validation.IsDNS1123Label(n)) > 0 {
			return nil // unparsable: ignored, as upstream
		}
	}
	return names
}

// quickOOM reports whether the named container's last termination was an
// OOM kill after running less than threshold, and finished less than
// threshold before now.
func quickOOM(pod *corev1.Pod, name string, now time.Time, threshold time.Duration) bool {
	for _, s := range pod.Status.ContainerStatuses {
		if s.Name != name {
			continue
		}
		t := s.LastTerminationState.Terminated
		if t == nil || t.Reason != "OOMKilled" {
			return false
		}
		ran := t.FinishedAt.Sub(t.StartedAt.Time)
		return ran < threshold && now.Sub(t.FinishedAt.Time) < threshold
	}
	return false
}
