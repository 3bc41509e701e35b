package updater

import (
	"math"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/promreg"
)

// upstreamMetrics are upstream VPA's vpa_updater_* families
// (pkg/utils/metrics/updater), beside kscale's own.
type upstreamMetrics struct {
	controlled    *prometheus.GaugeVec
	evictable     *prometheus.GaugeVec
	vpasEvictable *prometheus.GaugeVec
	vpasEvicted   *prometheus.GaugeVec
	evicted       *prometheus.CounterVec
	failed        *prometheus.CounterVec

	inPlaceUpdatable     *prometheus.GaugeVec
	vpasInPlaceUpdatable *prometheus.GaugeVec
	vpasInPlaceUpdated   *prometheus.GaugeVec
	inPlaceUpdated       *prometheus.CounterVec
	failedInPlace        *prometheus.CounterVec
	infeasibleSkips      *prometheus.CounterVec

	statusInvalid *prometheus.CounterVec
	execution     *prometheus.HistogramVec

	sizes map[types.UID]int
	loop  *loopTally
}

// maxVPASizeLog2 is upstream's largest vpa_size_log2 bucket.
const maxVPASizeLog2 = 20

// executionBuckets are upstream's execution latency buckets (0.01s to 300s).
var executionBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 20, 30, 60, 120, 300}

// Upstream's reasons of the failed eviction and in-place update counters
// and of admission_controller_status_invalid_total.
const (
	reasonEvictionError             = "EvictionError"
	reasonEvictionRateLimiterFailed = "EvictionRateLimiterWaitFailed"
	reasonInPlaceUpdateError        = "InPlaceUpdateError"
	reasonInPlaceRateLimiterFailed  = "InPlaceUpdateRateLimiterWaitFailed"
	reasonAdmissionStatusError      = "error"
	reasonAdmissionStatusInvalid    = "invalid"
)

func newUpstreamMetrics(reg prometheus.Registerer) (*upstreamMetrics, error) {
	const ns = "vpa_updater"
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	const size, mode, name, namespace = "vpa_size_log2", "update_mode", "vpa_name", "vpa_namespace"
	m := &upstreamMetrics{
		controlled:    gauge("controlled_pods_total", "Number of Pods controlled by VPA updater.", size, mode),
		evictable:     gauge("evictable_pods_total", "Number of Pods matching eviction criteria.", size, mode),
		vpasEvictable: gauge("vpas_with_evictable_pods_total", "Number of VPA objects with at least one Pod matching eviction criteria.", size, mode),
		vpasEvicted:   gauge("vpas_with_evicted_pods_total", "Number of VPA objects with at least one evicted Pod.", size, mode),
		evicted:       counter("evicted_pods_total", "Number of Pods evicted by Updater to apply a new recommendation.", size, mode, name, namespace),
		failed:        counter("failed_eviction_attempts_total", "Number of failed attempts to update Pods by eviction", size, mode, "reason", name, namespace),

		inPlaceUpdatable:     gauge("in_place_updatable_pods_total", "Number of Pods matching in place update criteria.", size),
		vpasInPlaceUpdatable: gauge("vpas_with_in_place_updatable_pods_total", "Number of VPA objects with at least one Pod matching in place update criteria.", size),
		vpasInPlaceUpdated:   gauge("vpas_with_in_place_updated_pods_total", "Number of VPA objects with at least one in-place updated Pod.", size),
		inPlaceUpdated:       counter("in_place_updated_pods_total", "Number of Pods updated in-place by Updater to apply a new recommendation.", size, name, namespace),
		failedInPlace:        counter("failed_in_place_update_attempts_total", "Number of failed attempts to update Pods in-place.", size, "reason", name, namespace),
		infeasibleSkips: counter("in_place_infeasible_skip_pods_total",
			"Number of pods that were skipped for in-place update due to cached infeasibility (kscale keeps no such cache: no series).", size, name, namespace),

		statusInvalid: counter("admission_controller_status_invalid_total",
			"Number of times Updater skipped its main loop because the Admission Controller status Lease was missing, stale or otherwise invalid.", "reason"),
		execution: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "execution_latency_seconds",
			Help: "Time spent in various parts of VPA Updater main loop.", Buckets: executionBuckets}, []string{"step"}),
		sizes: map[types.UID]int{},
		loop:  newLoopTally(),
	}
	if err := promreg.Register(reg, "updater (upstream families)", m.controlled, m.evictable, m.vpasEvictable, m.vpasEvicted,
		m.evicted, m.failed, m.inPlaceUpdatable, m.vpasInPlaceUpdatable, m.vpasInPlaceUpdated, m.inPlaceUpdated, m.failedInPlace,
		m.infeasibleSkips, m.statusInvalid, m.execution); err != nil {
		return nil, err
	}
	return m, nil
}

// sizeLog2 is upstream's vpa_size_log2 of a VPA controlling size pods.
func sizeLog2(size int) string {
	if size <= 0 {
		return "0"
	}
	return strconv.Itoa(min(int(math.Log2(float64(size))), maxVPASizeLog2))
}

// step observes one loop step (upstream's names: AdmissionInit, ListPods,
// EvictPods, total).
func (m *upstreamMetrics) step(name string, d time.Duration) {
	m.execution.WithLabelValues(name).Observe(d.Seconds())
}

// admissionStatusInvalid counts a loop skipped for the admission
// controller's status Lease: "error" when it could not be read, "invalid"
// when it is missing or stale.
func (m *upstreamMetrics) admissionStatusInvalid(err error) {
	reason := reasonAdmissionStatusInvalid
	if err != nil {
		reason = reasonAdmissionStatusError
	}
	m.statusInvalid.WithLabelValues(reason).Inc()
}

// observeWork sets controlled_pods_total from this loop's VPAs (every size
// bucket and mode at 0 first), remembers each VPA's size for the counters,
// creates each VPA's evicted and in-place updated counters at 0 as
// upstream, and starts the loop's tallies.
func (m *upstreamMetrics) observeWork(work workList) {
	counts := map[[2]string]int{}
	clear(m.sizes)
	m.loop = newLoopTally()
	for _, w := range work {
		size := 0
		for _, g := range w.groups {
			size += len(g.pods)
		}
		m.sizes[w.vpa.UID] = size
		log2, mode := sizeLog2(size), string(UpdateMode(w.vpa))
		counts[[2]string{log2, mode}] += size
		m.evicted.WithLabelValues(log2, mode, w.vpa.Name, w.vpa.Namespace)
		m.inPlaceUpdated.WithLabelValues(log2, w.vpa.Name, w.vpa.Namespace)
	}
	for mode := range vpav1.GetUpdateModes() {
		for log2 := 0; log2 <= maxVPASizeLog2; log2++ {
			key := [2]string{strconv.Itoa(log2), string(mode)}
			m.controlled.WithLabelValues(key[0], key[1]).Set(float64(counts[key]))
		}
	}
}

// labels returns the VPA's size bucket and update mode.
func (m *upstreamMetrics) labels(vpa *vpav1.VerticalPodAutoscaler) (string, string) {
	return sizeLog2(m.sizes[vpa.UID]), string(UpdateMode(vpa))
}

// planned records how many of the VPA's pods are worth updating this loop:
// in-place updatable for InPlaceOrRecreate, evictable otherwise.
func (m *upstreamMetrics) planned(vpa *vpav1.VerticalPodAutoscaler, pods int) {
	log2, mode := m.labels(vpa)
	if UpdateMode(vpa) == vpav1.UpdateModeInPlaceOrRecreate {
		m.loop.inPlaceUpdatable.add(log2, "", pods, vpa.UID)
		return
	}
	m.loop.evictable.add(log2, mode, pods, vpa.UID)
}

// evictedPod counts an eviction of a pod of vpa.
func (m *upstreamMetrics) evictedPod(vpa *vpav1.VerticalPodAutoscaler) {
	log2, mode := m.labels(vpa)
	m.evicted.WithLabelValues(log2, mode, vpa.Name, vpa.Namespace).Inc()
	m.loop.evicted.add(log2, mode, 1, vpa.UID)
}

// failedEviction counts a failed eviction attempt for reason.
func (m *upstreamMetrics) failedEviction(vpa *vpav1.VerticalPodAutoscaler, reason string) {
	log2, mode := m.labels(vpa)
	m.failed.WithLabelValues(log2, mode, reason, vpa.Name, vpa.Namespace).Inc()
}

// inPlaceUpdatedPod counts a pod of vpa resized in place.
func (m *upstreamMetrics) inPlaceUpdatedPod(vpa *vpav1.VerticalPodAutoscaler) {
	log2, _ := m.labels(vpa)
	m.inPlaceUpdated.WithLabelValues(log2, vpa.Name, vpa.Namespace).Inc()
	m.loop.inPlaceUpdated.add(log2, "", 1, vpa.UID)
}

// failedInPlaceUpdate counts a failed in-place update attempt for reason.
func (m *upstreamMetrics) failedInPlaceUpdate(vpa *vpav1.VerticalPodAutoscaler, reason string) {
	log2, _ := m.labels(vpa)
	m.failedInPlace.WithLabelValues(log2, reason, vpa.Name, vpa.Namespace).Inc()
}

// rateLimiterFailed counts a rate limiter wait that failed before updating
// a pod of vpa, under the in-place or the eviction counter by its mode.
func (m *upstreamMetrics) rateLimiterFailed(vpa *vpav1.VerticalPodAutoscaler) {
	if UpdateMode(vpa) == vpav1.UpdateModeInPlaceOrRecreate {
		m.failedInPlaceUpdate(vpa, reasonInPlaceRateLimiterFailed)
		return
	}
	m.failedEviction(vpa, reasonEvictionRateLimiterFailed)
}

// publish sets the per-loop gauges from the loop's tallies, as upstream
// does at the end of each loop: the size-and-mode gauges only for the
// buckets seen, the size-only gauges for every bucket.
func (m *upstreamMetrics) publish() {
	l := m.loop
	l.evictable.publishByMode(m.evictable, false)
	l.evictable.publishByMode(m.vpasEvictable, true)
	l.evicted.publishByMode(m.vpasEvicted, true)
	l.inPlaceUpdatable.publishBySize(m.inPlaceUpdatable, false)
	l.inPlaceUpdatable.publishBySize(m.vpasInPlaceUpdatable, true)
	l.inPlaceUpdated.publishBySize(m.vpasInPlaceUpdated, true)
}
