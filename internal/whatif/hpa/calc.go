// Package hpa is the HorizontalPodAutoscaler's decision, as
// kube-controller-manager computes it (vpa-hpa.md §6): the replica
// calculation of a Pods metric with an AverageValue target and of a CPU
// Utilization target, and the normalization of the proposal by the HPA's
// behavior (stabilization windows, rate policies, min/max) or, without a
// behavior, by the legacy rules. It is pure: time is a value.
//
// PodsMetricReplicas is compared with upstream's own
// ReplicaCalculator.GetMetricReplicas on random inputs by hack/hpaoracle
// (TestOracle).
package hpa

import (
	"errors"
	"math"
)

// ErrNoMetrics is returned when no pod has a usable metric.
var ErrNoMetrics = errors.New("did not receive metrics for targeted pods (pods might be unready)")

// ErrNoPods is returned when the selector matches no pod.
var ErrNoPods = errors.New("no pods returned by selector while calculating replica count")

// Pod is one pod the HPA's selector matches, as the calculator sees it.
type Pod struct {
	// Pending marks a pod in phase Pending.
	Pending bool
	// Ignored marks a pod that is being deleted or has failed.
	Ignored bool
	// HasMetric reports whether the metrics API returned a value.
	HasMetric bool
	// MetricMilli is the metric value (milli-units; millicores for CPU).
	MetricMilli int64
	// RequestMilli is the pod's request of the resource (CPU targets only).
	RequestMilli int64
	// Unready marks a running pod the CPU rules count as not ready yet
	// (inside its initialization period); Pods metrics ignore it.
	Unready bool
}

// Tolerances are the scale-down and scale-up tolerances around a ratio of 1.
type Tolerances struct {
	// Down is the scale-down tolerance.
	Down float64
	// Up is the scale-up tolerance.
	Up float64
}

func (t Tolerances) within(r float64) bool { return 1-t.Down <= r && r <= 1+t.Up }

// groups are the indices of the ready, unready and missing pods.
type groups struct {
	ready            []int
	unready, missing []int
}

// group sorts pods as upstream's groupPods does: ignored, unready
// (Pending, or Unready for CPU), missing (no metric) and ready; it fails
// without pods or without a ready pod with a metric.
func group(pods []Pod, cpu bool) (groups, error) {
	var g groups
	for i, p := range pods {
		switch {
		case p.Ignored:
		case p.Pending:
			g.unready = append(g.unready, i)
		case !p.HasMetric:
			g.missing = append(g.missing, i)
		case cpu && p.Unready:
			g.unready = append(g.unready, i)
		default:
			g.ready = append(g.ready, i)
		}
	}
	switch {
	case len(pods) == 0:
		return g, ErrNoPods
	case len(g.ready) == 0:
		return g, ErrNoMetrics
	}
	return g, nil
}

// PodsMetricReplicas proposes a replica count for a Pods metric with an
// AverageValue target (milli-units) and returns it with the average
// metric value. current is the scale's replica count.
func PodsMetricReplicas(current int32, targetMilli int64, tol Tolerances, pods []Pod) (int32, int64, error) {
	g, err := group(pods, false)
	if err != nil {
		return 0, 0, err
	}
	var total int64
	for _, i := range g.ready {
		total += pods[i].MetricMilli
	}
	usage := total / int64(len(g.ready))
	ratio := float64(usage) / float64(targetMilli)
	if n, ok := direct(current, ratio, g, tol); ok {
		return n, usage, nil
	}
	withUnready := len(g.unready) > 0 && ratio > 1
	n := len(g.ready)
	switch {
	case len(g.missing) > 0 && ratio < 1:
		total += targetMilli * int64(len(g.missing))
		n += len(g.missing)
	case len(g.missing) > 0 && ratio > 1:
		n += len(g.missing)
	}
	if withUnready {
		n += len(g.unready)
	}
	newRatio := float64(total/int64(n)) / float64(targetMilli)
	return settle(current, ratio, newRatio, n, tol), usage, nil
}

// direct is the answer when no pod is missing a metric and no unready
// pod matters (ratio ≤ 1): current within the tolerance, else the ratio
// times the ready pods, rounded up. ok is false when values must be
// assumed for some pods first.
func direct(current int32, ratio float64, g groups, tol Tolerances) (int32, bool) {
	if (len(g.unready) > 0 && ratio > 1) || len(g.missing) > 0 {
		return 0, false
	}
	if tol.within(ratio) {
		return current, true
	}
	return int32(math.Ceil(ratio * float64(len(g.ready)))), true
}

// settle is the end of upstream's recomputation with assumed values: keep
// current when the new ratio is within tolerance, flips the direction, or
// the rounded count moves against it.
func settle(current int32, ratio, newRatio float64, n int, tol Tolerances) int32 {
	if tol.within(newRatio) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1) {
		return current
	}
	r := int32(math.Ceil(newRatio * float64(n)))
	if (newRatio < 1 && r > current) || (newRatio > 1 && r < current) {
		return current
	}
	return r
}

// CPUUtilizationReplicas proposes a replica count for a CPU Utilization
// target (percent of requests) and returns it with the utilization.
func CPUUtilizationReplicas(current int32, targetPercent int32, tol Tolerances, pods []Pod) (int32, int32, error) {
	g, err := group(pods, true)
	if err != nil {
		return 0, 0, err
	}
	var use, req int64
	for _, i := range g.ready {
		use += pods[i].MetricMilli
		req += pods[i].RequestMilli
	}
	if req == 0 {
		return 0, 0, errors.New("missing request for cpu")
	}
	util := int32(use * 100 / req)
	ratio := float64(util) / float64(targetPercent)
	if n, ok := direct(current, ratio, g, tol); ok {
		return n, util, nil
	}
	withUnready := len(g.unready) > 0 && ratio > 1
	n := len(g.ready)
	extra := func(idx []int, percent int64) {
		for _, i := range idx {
			use += pods[i].RequestMilli * percent / 100
			req += pods[i].RequestMilli
			n++
		}
	}
	switch {
	case len(g.missing) > 0 && ratio < 1:
		extra(g.missing, int64(max(100, targetPercent)))
	case len(g.missing) > 0 && ratio > 1:
		extra(g.missing, 0)
	}
	if withUnready {
		extra(g.unready, 0)
	}
	newRatio := float64(use*100/req) / float64(targetPercent)
	return settle(current, ratio, newRatio, n, tol), util, nil
}
