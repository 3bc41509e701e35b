package fit

import (
	"errors"
	"fmt"
	"math"

	"github.com/kscale/kscale/internal/whatif"
)

// Input is a recorded trace: per-category request rates and the measured
// CPU (cores, summed over the kube-apiserver replicas), optionally the
// replica count.
type Input struct {
	// Rates has one column per category (req/s).
	Rates *whatif.Table
	// CPU is the measured CPU; all its columns are added.
	CPU *whatif.Table
	// Replicas, when set, adds a per-replica base CPU to the model; all its
	// columns are added.
	Replicas *whatif.Table
}

// Result is a fit.
type Result struct {
	// Categories are the category names, in the rates' column order.
	Categories []string
	// Costs are the CPU-seconds per request of each category.
	Costs []float64
	// BaseCPU is the fitted CPU of a replica without load (cores); 0
	// without a replicas input.
	BaseCPU float64
	// Samples is the number of samples fitted.
	Samples int
	// RMSE is the root mean square error of the fitted CPU (cores).
	RMSE float64
	// RelativeError is RMSE divided by the mean measured CPU.
	RelativeError float64
	// R2 is the coefficient of determination.
	R2 float64
}

// Fit solves measured CPU ≈ Σ rate·cost (+ replicas·base) for
// non-negative costs over the rates' sample times that the CPU (and
// replicas) trace covers.
func Fit(in Input) (*Result, error) {
	if in.Rates == nil || in.CPU == nil {
		return nil, errors.New("want a rates and a CPU trace")
	}
	cpu, reps := in.CPU.Sum(), []float64(nil)
	if in.Replicas != nil {
		reps = in.Replicas.Sum()
	}
	cats := in.Rates.Names
	var a [][]float64
	var b []float64
	for i, ts := range in.Rates.Times {
		abs := in.Rates.Start + ts
		if abs < in.CPU.Start || (in.Replicas != nil && abs < in.Replicas.Start) {
			continue
		}
		row := make([]float64, 0, len(cats)+1)
		for _, c := range cats {
			row = append(row, in.Rates.Columns[c][i])
		}
		if reps != nil {
			row = append(row, in.Replicas.AtAbsolute(reps, abs))
		}
		a = append(a, row)
		b = append(b, in.CPU.AtAbsolute(cpu, abs))
	}
	if len(a) <= len(cats) {
		return nil, fmt.Errorf("%d samples overlap the CPU trace; want more than the %d unknowns", len(a), len(cats))
	}
	x, err := NNLS(a, b)
	if err != nil {
		return nil, fmt.Errorf("fitting: %w", err)
	}
	r := &Result{Categories: cats, Costs: x[:len(cats)], Samples: len(a)}
	if reps != nil {
		r.BaseCPU = x[len(cats)]
	}
	r.errors(a, b, x)
	return r, nil
}

func (r *Result) errors(a [][]float64, b, x []float64) {
	mean := 0.0
	for _, v := range b {
		mean += v
	}
	mean /= float64(len(b))
	var ssRes, ssTot float64
	for i, row := range a {
		pred := 0.0
		for j, v := range row {
			pred += v * x[j]
		}
		ssRes += (b[i] - pred) * (b[i] - pred)
		ssTot += (b[i] - mean) * (b[i] - mean)
	}
	r.RMSE = math.Sqrt(ssRes / float64(len(b)))
	if mean > 0 {
		r.RelativeError = r.RMSE / mean
	}
	if ssTot > 0 {
		r.R2 = 1 - ssRes/ssTot
	}
}
