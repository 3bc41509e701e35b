package whatif

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Table is a time series table: sample times (seconds from the first
// sample) and named columns of the same length.
type Table struct {
	// Start is the first sample's time (Unix seconds, or the file's
	// seconds when it writes plain numbers), for aligning tables.
	Start float64
	// Times are the sample times in seconds from the first, increasing.
	Times []float64
	// Columns are the values by column name.
	Columns map[string][]float64
	// Names are the column names in file order.
	Names []string
}

// maxTableRows bounds what a trace file may hold.
const maxTableRows = 1 << 21

// ReadCSV reads a CSV table: a header "time,<name>,...", then one row per
// sample; time is RFC3339 or seconds. Errors name the line and column.
func ReadCSV(r io.Reader) (*Table, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("line 1: reading the header: %w", err)
	}
	if len(head) < 2 || strings.TrimSpace(head[0]) != "time" {
		return nil, errors.New("line 1: want a header: time, then one column per series")
	}
	t := &Table{Columns: map[string][]float64{}}
	for _, h := range head[1:] {
		h = strings.TrimSpace(h)
		if h == "" || t.Columns[h] != nil {
			return nil, fmt.Errorf("line 1: column %q is empty or repeated", h)
		}
		t.Names = append(t.Names, h)
		t.Columns[h] = []float64{}
	}
	var first float64
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if line > maxTableRows {
			return nil, fmt.Errorf("line %d: more than %d rows", line, maxTableRows)
		}
		ts, err := parseTime(rec[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: column time: %w", line, err)
		}
		if line == 2 {
			first, t.Start = ts, ts
		}
		if err := t.addTime(ts - first); err != nil {
			return nil, fmt.Errorf("line %d: column time: %w", line, err)
		}
		for i, name := range t.Names {
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i+1]), 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("line %d: column %s: want a non-negative number, got %q", line, name, rec[i+1])
			}
			t.Columns[name] = append(t.Columns[name], v)
		}
	}
	if len(t.Times) == 0 {
		return nil, errors.New("no rows after the header")
	}
	return t, nil
}

func (t *Table) addTime(s float64) error {
	if n := len(t.Times); n > 0 && s <= t.Times[n-1] {
		return fmt.Errorf("time %v is not after the previous row", s)
	}
	t.Times = append(t.Times, s)
	return nil
}

func parseTime(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
		return v, nil
	}
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, fmt.Errorf("want seconds or an RFC3339 time, got %q", s)
	}
	return float64(ts.UnixNano()) / 1e9, nil
}

// promExport is the body of a Prometheus /api/v1/query_range answer.
type promExport struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// ReadPrometheus reads a query_range JSON export (resultType matrix); each
// series becomes the column named by its labels' values joined by "/"
// (series with the same name are added). Times come from the union of the
// series' timestamps; a series without a sample at a time counts 0.
func ReadPrometheus(r io.Reader, labels []string) (*Table, error) {
	var e promExport
	dec := json.NewDecoder(io.LimitReader(r, 256<<20))
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("reading the Prometheus export: %w", err)
	}
	if e.Status != "success" || e.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("want status success and data.resultType matrix, got %q and %q", e.Status, e.Data.ResultType)
	}
	points := map[string]map[float64]float64{}
	var times []float64
	for i, s := range e.Data.Result {
		parts := make([]string, len(labels))
		for j, l := range labels {
			parts[j] = s.Metric[l]
		}
		name := strings.Join(parts, "/")
		if points[name] == nil {
			points[name] = map[float64]float64{}
		}
		for k, v := range s.Values {
			ts, val, err := promPoint(v)
			if err != nil {
				return nil, fmt.Errorf("data.result[%d].values[%d]: %w", i, k, err)
			}
			points[name][ts] += val
			times = append(times, ts)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	if len(times) == 0 {
		return nil, errors.New("data.result: no samples")
	}
	t := &Table{Start: times[0], Columns: map[string][]float64{}}
	for _, ts := range times {
		t.Times = append(t.Times, ts-times[0])
	}
	for name, p := range points {
		t.Names = append(t.Names, name)
		col := make([]float64, len(times))
		for i, ts := range times {
			col[i] = p[ts]
		}
		t.Columns[name] = col
	}
	slices.Sort(t.Names)
	return t, nil
}

func promPoint(v [2]any) (float64, float64, error) {
	ts, ok := v[0].(float64)
	s, ok2 := v[1].(string)
	if !ok || !ok2 {
		return 0, 0, errors.New("want [unix seconds, \"value\"]")
	}
	val, err := strconv.ParseFloat(s, 64)
	if err != nil || val < 0 || math.IsNaN(val) || math.IsInf(val, 0) {
		return 0, 0, fmt.Errorf("want a non-negative value, got %q", s)
	}
	return ts, val, nil
}

// At returns the column's value at second s: the last sample at or before
// s (the first sample before it starts).
func (t *Table) At(col []float64, s float64) float64 {
	i, found := slices.BinarySearch(t.Times, s)
	if !found {
		i--
	}
	return col[max(i, 0)]
}

// Sum returns, per sample, the sum of all columns.
func (t *Table) Sum() []float64 {
	out := make([]float64, len(t.Times))
	for _, col := range t.Columns {
		for i, v := range col {
			out[i] += v
		}
	}
	return out
}

// AtAbsolute returns the column's value at absolute time s (see Start).
func (t *Table) AtAbsolute(col []float64, s float64) float64 { return t.At(col, s-t.Start) }

// generate builds the rates of every category at every step.
func generate(g *Generator, cats []Category, steps int, step time.Duration, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := make([][]float64, steps)
	flat := make([]float64, steps*len(cats))
	for i := range steps {
		at := time.Duration(i) * step
		f := shape(g, at)
		row := flat[i*len(cats) : (i+1)*len(cats)]
		for j, c := range cats {
			v := g.Rates[c.Name] * f
			if g.Noise > 0 {
				v *= 1 + g.Noise*rng.NormFloat64()
			}
			row[j] = max(v, 0)
		}
		out[i] = row
	}
	return out
}

// shape is the generator's load factor at a time.
func shape(g *Generator, at time.Duration) float64 {
	f := 1.0
	if d := g.Diurnal; d != nil {
		day := 24 * time.Hour
		phase := float64((at-d.Peak.Duration)%day) / float64(day)
		f *= 1 + d.Amplitude*math.Cos(2*math.Pi*phase)
	}
	if g.WeekendFactor > 0 && int(at/(24*time.Hour))%7 >= 5 {
		f *= g.WeekendFactor
	}
	for _, s := range g.Spikes {
		if at >= s.At.Duration && at < s.At.Duration+s.For.Duration {
			f *= s.Factor
		}
	}
	for _, s := range g.Steps {
		if at >= s.At.Duration {
			f *= s.Factor
		}
	}
	return f
}
