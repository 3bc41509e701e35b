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
	controlled *prometheus.GaugeVec
	evicted    *prometheus.CounterVec
	failed     *prometheus.CounterVec
	execution  *prometheus.HistogramVec
	sizes      map[types.UID]int
}

// maxVPASizeLog2 is upstream's largest vpa_size_log2 bucket.
const maxVPASizeLog2 = 20

// executionBuckets are upstream's execution latency buckets (0.01s to 300s).
var executionBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 20, 30, 60, 120, 300}

func newUpstreamMetrics(reg prometheus.Registerer) (*upstreamMetrics, error) {
	const ns = "vpa_updater"
	m := &upstreamMetrics{
		controlled: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "controlled_pods_total",
			Help: "Number of Pods controlled by VPA updater."}, []string{"vpa_size_log2", "update_mode"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "evicted_pods_total",
			Help: "Number of Pods evicted by Updater to apply a new recommendation."}, []string{"vpa_size_log2", "update_mode", "vpa_name", "vpa_namespace"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "failed_eviction_attempts_total",
			Help: "Number of failed attempts to update Pods by eviction"}, []string{"vpa_size_log2", "update_mode", "reason", "vpa_name", "vpa_namespace"}),
		execution: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "execution_latency_seconds",
			Help: "Time spent in various parts of VPA Updater main loop.", Buckets: executionBuckets}, []string{"step"}),
		sizes: map[types.UID]int{},
	}
	if err := promreg.Register(reg, "updater (upstream families)", m.controlled, m.evicted, m.failed, m.execution); err != nil {
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

// observeWork sets controlled_pods_total from this loop's VPAs (every size
// bucket and mode at 0 first, as upstream) and remembers each VPA's size
// for the eviction counters.
func (m *upstreamMetrics) observeWork(work workList) {
	counts := map[[2]string]int{}
	clear(m.sizes)
	for _, w := range work {
		size := 0
		for _, g := range w.groups {
			size += len(g.pods)
		}
		m.sizes[w.vpa.UID] = size
		counts[[2]string{sizeLog2(size), string(UpdateMode(w.vpa))}] += size
	}
	for mode := range vpav1.GetUpdateModes() {
		for log2 := 0; log2 <= maxVPASizeLog2; log2++ {
			key := [2]string{strconv.Itoa(log2), string(mode)}
			m.controlled.WithLabelValues(key[0], key[1]).Set(float64(counts[key]))
		}
	}
}

// evictedPod counts an eviction of a pod of vpa.
func (m *upstreamMetrics) evictedPod(vpa *vpav1.VerticalPodAutoscaler) {
	m.evicted.WithLabelValues(sizeLog2(m.sizes[vpa.UID]), string(UpdateMode(vpa)), vpa.Name, vpa.Namespace).Inc()
}

// failedEviction counts a refused eviction (upstream's reason EvictionError).
func (m *upstreamMetrics) failedEviction(vpa *vpav1.VerticalPodAutoscaler) {
	m.failed.WithLabelValues(sizeLog2(m.sizes[vpa.UID]), string(UpdateMode(vpa)), "EvictionError", vpa.Name, vpa.Namespace).Inc()
}
