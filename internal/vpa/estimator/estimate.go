package estimator

import (
	"math"
	"time"

	"github.com/kscale/kscale/internal/vpa/model"
)

// MaxResourceAmount is the largest value any stage may produce.
const MaxResourceAmount = int64(1e14)

// Amounts is a CPU and memory pair in millicores and bytes.
type Amounts struct {
	// CPU is in millicores.
	CPU int64
	// Memory is in bytes.
	Memory int64
}

// Bounds is one container's lower bound, target and upper bound.
type Bounds struct {
	// Lower is the lower bound.
	Lower Amounts
	// Target is the target.
	Target Amounts
	// Upper is the upper bound.
	Upper Amounts
}

// Estimator computes recommendations with a validated Config.
type Estimator struct {
	cfg Config
}

// New returns an Estimator; cfg must be defaulted and valid.
func New(cfg Config) *Estimator { return &Estimator{cfg: cfg} }

// Config returns the estimator's configuration.
func (e *Estimator) Config() Config { return e.cfg }

// Container estimates one container whose VPA recommends n containers
// (the pod minimum is split n ways, truncated).
func (e *Estimator) Container(s *model.AggregateContainerState, n int) Bounds {
	c := e.cfg
	n = max(n, 1)
	minCPU, minMem := c.PodMinCPUMillicores/int64(n), c.PodMinMemoryBytes/int64(n)
	cpuConf := confidence(s, c.ConfidenceIntervalCPU)
	memConf := confidence(s, c.ConfidenceIntervalMemory)
	cpu := func(p float64) int64 { return e.margin(clamp(s.CPU.Percentile(p) * 1000)) }
	mem := func(p float64) int64 { return e.margin(clamp(s.Memory.Percentile(p))) }
	b := Bounds{
		Target: Amounts{CPU: cpu(c.TargetCPUPercentile), Memory: mem(c.TargetMemoryPercentile)},
		Lower: Amounts{
			CPU:    lowerScale(cpu(c.LowerBoundCPUPercentile), cpuConf),
			Memory: lowerScale(mem(c.LowerBoundMemoryPercentile), memConf),
		},
		Upper: Amounts{
			CPU:    upperScale(cpu(c.UpperBoundCPUPercentile), cpuConf),
			Memory: upperScale(mem(c.UpperBoundMemoryPercentile), memConf),
		},
	}
	for _, a := range []*Amounts{&b.Target, &b.Lower, &b.Upper} {
		a.CPU = roundUp(max(a.CPU, minCPU), c.RoundCPUMillicores)
		a.Memory = roundUp(max(a.Memory, minMem), c.RoundMemoryBytes)
	}
	return b
}

// margin adds the truncated safety margin.
func (e *Estimator) margin(v int64) int64 {
	return clamp(float64(v) + float64(clamp(float64(v)*e.cfg.MarginFraction)))
}

// confidence is min(history span / interval, samples / interval in
// minutes): with the default 24h interval, the history in days and the
// sample count at one a minute in days.
func confidence(s *model.AggregateContainerState, interval time.Duration) float64 {
	span := float64(s.LastSampleStart.Sub(s.FirstSampleStart)) / float64(interval)
	samples := float64(s.TotalSamplesCount) / interval.Minutes()
	return math.Min(span, samples)
}

// upperScale multiplies by (1 + 1/confidence); 0 stays 0.
func upperScale(v int64, conf float64) int64 {
	if v == 0 {
		return 0
	}
	return clamp(float64(v) * (1 + 1/conf))
}

// lowerScale multiplies by (1 + 0.001/confidence)^-2.
func lowerScale(v int64, conf float64) int64 {
	if v == 0 {
		return 0
	}
	return clamp(float64(v) * math.Pow(1+0.001/conf, -2))
}

// clamp truncates to an integer in [0, MaxResourceAmount]; NaN becomes 0.
func clamp(v float64) int64 {
	switch {
	case math.IsNaN(v) || v <= 0:
		return 0
	case v >= float64(MaxResourceAmount):
		return MaxResourceAmount
	}
	return int64(v)
}

// roundUp rounds v up to a multiple of f (f >= 1). As upstream's
// RoundUpToScale it may exceed MaxResourceAmount (v and f are far below
// the int64 range).
func roundUp(v, f int64) int64 {
	if f <= 1 || v%f == 0 {
		return v
	}
	return (v/f + 1) * f
}
