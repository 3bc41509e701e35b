package vpafidelity

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/model"
)

// Kscale runs kscale's recommender model (internal/vpa/model) and
// estimator (internal/vpa/estimator), configured as `kscale vpa-recommender`
// configures them from the same flags (Default, then Validate).
type Kscale struct{}

var kscaleVPAID = model.VPAID{Namespace: namespace, Name: "vpa"}

// configs returns the model and estimator configuration of f.
func (Kscale) configs(f Flags) (*model.Config, estimator.Config) {
	m := &model.Config{CPUHalfLife: f.CPUHalfLife, MemoryHalfLife: f.MemoryHalfLife,
		MemoryAggregationInterval: f.MemoryInterval, MemoryAggregationIntervalCount: f.MemoryIntervalCount,
		OOMBumpUpRatio: f.OOMBumpUpRatio, OOMMinBumpUpBytes: f.OOMMinBumpUpBytes}
	m.Default()
	if err := m.Validate(); err != nil {
		panic(fmt.Sprintf("model config of %+v: %v", f, err))
	}
	e := estimator.Config{TargetCPUPercentile: f.TargetCPU, LowerBoundCPUPercentile: f.LowerCPU, UpperBoundCPUPercentile: f.UpperCPU,
		TargetMemoryPercentile: f.TargetMemory, LowerBoundMemoryPercentile: f.LowerMemory, UpperBoundMemoryPercentile: f.UpperMemory,
		MarginFraction: f.Margin, ConfidenceIntervalCPU: f.ConfidenceCPU, ConfidenceIntervalMemory: f.ConfidenceMemory,
		PodMinCPUMillicores: f.PodMinCPUMillicores, PodMinMemoryBytes: f.PodMinMemoryMB * 1024 * 1024,
		RoundCPUMillicores: f.RoundCPUMillicores, RoundMemoryBytes: f.RoundMemoryBytes,
		MaxAllowedCPUMillicores: f.MaxCPUMillicores, MaxAllowedMemoryBytes: f.MaxMemoryBytes}
	e.Default()
	if err := e.Validate(); err != nil {
		panic(fmt.Sprintf("estimator config of %+v: %v", f, err))
	}
	return m, e
}

// Run implements Side.
func (k Kscale) Run(s *Stream) *Outcome {
	mcfg, ecfg := k.configs(s.Flags)
	c := model.NewCluster(mcfg)
	c.SetVPA(kscaleVPAID, labels.SelectorFromSet(labels.Set{"app": "a"}), true)
	gen := make([]int, len(s.Variants))
	names := make([]string, s.Containers)
	for i := range names {
		names[i] = ContainerName(i)
	}
	podID := func(slot int) model.PodID {
		return model.PodID{Namespace: namespace, Name: fmt.Sprintf("p%d-%d", slot, gen[slot])}
	}
	for slot, v := range s.Variants {
		c.SetPod(podID(slot), podLabels(v), names, false, s.Start)
	}
	out := &Outcome{Accepted: make([]bool, len(s.Events))}
	for i, e := range s.Events {
		t := s.Start.Add(e.At)
		cs := c.Container(podID(e.Pod), ContainerName(e.Container))
		switch e.Kind {
		case CPU:
			out.Accepted[i] = cs.AddCPU(t, float64(e.Value)/1000)
		case Memory:
			out.Accepted[i] = cs.AddMemory(t, float64(e.Value))
		case OOM:
			out.Accepted[i] = cs.RecordOOM(t, float64(e.Value))
		case Restart:
			c.DeletePod(podID(e.Pod))
			gen[e.Pod]++
			c.SetPod(podID(e.Pod), podLabels(s.Variants[e.Pod]), names, false, t)
			out.Accepted[i] = true
		}
	}
	now := s.Start.Add(s.End)
	states := c.ContainerStates(kscaleVPAID)
	out.States = map[string]State{}
	for name, st := range states {
		out.States[name] = kscaleState(st)
	}
	est := estimator.New(ecfg)
	out.Bounds = kscaleBounds(est, states)
	out.Recommendation = map[string]vpav1.RecommendedContainerResources{}
	for _, r := range est.Recommend(vpaObject(), states).ContainerRecommendations {
		out.Recommendation[r.ContainerName] = r
	}
	out.Checkpoints = kscaleCheckpoints(c.CheckpointStates(kscaleVPAID, now), now)
	return out
}

// Load implements Side.
func (k Kscale) Load(s *Stream, cps map[string]vpav1.VerticalPodAutoscalerCheckpointStatus) *Loaded {
	mcfg, ecfg := k.configs(s.Flags)
	now := s.Start.Add(s.End)
	states := map[string]*model.AggregateContainerState{}
	for name, cp := range cps {
		st, err := model.LoadAggregateFromCheckpoint(mcfg, &cp, now)
		if err != nil {
			return &Loaded{Err: err.Error()}
		}
		states[name] = st
	}
	return &Loaded{Bounds: kscaleBounds(estimator.New(ecfg), states), Checkpoints: kscaleCheckpoints(states, now)}
}

// kscaleBounds returns the raw estimates per container.
func kscaleBounds(est *estimator.Estimator, states map[string]*model.AggregateContainerState) map[string]Bounds {
	out := map[string]Bounds{}
	raw := est.Config()
	raw.RoundCPUMillicores, raw.RoundMemoryBytes = 1, 1
	unrounded := estimator.New(raw)
	for name, st := range states {
		b := unrounded.Container(st, len(states))
		out[name] = Bounds{TargetCPU: b.Target.CPU, TargetMemory: b.Target.Memory, LowerCPU: b.Lower.CPU,
			LowerMemory: b.Lower.Memory, UpperCPU: b.Upper.CPU, UpperMemory: b.Upper.Memory}
	}
	return out
}

// kscaleCheckpoints saves every state, without its time stamp.
func kscaleCheckpoints(states map[string]*model.AggregateContainerState, now time.Time) map[string]vpav1.VerticalPodAutoscalerCheckpointStatus {
	out := map[string]vpav1.VerticalPodAutoscalerCheckpointStatus{}
	for name, st := range states {
		cp := st.SaveToCheckpoint(now)
		cp.LastUpdateTime = metav1Zero
		out[name] = cp
	}
	return out
}

// kscaleState reads one merged state.
func kscaleState(st *model.AggregateContainerState) State {
	return State{
		CPU: st.CPU.SaveToCheckpoint(), Memory: st.Memory.SaveToCheckpoint(),
		CPUPercentiles: percentiles(st.CPU), MemoryPercentiles: percentiles(st.Memory),
		First: st.FirstSampleStart, Last: st.LastSampleStart, Samples: st.TotalSamplesCount,
	}
}
