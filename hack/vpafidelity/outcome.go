package vpafidelity

import (
	"time"

	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// percentilePoints are where the oracle reads every histogram.
var percentilePoints = []float64{0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1}

// Bounds are one container's raw estimates (before rounding and capping):
// target, lower and upper bound, CPU in millicores and memory in bytes.
type Bounds struct {
	TargetCPU, TargetMemory int64
	LowerCPU, LowerMemory   int64
	UpperCPU, UpperMemory   int64
}

// State is one container name's merged history as one side sees it.
type State struct {
	// CPU and Memory are the histograms in stored form (bucket weights
	// scaled to 10000, total weight, reference time).
	CPU, Memory vpav1.HistogramCheckpoint
	// CPUPercentiles and MemoryPercentiles are read at percentilePoints.
	CPUPercentiles, MemoryPercentiles []float64
	First, Last                       time.Time
	Samples                           int
}

// Outcome is everything one side produced for a stream.
type Outcome struct {
	// Accepted says per event whether the model took it.
	Accepted []bool
	// States, Bounds and Recommendation are per container name.
	States         map[string]State
	Bounds         map[string]Bounds
	Recommendation map[string]vpav1.RecommendedContainerResources
	// Checkpoints are the statuses this side writes per container name.
	Checkpoints map[string]vpav1.VerticalPodAutoscalerCheckpointStatus
	// CheckpointScale is, per container name, the memory histogram's total
	// before the peaks of open windows were subtracted from it, at the
	// checkpoint's reference time (set by the upstream side).
	CheckpointScale map[string]float64
}

// Loaded is what one side makes of a set of checkpoints: the bounds it
// estimates from them and the checkpoints it writes back.
type Loaded struct {
	Err         string
	Bounds      map[string]Bounds
	Checkpoints map[string]vpav1.VerticalPodAutoscalerCheckpointStatus
}

// Side is one implementation of the recommender model under test.
type Side interface {
	// Run feeds the stream and returns the outcome at s.Start+s.End.
	Run(s *Stream) *Outcome
	// Load restores cps (as of s.Start+s.End) and estimates from them.
	Load(s *Stream, cps map[string]vpav1.VerticalPodAutoscalerCheckpointStatus) *Loaded
}
