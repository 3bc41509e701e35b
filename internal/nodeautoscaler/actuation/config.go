package actuation

import (
	"fmt"
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
}

// ConfigFromOptions takes the settings from the node autoscaler options.
func ConfigFromOptions(o options.Options) Config {
	return Config{
		MaxPodEvictionTime:     o.ScaleDown.MaxPodEvictionTime,
		MaxGracefulTermination: time.Duration(o.ScaleDown.MaxGracefulTerminationSec) * time.Second,
		PodGoneHeadroom:        DefaultPodGoneHeadroom,
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
	}
	return nil
}
