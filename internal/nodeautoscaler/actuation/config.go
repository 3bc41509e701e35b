package actuation

import (
	"fmt"
	"slices"
	"time"

	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// DefaultPodGoneHeadroom is how long after an evicted pod's grace period the
// drain still waits for it to disappear.
const DefaultPodGoneHeadroom = 30 * time.Second

// Config tunes the actuator.
type Config struct {
	// MaxPodEvictionTime is --max-pod-eviction-time: how long after the
	// drain started refused evictions are retried.
	MaxPodEvictionTime time.Duration
	// MaxGracefulTermination is --max-graceful-termination-sec: the longest
	// grace period given to an evicted pod.
	MaxGracefulTermination time.Duration
	// PodGoneHeadroom is added to the grace period while waiting for
	// evicted pods to disappear.
	PodGoneHeadroom time.Duration
	// CordonNodeBeforeTerminating is --cordon-node-before-terminating: a
	// node marked ToBeDeleted is also set unschedulable, and set
	// schedulable again when the deletion fails or its taint is cleaned up.
	CordonNodeBeforeTerminating bool
	// DeleteDelayAfterTaint is --node-delete-delay-after-taint: the wait
	// between marking a node and draining it (or, when empty, deleting it).
	DeleteDelayAfterTaint time.Duration
	// DeletionDelayTimeout is --node-deletion-delay-timeout: the longest
	// wait for DelayDeletionAnnotationPrefix annotations to leave a node
	// before it is deleted; 0 does not wait.
	DeletionDelayTimeout time.Duration
	// DaemonSetEvictionForEmptyNodes is
	// --daemonset-eviction-for-empty-nodes.
	DaemonSetEvictionForEmptyNodes bool
	// DaemonSetEvictionForOccupiedNodes is
	// --daemonset-eviction-for-occupied-nodes.
	DaemonSetEvictionForOccupiedNodes bool
	// SoftTaintCount is --max-bulk-soft-taint-count: the soft taints added
	// or removed per round; 0 turns soft tainting off.
	SoftTaintCount int
	// SoftTaintTime is --max-bulk-soft-taint-time: the time budget of
	// those writes per round.
	SoftTaintTime time.Duration
	// DrainPriorities is the parsed --drain-priority-config; empty: one
	// range with MaxGracefulTermination.
	DrainPriorities []options.DrainPriority
}

// ConfigFromOptions takes the settings from the node autoscaler options;
// a malformed --drain-priority-config (refused by options.Validate) counts
// as empty.
func ConfigFromOptions(o options.Options) Config {
	sd := o.ScaleDown
	prios, _ := options.ParseDrainPriorities(sd.DrainPriorityConfig)
	return Config{
		DrainPriorities:                   prios,
		MaxPodEvictionTime:                sd.MaxPodEvictionTime,
		MaxGracefulTermination:            time.Duration(sd.MaxGracefulTerminationSec) * time.Second,
		PodGoneHeadroom:                   DefaultPodGoneHeadroom,
		CordonNodeBeforeTerminating:       sd.CordonNodeBeforeTerminating,
		DeleteDelayAfterTaint:             sd.NodeDeleteDelayAfterTaint,
		DeletionDelayTimeout:              sd.NodeDeletionDelayTimeout,
		DaemonSetEvictionForEmptyNodes:    sd.DaemonSetEvictionForEmptyNodes,
		DaemonSetEvictionForOccupiedNodes: sd.DaemonSetEvictionForOccupiedNodes,
		SoftTaintCount:                    sd.MaxBulkSoftTaintCount,
		SoftTaintTime:                     sd.MaxBulkSoftTaintTime,
	}
}

// Default returns the flag defaults.
func Default() Config { return ConfigFromOptions(options.Default()) }

// Validate names the first bad setting by its flag.
func (c *Config) Validate() error {
	switch {
	case c.MaxPodEvictionTime <= 0:
		return fmt.Errorf("--max-pod-eviction-time: %v is not positive", c.MaxPodEvictionTime)
	case c.MaxGracefulTermination < 0:
		return fmt.Errorf("--max-graceful-termination-sec: %v is negative", c.MaxGracefulTermination)
	case c.PodGoneHeadroom < 0:
		return fmt.Errorf("pod gone headroom %v is negative", c.PodGoneHeadroom)
	case c.DeleteDelayAfterTaint < 0:
		return fmt.Errorf("--node-delete-delay-after-taint: %v is negative", c.DeleteDelayAfterTaint)
	case c.DeletionDelayTimeout < 0:
		return fmt.Errorf("--node-deletion-delay-timeout: %v is negative", c.DeletionDelayTimeout)
	case slices.ContainsFunc(c.DrainPriorities, func(p options.DrainPriority) bool { return p.Grace < 0 }):
		return fmt.Errorf("--drain-priority-config: a grace period is negative")
	case c.SoftTaintCount < 0:
		return fmt.Errorf("--max-bulk-soft-taint-count: %d is negative", c.SoftTaintCount)
	case c.SoftTaintTime < 0:
		return fmt.Errorf("--max-bulk-soft-taint-time: %v is negative", c.SoftTaintTime)
	}
	return nil
}
