package recommender

import (
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	uplogic "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/logic"
	upmodel "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/model"
)

// upstreamBench is the upstream v1.7.3 recommender's model (ClusterState)
// and logic (PodResourceRecommender) over a benchInput, with the same hour
// of one-minute history as benchState. It is the comparison baseline of
// BenchmarkRecommenderLoop; the upstream packages are called as a library.
type upstreamBench struct {
	in       *benchInput
	cluster  upmodel.ClusterState
	rec      uplogic.PodResourceRecommender
	format   uplogic.RecommendationFormat
	vpas     []*upmodel.Vpa
	podIDs   []upmodel.PodID
	podLabel []labels.Set
	samples  []upmodel.ContainerUsageSampleWithKey
	perAggB  float64
}

// upstreamRecommendationConfig is upstream's default recommendation
// configuration (its DefaultRecommenderConfig), the same values as kscale's
// estimator defaults.
func upstreamRecommendationConfig() uplogic.RecommendationConfig {
	return uplogic.RecommendationConfig{
		SafetyMarginFraction:       0.15,
		PodMinCPUMillicores:        25,
		PodMinMemoryMb:             250,
		TargetCPUPercentile:        0.9,
		LowerBoundCPUPercentile:    0.5,
		UpperBoundCPUPercentile:    0.95,
		ConfidenceIntervalCPU:      24 * time.Hour,
		TargetMemoryPercentile:     0.9,
		LowerBoundMemoryPercentile: 0.5,
		UpperBoundMemoryPercentile: 0.95,
		ConfidenceIntervalMemory:   24 * time.Hour,
	}
}

// newUpstreamBench loads in into upstream's ClusterState the way upstream's
// feeder does (VPAs, then pods and their containers, then samples) and
// measures the model's heap per aggregate, as newBenchState does.
func newUpstreamBench(tb testing.TB, in *benchInput) *upstreamBench {
	tb.Helper()
	u := &upstreamBench{in: in, rec: uplogic.CreatePodResourceRecommender(upstreamRecommendationConfig()),
		format: uplogic.RecommendationFormat{RoundCPUMillicores: 1, RoundMemoryBytes: 1}}
	for _, p := range in.pods {
		u.podIDs = append(u.podIDs, upmodel.PodID{Namespace: p.ID.Namespace, PodName: p.ID.Name})
		u.podLabel = append(u.podLabel, labels.Set(p.Labels))
	}
	u.samples = make([]upmodel.ContainerUsageSampleWithKey, 0, 2*benchContainers)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	u.cluster = upmodel.NewClusterState(time.Hour)
	for _, e := range in.vpas {
		if err := u.cluster.AddOrUpdateVpa(e.vpa, e.selector); err != nil {
			tb.Fatalf("adding VPA %s to the upstream model: %v", e.id.Name, err)
		}
		u.vpas = append(u.vpas, u.cluster.VPAs()[upmodel.VpaID{Namespace: e.id.Namespace, VpaName: e.id.Name}])
	}
	// Each new aggregate is matched against every VPA here, as in upstream's
	// start-up: this takes about 4 minutes on the shared 2-core machine.
	u.setPods(tb)
	t0 := benchStart()
	for m := range benchHistory {
		in.setUsage(t0.Add(time.Duration(m) * time.Minute))
		u.feedUsage(tb)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if n := u.cluster.StateMapSize(); n != benchContainers {
		tb.Fatalf("%d upstream aggregates, want %d", n, benchContainers)
	}
	u.perAggB = float64(after.HeapAlloc-before.HeapAlloc) / benchContainers
	return u
}

// setPods adds or updates every pod and its containers (upstream's LoadPods).
func (u *upstreamBench) setPods(tb testing.TB) {
	for i, p := range u.in.pods {
		u.cluster.AddOrUpdatePod(u.podIDs[i], u.podLabel[i], corev1.PodRunning)
		for _, c := range p.Containers {
			id := upmodel.ContainerID{PodID: u.podIDs[i], ContainerName: c}
			if err := u.cluster.AddOrUpdateContainer(id, upmodel.Resources{}); err != nil {
				tb.Fatalf("adding container %s/%s to the upstream model: %v", p.ID.Name, c, err)
			}
		}
	}
}

// feedUsage adds one CPU and one memory sample per entry of u.in.usage
// (upstream's LoadRealTimeMetrics). Every sample must be accepted.
func (u *upstreamBench) feedUsage(tb testing.TB) {
	u.samples = u.samples[:0]
	for _, cu := range u.in.usage {
		id := upmodel.ContainerID{PodID: upmodel.PodID{Namespace: cu.Pod.Namespace, PodName: cu.Pod.Name},
			ContainerName: cu.Container}
		u.samples = append(u.samples,
			upmodel.ContainerUsageSampleWithKey{Container: id, ContainerUsageSample: upmodel.ContainerUsageSample{
				MeasureStart: cu.Time, Usage: upmodel.CPUAmountFromCores(cu.CPUCores), Resource: upmodel.ResourceCPU}},
			upmodel.ContainerUsageSampleWithKey{Container: id, ContainerUsageSample: upmodel.ContainerUsageSample{
				MeasureStart: cu.Time, Usage: upmodel.MemoryAmountFromBytes(cu.MemoryBytes), Resource: upmodel.ResourceMemory}})
	}
	for i := range u.samples {
		if err := u.cluster.AddSample(&u.samples[i]); err != nil {
			tb.Fatalf("adding sample %d to the upstream model: %v", i, err)
		}
	}
}

// loop is the same step as benchState.loop on the upstream model: pods and
// samples in, then for every VPA what upstream's processVPAUpdate does
// short of the API write and the capping post-processor (it lives in
// upstream's routines package, not imported here; with no policies and no
// global maximum it changes nothing, but it would add its own copies).
func (u *upstreamBench) loop(tb testing.TB, now time.Time) int {
	u.setPods(tb)
	u.feedUsage(tb)
	withRec := 0
	for _, vpa := range u.vpas {
		resources := u.rec.GetRecommendedPodResources(vpa.AggregateStateByContainerName())
		vpa.UpdateRecommendation(uplogic.MapToListOfRecommendedContainerResources(resources, u.format))
		vpa.UpdateConditions(vpa.PodCount > 0)
		if err := u.cluster.RecordRecommendation(vpa, now); err != nil {
			tb.Fatalf("recording the recommendation of %s: %v", vpa.ID.VpaName, err)
		}
		if st := vpa.AsStatus(); st.Recommendation != nil && len(st.Recommendation.ContainerRecommendations) > 0 {
			withRec++
		}
	}
	return withRec
}
