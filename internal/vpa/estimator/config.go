package estimator

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Config holds the recommender's estimation flags.
type Config struct {
	// TargetCPUPercentile is the CPU usage percentile of the target (0.9).
	TargetCPUPercentile float64
	// LowerBoundCPUPercentile is the CPU percentile of the lower bound (0.5).
	LowerBoundCPUPercentile float64
	// UpperBoundCPUPercentile is the CPU percentile of the upper bound (0.95).
	UpperBoundCPUPercentile float64
	// TargetMemoryPercentile is the memory peak percentile of the target (0.9).
	TargetMemoryPercentile float64
	// LowerBoundMemoryPercentile is the memory percentile of the lower bound (0.5).
	LowerBoundMemoryPercentile float64
	// UpperBoundMemoryPercentile is the memory percentile of the upper bound (0.95).
	UpperBoundMemoryPercentile float64
	// MarginFraction is the safety margin added to every value (0.15).
	MarginFraction float64
	// ConfidenceIntervalCPU is the history length at which CPU confidence is 1 (24h).
	ConfidenceIntervalCPU time.Duration
	// ConfidenceIntervalMemory is the same for memory (24h).
	ConfidenceIntervalMemory time.Duration
	// PodMinCPUMillicores is the least CPU recommended per pod (25).
	PodMinCPUMillicores int64
	// PodMinMemoryBytes is the least memory recommended per pod (250 MiB).
	PodMinMemoryBytes int64
	// RoundCPUMillicores rounds CPU values up to a multiple (1 = off).
	RoundCPUMillicores int64
	// RoundMemoryBytes rounds memory values up to a multiple (1 = off).
	RoundMemoryBytes int64
	// MaxAllowedCPUMillicores caps every container's CPU unless the VPA
	// policy sets its own maximum (0 = unset).
	MaxAllowedCPUMillicores int64
	// MaxAllowedMemoryBytes is the same for memory (0 = unset).
	MaxAllowedMemoryBytes int64
	// IntegerCPU enables rounding CPU up to whole cores for containers the
	// VPA annotates with IntegerCPUAnnotationPrefix+<container>_integerCPU=true.
	IntegerCPU bool
}

// DefaultConfig returns a Config with every upstream default.
func DefaultConfig() Config {
	c := Config{
		TargetCPUPercentile: 0.9, LowerBoundCPUPercentile: 0.5, UpperBoundCPUPercentile: 0.95,
		TargetMemoryPercentile: 0.9, LowerBoundMemoryPercentile: 0.5, UpperBoundMemoryPercentile: 0.95,
		MarginFraction:      DefaultMarginFraction,
		PodMinCPUMillicores: DefaultPodMinCPUMillicores,
		PodMinMemoryBytes:   DefaultPodMinMemoryBytes,
	}
	c.Default()
	return c
}

// Upstream defaults of the settings where zero is a meaningful value, which
// Default leaves alone (upstream takes an explicit 0 as 0).
const (
	DefaultMarginFraction      = 0.15
	DefaultPodMinCPUMillicores = 25
	DefaultPodMinMemoryBytes   = 250 * 1024 * 1024
)

// Default fills unset fields with the upstream defaults, except those where
// zero is meaningful (the percentiles, MarginFraction, PodMinCPUMillicores,
// PodMinMemoryBytes): start from DefaultConfig to get theirs. A rounding
// factor of 0 becomes 1, which rounds nothing, as upstream does with 0.
func (c *Config) Default() {
	if c.ConfidenceIntervalCPU == 0 {
		c.ConfidenceIntervalCPU = 24 * time.Hour
	}
	if c.ConfidenceIntervalMemory == 0 {
		c.ConfidenceIntervalMemory = 24 * time.Hour
	}
	if c.RoundCPUMillicores == 0 {
		c.RoundCPUMillicores = 1
	}
	if c.RoundMemoryBytes == 0 {
		c.RoundMemoryBytes = 1
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{
		{"--target-cpu-percentile", c.TargetCPUPercentile}, {"--recommendation-lower-bound-cpu-percentile", c.LowerBoundCPUPercentile},
		{"--recommendation-upper-bound-cpu-percentile", c.UpperBoundCPUPercentile}, {"--target-memory-percentile", c.TargetMemoryPercentile},
		{"--recommendation-lower-bound-memory-percentile", c.LowerBoundMemoryPercentile},
		{"--recommendation-upper-bound-memory-percentile", c.UpperBoundMemoryPercentile},
	} {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("%s: %v must be in [0, 1]", p.name, p.v)
		}
	}
	switch {
	case !(c.MarginFraction >= 0) || math.IsInf(c.MarginFraction, 0):
		return fmt.Errorf("--recommendation-margin-fraction: %v must not be negative", c.MarginFraction)
	case c.ConfidenceIntervalCPU <= 0 || c.ConfidenceIntervalMemory <= 0:
		return errors.New("--confidence-interval-cpu, --confidence-interval-memory: must be positive")
	case c.PodMinCPUMillicores < 0 || c.PodMinMemoryBytes < 0:
		return errors.New("--pod-recommendation-min-cpu-millicores, --pod-recommendation-min-memory-mb: must not be negative")
	case c.RoundCPUMillicores < 1 || c.RoundMemoryBytes < 1:
		return errors.New("--round-cpu-millicores, --round-memory-bytes: must be at least 1")
	case c.MaxAllowedCPUMillicores < 0 || c.MaxAllowedMemoryBytes < 0:
		return errors.New("--container-recommendation-max-allowed-cpu, --container-recommendation-max-allowed-memory: must not be negative")
	}
	return nil
}
