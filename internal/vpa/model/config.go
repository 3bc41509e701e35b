package model

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Histogram scheme constants. Changing any of them changes the meaning of
// stored checkpoints and requires a new CheckpointVersion.
const (
	cpuFirstBucket    = 0.01 // cores
	cpuMaxValue       = 1000.0
	memoryFirstBucket = 1e7 // bytes
	memoryMaxValue    = 1e12
	bucketRatio       = 1.05
	bucketEpsilon     = 0.001 * 0.1

	// CPUSampleWeight is the base weight of every CPU sample.
	CPUSampleWeight = 0.1
	// memoryPeakWeight is the base weight of a memory peak.
	memoryPeakWeight = 1.0
)

// Config holds the aggregation settings (the recommender's histogram flags).
type Config struct {
	// CPUHalfLife is the decay half-life of the CPU histogram (24h).
	CPUHalfLife time.Duration
	// MemoryHalfLife is the decay half-life of the memory histogram (24h).
	MemoryHalfLife time.Duration
	// MemoryAggregationInterval is the length of one memory peak window (24h).
	MemoryAggregationInterval time.Duration
	// MemoryAggregationIntervalCount is the number of windows kept (8); the
	// product is the history length used for garbage collection.
	MemoryAggregationIntervalCount int64
	// OOMBumpUpRatio multiplies the memory in use at an OOM kill (1.2).
	OOMBumpUpRatio float64
	// OOMMinBumpUpBytes is the least added to the memory at an OOM kill (100 MiB).
	OOMMinBumpUpBytes float64

	cpuOpts, memOpts *HistogramOptions
}

// Upstream defaults of the settings Default leaves alone: the OOM
// settings, where zero is a meaningful value (upstream takes an explicit 0
// as 0), and the window count, where an explicit 0 is refused by Validate
// rather than silently replaced.
const (
	DefaultMemoryAggregationIntervalCount = 8
	DefaultOOMBumpUpRatio                 = 1.2
	DefaultOOMMinBumpUpBytes              = 100 * 1024 * 1024
)

// Default fills unset fields with the upstream defaults, except the OOM
// settings and the window count: DefaultConfig sets those.
func (c *Config) Default() {
	if c.CPUHalfLife == 0 {
		c.CPUHalfLife = 24 * time.Hour
	}
	if c.MemoryHalfLife == 0 {
		c.MemoryHalfLife = 24 * time.Hour
	}
	if c.MemoryAggregationInterval == 0 {
		c.MemoryAggregationInterval = 24 * time.Hour
	}
}

// Validate reports the first invalid field and prepares the bucket schemes.
func (c *Config) Validate() error {
	switch {
	case c.CPUHalfLife <= 0:
		return errors.New("cpuHistogramDecayHalfLife: must be positive")
	case c.MemoryHalfLife <= 0:
		return errors.New("memoryHistogramDecayHalfLife: must be positive")
	case c.MemoryAggregationInterval <= 0:
		return errors.New("memoryAggregationInterval: must be positive")
	case c.MemoryAggregationIntervalCount <= 0:
		return errors.New("memoryAggregationIntervalCount: must be positive")
	case !(c.OOMBumpUpRatio >= 0) || math.IsInf(c.OOMBumpUpRatio, 0):
		return fmt.Errorf("oomBumpUpRatio: %v must not be negative", c.OOMBumpUpRatio)
	case c.OOMMinBumpUpBytes < 0:
		return errors.New("oomMinBumpUpBytes: must not be negative")
	}
	var err error
	if c.cpuOpts, err = NewExponentialOptions(cpuMaxValue, cpuFirstBucket, bucketRatio, bucketEpsilon); err != nil {
		return err
	}
	c.memOpts, err = NewExponentialOptions(memoryMaxValue, memoryFirstBucket, bucketRatio, bucketEpsilon)
	return err
}

// HistoryLength is the memory window length (interval × count), after
// which an aggregate without samples expires.
func (c *Config) HistoryLength() time.Duration {
	return c.MemoryAggregationInterval * time.Duration(c.MemoryAggregationIntervalCount)
}

// CPUOptions returns the CPU bucket scheme (valid after Validate).
func (c *Config) CPUOptions() *HistogramOptions { return c.cpuOpts }

// MemoryOptions returns the memory bucket scheme (valid after Validate).
func (c *Config) MemoryOptions() *HistogramOptions { return c.memOpts }

// DefaultConfig returns a defaulted, validated Config.
func DefaultConfig() *Config {
	c := &Config{OOMBumpUpRatio: DefaultOOMBumpUpRatio, OOMMinBumpUpBytes: DefaultOOMMinBumpUpBytes,
		MemoryAggregationIntervalCount: DefaultMemoryAggregationIntervalCount}
	c.Default()
	if err := c.Validate(); err != nil {
		panic(fmt.Sprintf("default model config is invalid: %v", err))
	}
	return c
}
