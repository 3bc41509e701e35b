package vpafidelity

import (
	"math/rand/v2"
	"sort"
	"time"
)

// Generate returns the random stream of seed: flags (upstream's defaults,
// Gardener's set or random values), 1-8 containers in 1-4 pod slots, and
// CPU, memory, OOM and restart events in phases of steady sampling, gaps
// and long idle periods.
func Generate(seed int64) *Stream {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	s := &Stream{Seed: seed, Flags: genFlags(r), Containers: 1 + r.IntN(8)}
	// A start off the hour exercises the reference-time rounding.
	s.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(48 * time.Hour))))
	for range 1 + r.IntN(4) {
		s.Variants = append(s.Variants, r.IntN(2))
	}
	var at time.Duration
	for range 1 + r.IntN(6) {
		at = genPhase(r, s, at)
	}
	sort.SliceStable(s.Events, func(i, j int) bool { return s.Events[i].At < s.Events[j].At })
	s.End = at + pickDuration(r, 0, time.Minute, time.Hour, 30*time.Hour, 20*24*time.Hour)
	return s
}

// genFlags picks the flag set of a stream.
func genFlags(r *rand.Rand) Flags {
	switch r.IntN(4) {
	case 0:
		return UpstreamDefaults()
	case 1:
		return GardenerFlags()
	}
	f := UpstreamDefaults()
	half := []time.Duration{time.Minute, 10 * time.Minute, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
	f.CPUHalfLife, f.MemoryHalfLife = half[r.IntN(len(half))], half[r.IntN(len(half))]
	f.MemoryInterval = []time.Duration{time.Minute, 5 * time.Minute, time.Hour, 24 * time.Hour}[r.IntN(4)]
	f.MemoryIntervalCount = int64(1 + r.IntN(10))
	f.OOMBumpUpRatio = []float64{1, 1.2, 1.5, 3}[r.IntN(4)]
	f.OOMMinBumpUpBytes = []float64{0, 1, 100 * 1024 * 1024, 1e9}[r.IntN(4)]
	p := func() float64 { return []float64{0.01, 0.5, 0.9, 0.95, 0.99, 1}[r.IntN(6)] }
	f.TargetCPU, f.LowerCPU, f.UpperCPU = p(), p(), p()
	f.TargetMemory, f.LowerMemory, f.UpperMemory = p(), p(), p()
	f.Margin = []float64{0, 0.15, 0.5, 2}[r.IntN(4)]
	conf := []time.Duration{18 * time.Minute, time.Hour, 24 * time.Hour, 72 * time.Hour}
	f.ConfidenceCPU, f.ConfidenceMemory = conf[r.IntN(4)], conf[r.IntN(4)]
	f.PodMinCPUMillicores = []int64{0, 1, 10, 25, 1000}[r.IntN(5)]
	f.PodMinMemoryMB = []int64{0, 1, 10, 250, 4096}[r.IntN(5)]
	f.RoundCPUMillicores = []int64{1, 1, 10, 1000}[r.IntN(4)]
	f.RoundMemoryBytes = []int64{1, 1, 1 << 20, 1 << 30}[r.IntN(4)]
	if r.IntN(3) == 0 {
		f.MaxCPUMillicores = []int64{100, 4000}[r.IntN(2)]
		f.MaxMemoryBytes = []int64{0, 512 << 20, 8 << 30}[r.IntN(3)]
	}
	return f
}

// genPhase appends one phase of events starting after at and returns its end.
func genPhase(r *rand.Rand, s *Stream, at time.Duration) time.Duration {
	switch r.IntN(5) {
	case 0: // a gap or a long idle period: nothing happens
		return at + pickDuration(r, time.Minute, time.Hour, 26*time.Hour, 15*24*time.Hour)
	case 1: // restarts
		for range 1 + r.IntN(2) {
			s.Events = append(s.Events, Event{At: at, Kind: Restart, Pod: r.IntN(len(s.Variants))})
		}
		return at
	}
	// Steady sampling: every container of every pod, about once a step.
	step := pickDuration(r, time.Second, time.Minute, time.Minute, 10*time.Minute, 3*time.Hour)
	cpuLevel, memLevel := cpuValue(r), memValue(r)
	for range 1 + r.IntN(40) {
		at += step
		for pod := range s.Variants {
			for c := range s.Containers {
				if r.IntN(10) == 0 {
					continue // a missing sample
				}
				t := at + jitter(r, step)
				s.Events = append(s.Events,
					Event{At: t, Kind: CPU, Pod: pod, Container: c, Value: vary(r, cpuLevel, cpuValue)},
					Event{At: t + jitter(r, step), Kind: Memory, Pod: pod, Container: c, Value: vary(r, memLevel, memValue)})
				if r.IntN(60) == 0 {
					s.Events = append(s.Events, Event{At: t + jitter(r, step), Kind: OOM, Pod: pod, Container: c, Value: memValue(r)})
				}
			}
		}
	}
	return at
}

// jitter returns a random offset within ±step/2, sometimes 0 (equal times).
func jitter(r *rand.Rand, step time.Duration) time.Duration {
	if r.IntN(4) == 0 || step < 2 {
		return 0
	}
	return time.Duration(r.Int64N(int64(step))) - step/2
}

// vary returns level with noise, or sometimes a fresh value (a spike).
func vary(r *rand.Rand, level int64, fresh func(*rand.Rand) int64) int64 {
	if r.IntN(20) == 0 {
		return fresh(r)
	}
	return level/2 + r.Int64N(level+1)
}

// cpuValue returns a CPU usage in millicores, from idle to beyond the
// histogram's last bucket.
func cpuValue(r *rand.Rand) int64 {
	return []int64{0, 1, 5, 37, 250, 1200, 64000, 2_000_000}[r.IntN(8)] + r.Int64N(10)
}

// memValue returns a memory amount in bytes, from 0 to beyond the
// histogram's last bucket.
func memValue(r *rand.Rand) int64 {
	return []int64{0, 4 << 20, 100 << 20, 700 << 20, 3 << 30, 64 << 30, 2e12}[r.IntN(7)] + r.Int64N(1<<20)
}

// pickDuration returns one of ds.
func pickDuration(r *rand.Rand, ds ...time.Duration) time.Duration { return ds[r.IntN(len(ds))] }
