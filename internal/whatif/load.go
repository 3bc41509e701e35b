package whatif

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// defaultCategoryLabels form a category name from a Prometheus series.
var defaultCategoryLabels = []string{"verb", "scope", "resource"}

// Loads returns the workload's demand at every step: the trace's rates
// (read from the file, relative to f.Dir, or generated), each category's
// CPU cost, and the efficiency drops.
func Loads(f *File) ([]Load, error) {
	n := int(f.Duration.Duration / f.step())
	rates, err := traceRates(f, n)
	if err != nil {
		return nil, err
	}
	out := make([]Load, n)
	for i, row := range rates {
		at := time.Duration(i) * f.step()
		eff := efficiency(f.Workload.Efficiency, at)
		var l Load
		for j, c := range f.Workload.Categories {
			l.Rate += row[j]
			l.CPU += row[j] * c.CPUPerRequest.Float() / eff
		}
		out[i] = l
	}
	return out, nil
}

func efficiency(drops []EfficiencyDrop, at time.Duration) float64 {
	e := 1.0
	for _, d := range drops {
		if at >= d.At.Duration && at < d.At.Duration+d.For.Duration {
			e *= d.Factor
		}
	}
	return e
}

func traceRates(f *File, n int) ([][]float64, error) {
	if f.Trace.Generate != nil {
		return generate(f.Trace.Generate, f.Workload.Categories, n, f.step(), f.Seed), nil
	}
	t, err := ReadTraceFile(filepath.Join(f.Dir, f.Trace.File), f.Trace.CategoryLabels)
	if err != nil {
		return nil, err
	}
	cols := make([][]float64, len(f.Workload.Categories))
	for j, c := range f.Workload.Categories {
		if cols[j] = t.Columns[c.Name]; cols[j] == nil {
			return nil, fmt.Errorf("trace %s: no column for category %q (columns: %s)", f.Trace.File, c.Name, strings.Join(t.Names, ", "))
		}
	}
	out := make([][]float64, n)
	for i := range n {
		s := (time.Duration(i) * f.step()).Seconds()
		row := make([]float64, len(cols))
		for j, col := range cols {
			row[j] = t.At(col, s)
		}
		out[i] = row
	}
	return out, nil
}

// ReadTraceFile reads a CSV table or, for a .json file, a Prometheus
// query_range export whose series are named by the labels (default verb,
// scope, resource).
func ReadTraceFile(path string, labels []string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	var t *Table
	if strings.HasSuffix(path, ".json") {
		if len(labels) == 0 {
			labels = defaultCategoryLabels
		}
		t, err = ReadPrometheus(bytes.NewReader(data), labels)
	} else {
		t, err = ReadCSV(io.Reader(bytes.NewReader(data)))
	}
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	return t, nil
}
