package whatif

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Sweep is a range of HPA targets to try: From..To in steps of Step.
type Sweep struct {
	// From, To and Step are the request-rate targets (req/s per pod).
	From, To, Step float64
}

// ParseSweep reads "hpa.target=A..B" or "hpa.target=A..B/STEP" (default
// step: a tenth of the range).
func ParseSweep(s string) (Sweep, error) {
	key, rng, ok := strings.Cut(s, "=")
	if !ok || key != "hpa.target" {
		return Sweep{}, fmt.Errorf("want hpa.target=FROM..TO[/STEP], got %q", s)
	}
	rng, stepS, hasStep := strings.Cut(rng, "/")
	a, b, ok := strings.Cut(rng, "..")
	from, err1 := strconv.ParseFloat(a, 64)
	to, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || from <= 0 || to < from {
		return Sweep{}, fmt.Errorf("want hpa.target=FROM..TO with 0 < FROM <= TO, got %q", s)
	}
	sw := Sweep{From: from, To: to, Step: (to - from) / 10}
	if hasStep {
		st, err := strconv.ParseFloat(stepS, 64)
		if err != nil || st <= 0 {
			return Sweep{}, fmt.Errorf("want a positive step after /, got %q", stepS)
		}
		sw.Step = st
	}
	if sw.Step == 0 {
		sw.Step = 1
	}
	if (to-from)/sw.Step > 1000 {
		return Sweep{}, fmt.Errorf("%q: more than 1000 targets", s)
	}
	return sw, nil
}

// SweepRow is one tried target of one configuration.
type SweepRow struct {
	// Target is the HPA target tried.
	Target float64 `json:"target"`
	// AboveRequestMinutes is the run's CPUAboveRequestMinutes.
	AboveRequestMinutes float64 `json:"cpuAboveRequestMinutes"`
	// ReplicasMean and CPUUtilization are the run's figures.
	ReplicasMean   float64 `json:"replicasMean"`
	CPUUtilization float64 `json:"cpuUtilization"`
}

// SweepResult is a sweep's outcome for one configuration.
type SweepResult struct {
	// Configuration names it.
	Configuration string `json:"configuration"`
	// Rows are every tried target.
	Rows []SweepRow `json:"rows"`
	// Best is the largest target whose insufficient-request time stays
	// within the bound; 0 when none does.
	Best float64 `json:"best"`
}

// RunSweep runs every configuration with a request-rate HPA once per
// target and reports the largest target whose time with CPU demand above
// requests stays within bound.
func RunSweep(f *File, loads []Load, sw Sweep, bound time.Duration) ([]SweepResult, error) {
	var out []SweepResult
	for i := range f.Configurations {
		cfg := f.Configurations[i]
		if cfg.HPA == nil || cfg.HPA.Metric != MetricRequestRate {
			continue
		}
		sr := SweepResult{Configuration: cfg.Name}
		for t := sw.From; t <= sw.To+1e-9; t += sw.Step {
			h := *cfg.HPA
			h.Target = t
			c := cfg
			c.HPA = &h
			tot := runOne(f, &c, loads).Totals
			sr.Rows = append(sr.Rows, SweepRow{Target: t, AboveRequestMinutes: tot.CPUAboveRequestMinutes, ReplicasMean: tot.ReplicasMean, CPUUtilization: tot.CPUUtilization})
			if tot.CPUAboveRequestMinutes <= bound.Minutes() {
				sr.Best = t
			}
		}
		out = append(out, sr)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--sweep: no configuration has an hpa on %s", MetricRequestRate)
	}
	return out, nil
}
