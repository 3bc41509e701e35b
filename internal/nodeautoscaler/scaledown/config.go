package scaledown

import (
	"fmt"
	"time"

	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// Config holds the planner's settings. Field comments name the flag.
type Config struct {
	// Enabled is --scale-down-enabled; when false nothing is selected for
	// deletion (unneeded nodes are still reported).
	Enabled bool
	// UtilizationThreshold is --scale-down-utilization-threshold.
	UtilizationThreshold float64
	// GPUUtilizationThreshold is --scale-down-gpu-utilization-threshold:
	// the threshold of nodes with GPUs, whose utilization is their GPU
	// share.
	GPUUtilizationThreshold float64
	// UnneededTime is --scale-down-unneeded-time.
	UnneededTime time.Duration
	// UnreadyTime is --scale-down-unready-time.
	UnreadyTime time.Duration
	// DelayAfterAdd is --scale-down-delay-after-add; negative disables it.
	DelayAfterAdd time.Duration
	// DelayAfterDelete is --scale-down-delay-after-delete; 0 means ScanInterval.
	DelayAfterDelete time.Duration
	// DelayAfterFailure is --scale-down-delay-after-failure.
	DelayAfterFailure time.Duration
	// DelayTypeLocal is --scale-down-delay-type-local: the three delays
	// apply per node group (see Input.GroupLastScaleUp).
	DelayTypeLocal bool
	// ScanInterval is --scan-interval.
	ScanInterval time.Duration
	// IgnoreSchedulablePods is --scale-down-ignore-schedulable-pods.
	IgnoreSchedulablePods bool
	// SkipNodesWithSystemPods is --skip-nodes-with-system-pods.
	SkipNodesWithSystemPods bool
	// SkipNodesWithLocalStorage is --skip-nodes-with-local-storage.
	SkipNodesWithLocalStorage bool
	// SkipNodesWithJobPods is --skip-nodes-with-job-pods: a batch Job's
	// pod keeps its node even when safe to evict (the fork's rule); false
	// treats it as any replicated pod, as upstream does.
	SkipNodesWithJobPods bool
	// SkipNodesWithCustomControllerPods is
	// --skip-nodes-with-custom-controller-pods.
	SkipNodesWithCustomControllerPods bool
	// MinReplicaCount is --min-replica-count.
	MinReplicaCount int
	// BlockingSystemPodTimeout is --blocking-system-pod-distruption-timeout.
	BlockingSystemPodTimeout time.Duration
	// MaxEmptyBulkDelete is --max-empty-bulk-delete.
	MaxEmptyBulkDelete int
	// MaxScaleDownParallelism is --max-scale-down-parallelism: nodes being
	// deleted at once, empty and non-empty.
	MaxScaleDownParallelism int
	// MaxDrainParallelism is --max-drain-parallelism: non-empty nodes
	// drained at once.
	MaxDrainParallelism int
	// UnreadyEnabled is --scale-down-unready-enabled: unready nodes may be
	// removed.
	UnreadyEnabled bool
	// IgnoreDaemonSetsUtilization is --ignore-daemonsets-utilization:
	// DaemonSet pods do not count towards a node's utilization.
	IgnoreDaemonSetsUtilization bool
	// IgnoreMirrorPodsUtilization is --ignore-mirror-pods-utilization.
	IgnoreMirrorPodsUtilization bool
	// SpreadLabel is --emulated-topology-spread-constraint-label; pods with
	// the emulated zone spread never move across zones. Empty disables it.
	SpreadLabel string
	// NonEmptyCandidatesCount is --scale-down-non-empty-candidates-count:
	// how many non-empty nodes one round finds removable beyond those
	// unneeded in the last round; 0 or less turns the limits off (see
	// limits.go).
	NonEmptyCandidatesCount int
	// CandidatesPoolRatio is --scale-down-candidates-pool-ratio: the share
	// of the cluster's nodes simulated to find those additional nodes.
	CandidatesPoolRatio float64
	// CandidatesPoolMinCount is --scale-down-candidates-pool-min-count: the
	// smallest such pool.
	CandidatesPoolMinCount int
	// UnremovableRecheckTimeout is --unremovable-node-recheck-timeout: how
	// long a node a simulation found unremovable is not simulated again.
	UnremovableRecheckTimeout time.Duration
	// SimulationTimeout is --scale-down-simulation-timeout: the candidates
	// not simulated when a round's removal simulation has run this long
	// are left for the next round.
	SimulationTimeout time.Duration
	// Clock measures SimulationTimeout; nil means no budget (the
	// scale-down controller always sets one). A clock that stands still
	// during a round (the simulator's) never runs out.
	Clock clock.PassiveClock
	// zeroOrMax is set in the settings of a zero-or-max group (see
	// withOptions and zeroormax.go).
	zeroOrMax bool
}

// Default returns the defaults of every flag.
func Default() Config {
	return FromOptions(options.Default())
}

// FromOptions takes the settings from the node autoscaler options.
func FromOptions(o options.Options) Config {
	sd := o.ScaleDown
	return Config{
		Enabled:                           sd.Enabled,
		UtilizationThreshold:              sd.UtilizationThreshold,
		GPUUtilizationThreshold:           sd.GPUUtilizationThreshold,
		UnneededTime:                      sd.UnneededTime,
		UnreadyTime:                       sd.UnreadyTime,
		DelayAfterAdd:                     sd.DelayAfterAdd,
		DelayAfterDelete:                  sd.DelayAfterDelete,
		DelayAfterFailure:                 sd.DelayAfterFailure,
		DelayTypeLocal:                    sd.DelayTypeLocal,
		ScanInterval:                      o.ScanInterval,
		IgnoreSchedulablePods:             sd.IgnoreSchedulablePods,
		SkipNodesWithSystemPods:           sd.SkipNodesWithSystemPods,
		SkipNodesWithLocalStorage:         sd.SkipNodesWithLocalStorage,
		SkipNodesWithJobPods:              sd.SkipNodesWithJobPods,
		SkipNodesWithCustomControllerPods: sd.SkipNodesWithCustomControllerPods,
		MinReplicaCount:                   sd.MinReplicaCount,
		BlockingSystemPodTimeout:          sd.BlockingSystemPodDisruptionTimeout,
		MaxEmptyBulkDelete:                sd.MaxEmptyBulkDelete,
		MaxScaleDownParallelism:           sd.MaxScaleDownParallelism,
		MaxDrainParallelism:               sd.MaxDrainParallelism,
		UnreadyEnabled:                    sd.UnreadyEnabled,
		IgnoreDaemonSetsUtilization:       sd.IgnoreDaemonSetsUtilization,
		IgnoreMirrorPodsUtilization:       sd.IgnoreMirrorPodsUtilization,
		SpreadLabel:                       o.EmulatedTopologySpreadLabel,
		NonEmptyCandidatesCount:           sd.NonEmptyCandidatesCount,
		CandidatesPoolRatio:               sd.CandidatesPoolRatio,
		CandidatesPoolMinCount:            sd.CandidatesPoolMinCount,
		UnremovableRecheckTimeout:         sd.UnremovableRecheckTimeout,
		SimulationTimeout:                 sd.SimulationTimeout,
	}
}

// Validate names the first bad setting by its flag.
func (c *Config) Validate() error {
	switch {
	case c.UtilizationThreshold < 0 || c.UtilizationThreshold > 1:
		return fmt.Errorf("--scale-down-utilization-threshold: %v is not within [0, 1]", c.UtilizationThreshold)
	case !(c.GPUUtilizationThreshold >= 0 && c.GPUUtilizationThreshold <= 1):
		return fmt.Errorf("--scale-down-gpu-utilization-threshold: %v is not within [0, 1]", c.GPUUtilizationThreshold)
	case c.UnneededTime < 0:
		return fmt.Errorf("--scale-down-unneeded-time: %v is negative", c.UnneededTime)
	case c.UnreadyTime < 0:
		return fmt.Errorf("--scale-down-unready-time: %v is negative", c.UnreadyTime)
	case c.DelayAfterDelete < 0:
		return fmt.Errorf("--scale-down-delay-after-delete: %v is negative", c.DelayAfterDelete)
	case c.DelayAfterFailure < 0:
		return fmt.Errorf("--scale-down-delay-after-failure: %v is negative", c.DelayAfterFailure)
	case c.MaxEmptyBulkDelete < 1:
		return fmt.Errorf("--max-empty-bulk-delete: %d is less than 1", c.MaxEmptyBulkDelete)
	case c.MaxScaleDownParallelism < 1:
		return fmt.Errorf("--max-scale-down-parallelism: %d is less than 1", c.MaxScaleDownParallelism)
	case c.MinReplicaCount < 0:
		return fmt.Errorf("--min-replica-count: %d is negative", c.MinReplicaCount)
	case c.BlockingSystemPodTimeout < 0:
		return fmt.Errorf("--blocking-system-pod-distruption-timeout: %v is negative", c.BlockingSystemPodTimeout)
	case c.MaxDrainParallelism < 1:
		return fmt.Errorf("--max-drain-parallelism: %d is less than 1", c.MaxDrainParallelism)
	case !(c.CandidatesPoolRatio >= 0 && c.CandidatesPoolRatio <= 1):
		return fmt.Errorf("--scale-down-candidates-pool-ratio: %v is not within [0, 1]", c.CandidatesPoolRatio)
	case c.CandidatesPoolMinCount < 0:
		return fmt.Errorf("--scale-down-candidates-pool-min-count: %d is negative", c.CandidatesPoolMinCount)
	case c.UnremovableRecheckTimeout < 0:
		return fmt.Errorf("--unremovable-node-recheck-timeout: %v is negative", c.UnremovableRecheckTimeout)
	case c.SimulationTimeout <= 0:
		return fmt.Errorf("--scale-down-simulation-timeout: %v is not positive", c.SimulationTimeout)
	}
	return nil
}
