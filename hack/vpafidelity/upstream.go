package vpafidelity

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/logic"
	umodel "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/model"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/recommender/util"
	vpautil "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/utils/vpa"
)

// Upstream runs upstream VPA's recommender model and logic. Upstream keeps
// its aggregation settings in a package variable, so streams must not run
// concurrently.
type Upstream struct{}

const namespace = "ns"

var metav1Zero = metav1.Time{}

var upstreamVPAID = umodel.VpaID{Namespace: namespace, VpaName: "vpa"}

// podLabels returns the labels of a pod of label variant v.
func podLabels(v int) labels.Set { return labels.Set{"app": "a", "variant": fmt.Sprint(v)} }

// vpaObject returns the VPA every stream runs under.
func vpaObject() *vpav1.VerticalPodAutoscaler {
	return &vpav1.VerticalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "vpa"}}
}

// configure sets upstream's aggregation settings from f.
func (Upstream) configure(f Flags) {
	umodel.InitializeAggregationsConfig(umodel.NewAggregationsConfig(f.MemoryInterval, f.MemoryIntervalCount,
		f.MemoryHalfLife, f.CPUHalfLife, f.OOMBumpUpRatio, f.OOMMinBumpUpBytes))
}

// Run implements Side.
func (u Upstream) Run(s *Stream) *Outcome {
	u.configure(s.Flags)
	cluster := umodel.NewClusterState(0)
	if err := cluster.AddOrUpdateVpa(vpaObject(), labels.SelectorFromSet(labels.Set{"app": "a"})); err != nil {
		panic(fmt.Sprintf("adding the VPA: %v", err))
	}
	gen := make([]int, len(s.Variants))
	podID := func(slot int) umodel.PodID {
		return umodel.PodID{Namespace: namespace, PodName: fmt.Sprintf("p%d-%d", slot, gen[slot])}
	}
	addPod := func(slot int) {
		cluster.AddOrUpdatePod(podID(slot), podLabels(s.Variants[slot]), corev1.PodRunning)
		for c := range s.Containers {
			id := umodel.ContainerID{PodID: podID(slot), ContainerName: ContainerName(c)}
			if err := cluster.AddOrUpdateContainer(id, umodel.Resources{}); err != nil {
				panic(fmt.Sprintf("adding container %v: %v", id, err))
			}
		}
	}
	for slot := range s.Variants {
		addPod(slot)
	}
	out := &Outcome{Accepted: make([]bool, len(s.Events))}
	for i, e := range s.Events {
		t := s.Start.Add(e.At)
		id := umodel.ContainerID{PodID: podID(e.Pod), ContainerName: ContainerName(e.Container)}
		switch e.Kind {
		case CPU, Memory:
			res := umodel.ResourceCPU
			if e.Kind == Memory {
				res = umodel.ResourceMemory
			}
			out.Accepted[i] = cluster.AddSample(&umodel.ContainerUsageSampleWithKey{Container: id,
				ContainerUsageSample: umodel.ContainerUsageSample{MeasureStart: t, Usage: umodel.ResourceAmount(e.Value), Resource: res}}) == nil
		case OOM:
			out.Accepted[i] = cluster.RecordOOM(id, t, umodel.ResourceAmount(e.Value)) == nil
		case Restart:
			cluster.DeletePod(podID(e.Pod))
			gen[e.Pod]++
			addPod(e.Pod)
			out.Accepted[i] = true
		}
	}
	now := s.Start.Add(s.End)
	vpa := cluster.VPAs()[upstreamVPAID]
	states := vpa.AggregateStateByContainerName()
	out.States = map[string]State{}
	for name, st := range states {
		out.States[name] = upstreamState(st)
	}
	out.Bounds = u.bounds(s.Flags, states)
	out.Recommendation = u.recommendation(s.Flags, states)
	// Upstream's checkpoint writer (pkg/recommender/checkpoint,
	// buildAggregateContainerStateMap): a fresh merge per container name,
	// minus the peak of every live container whose window is still open.
	cpStates := vpa.AggregateStateByContainerName()
	before := map[string]vpav1.HistogramCheckpoint{}
	for name, st := range cpStates {
		before[name] = saveHistogram(st.AggregateMemoryPeaks)
	}
	for _, pod := range cluster.Pods() {
		for name, c := range pod.Containers {
			if st, ok := cpStates[name]; ok && vpa.UsesAggregation(cluster.MakeAggregateStateKey(pod, name)) && now.Before(c.WindowEnd) {
				st.AggregateMemoryPeaks.SubtractSample(umodel.BytesFromMemoryAmount(c.GetMaxMemoryPeak()), 1.0, c.WindowEnd)
			}
		}
	}
	out.Checkpoints = upstreamCheckpoints(cpStates)
	out.CheckpointScale = map[string]float64{}
	for name, b := range before {
		shift := out.Checkpoints[name].MemoryHistogram.ReferenceTimestamp.Sub(b.ReferenceTimestamp.Time)
		out.CheckpointScale[name] = b.TotalWeight * math.Exp2(-float64(shift)/float64(s.Flags.MemoryHalfLife))
	}
	return out
}

// Load implements Side.
func (u Upstream) Load(s *Stream, cps map[string]vpav1.VerticalPodAutoscalerCheckpointStatus) *Loaded {
	u.configure(s.Flags)
	states := umodel.ContainerNameToAggregateStateMap{}
	for name, cp := range cps {
		st := umodel.NewAggregateContainerState()
		if err := st.LoadFromCheckpoint(&cp); err != nil {
			return &Loaded{Err: err.Error()}
		}
		states[name] = st
	}
	return &Loaded{Bounds: u.bounds(s.Flags, states), Checkpoints: upstreamCheckpoints(states)}
}

// upstreamCheckpoints saves every state, without its time stamp.
func upstreamCheckpoints(states umodel.ContainerNameToAggregateStateMap) map[string]vpav1.VerticalPodAutoscalerCheckpointStatus {
	out := map[string]vpav1.VerticalPodAutoscalerCheckpointStatus{}
	for name, st := range states {
		cp, err := st.SaveToCheckpoint()
		if err != nil {
			panic(fmt.Sprintf("saving the checkpoint of %s: %v", name, err))
		}
		cp.LastUpdateTime = metav1.Time{}
		out[name] = *cp
	}
	return out
}

// upstreamState reads one merged state.
func upstreamState(st *umodel.AggregateContainerState) State {
	return State{
		CPU: saveHistogram(st.AggregateCPUUsage), Memory: saveHistogram(st.AggregateMemoryPeaks),
		CPUPercentiles: percentiles(st.AggregateCPUUsage), MemoryPercentiles: percentiles(st.AggregateMemoryPeaks),
		First: st.FirstSampleStart, Last: st.LastSampleStart, Samples: st.TotalSamplesCount,
	}
}

func saveHistogram(h util.Histogram) vpav1.HistogramCheckpoint {
	cp, err := h.SaveToChekpoint()
	if err != nil {
		panic(fmt.Sprintf("saving a histogram: %v", err))
	}
	return *cp
}

func percentiles(h interface{ Percentile(float64) float64 }) []float64 {
	out := make([]float64, len(percentilePoints))
	for i, p := range percentilePoints {
		out[i] = h.Percentile(p)
	}
	return out
}

// recommender returns upstream's pod resource recommender for f.
func recommender(f Flags) logic.PodResourceRecommender {
	return logic.CreatePodResourceRecommender(logic.RecommendationConfig{
		SafetyMarginFraction: f.Margin, PodMinCPUMillicores: float64(f.PodMinCPUMillicores), PodMinMemoryMb: float64(f.PodMinMemoryMB),
		TargetCPUPercentile: f.TargetCPU, LowerBoundCPUPercentile: f.LowerCPU, UpperBoundCPUPercentile: f.UpperCPU,
		ConfidenceIntervalCPU: f.ConfidenceCPU, TargetMemoryPercentile: f.TargetMemory, LowerBoundMemoryPercentile: f.LowerMemory,
		UpperBoundMemoryPercentile: f.UpperMemory, ConfidenceIntervalMemory: f.ConfidenceMemory,
	})
}

// bounds returns upstream's raw estimates per container.
func (Upstream) bounds(f Flags, states umodel.ContainerNameToAggregateStateMap) map[string]Bounds {
	out := map[string]Bounds{}
	for name, r := range recommender(f).GetRecommendedPodResources(states) {
		out[name] = Bounds{
			TargetCPU: int64(r.Target[umodel.ResourceCPU]), TargetMemory: int64(r.Target[umodel.ResourceMemory]),
			LowerCPU: int64(r.LowerBound[umodel.ResourceCPU]), LowerMemory: int64(r.LowerBound[umodel.ResourceMemory]),
			UpperCPU: int64(r.UpperBound[umodel.ResourceCPU]), UpperMemory: int64(r.UpperBound[umodel.ResourceMemory]),
		}
	}
	return out
}

// recommendation returns what upstream writes into the VPA status: the
// estimates rounded as the flags say, capped by the global maximum.
func (Upstream) recommendation(f Flags, states umodel.ContainerNameToAggregateStateMap) map[string]vpav1.RecommendedContainerResources {
	list := logic.MapToListOfRecommendedContainerResources(recommender(f).GetRecommendedPodResources(states),
		logic.RecommendationFormat{RoundCPUMillicores: int(f.RoundCPUMillicores), RoundMemoryBytes: int(f.RoundMemoryBytes)})
	globalMax := corev1.ResourceList{}
	if f.MaxCPUMillicores > 0 {
		globalMax[corev1.ResourceCPU] = *resource.NewMilliQuantity(f.MaxCPUMillicores, resource.DecimalSI)
	}
	if f.MaxMemoryBytes > 0 {
		globalMax[corev1.ResourceMemory] = *resource.NewQuantity(f.MaxMemoryBytes, resource.BinarySI)
	}
	// What upstream's capping post-processor (pkg/recommender/routines) does.
	list, err := vpautil.ApplyVPAPolicy(list, nil, globalMax)
	if err != nil {
		panic(fmt.Sprintf("capping the recommendation: %v", err))
	}
	out := map[string]vpav1.RecommendedContainerResources{}
	for _, r := range list.ContainerRecommendations {
		out[r.ContainerName] = r
	}
	return out
}
