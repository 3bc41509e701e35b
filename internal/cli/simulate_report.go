package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/third_party/uplot"
)

// Bounds of what the report embeds, so a day-long run of a large cluster
// still makes a page a browser opens quickly.
const (
	maxPoints    = 3000 // samples per chart series
	maxMarkers   = 2000 // timeline events drawn on the charts
	maxEventRows = 1000 // rows of the event table
	worstPods    = 20   // rows of the longest-waiting pods table
)

// reportPage feeds the page template: the summary and tables are rendered
// by the template (escaped), the charts by script from Data, which is
// embedded as JSON in a non-executable script element.
type reportPage struct {
	Title, Description string
	Summary            []summaryRow
	Groups             []groupRow
	HasCost            bool
	Worst              []offline.PodWait
	WaitsShown         int
	Events             []eventRow
	EventsTotal        int
	Checks             []offline.Check
	Data               template.JS
	UPlotJS            template.JS
	UPlotCSS           template.CSS
}

// eventRow is one line of the event table.
type eventRow struct {
	At, Kind, Type, Text string
}

// summaryRow is one line of the summary table.
type summaryRow struct {
	Label, Value, ID string
}

// groupRow is one node group's line in the capacity table.
type groupRow struct {
	Name                   string
	Min, Max, Peak, Final  int
	NodeHours, Price, Cost float64
}

// chartData is what the page's script draws; times are seconds since the
// start.
type chartData struct {
	Duration float64       `json:"duration"`
	T        []float64     `json:"t"`
	Pending  []int         `json:"pending"`
	CPUReq   []float64     `json:"cpuReq"`
	CPUAlloc []float64     `json:"cpuAlloc"`
	MemReq   []float64     `json:"memReq"`
	MemAlloc []float64     `json:"memAlloc"`
	Groups   []chartGroup  `json:"groups"`
	Markers  []chartMarker `json:"markers"`
	Waits    waitHistogram `json:"waits"`
}

// chartGroup is one node group's series.
type chartGroup struct {
	Name    string       `json:"name"`
	Price   float64      `json:"price"`
	Target  []int        `json:"target"`
	Ready   []int        `json:"ready"`
	Nodes   []int        `json:"nodes"`
	Backoff [][2]float64 `json:"backoff"`
}

// chartMarker is a timeline event drawn as a vertical line.
type chartMarker struct {
	T    float64 `json:"t"`
	Kind string  `json:"kind"`
	Text string  `json:"text"`
}

// waitHistogram counts pods by how long they waited for a node.
type waitHistogram struct {
	Labels []string `json:"labels"`
	Counts []int    `json:"counts"`
}

// reportFile is the report being written: a temporary file beside the
// path, created before the simulation so an unwritable path fails at
// once, and renamed onto the path when the report is complete.
type reportFile struct {
	path string
	tmp  *os.File
	done bool
}

func createReport(path string) (*reportFile, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &UsageError{Err: fmt.Errorf("--report: %s is a directory", path)}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kscale-report-*.html")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &UsageError{Err: fmt.Errorf("--report: cannot create %s: %w", path, err)}
	}
	return &reportFile{path: path, tmp: tmp}, nil
}

// write renders the report and moves it onto the path.
func (r *reportFile) write(scn *scenario.Scenario, res *offline.Result, checks []offline.Check) error {
	page, err := buildReport(scn, res, checks)
	if err != nil {
		return err
	}
	return r.commit(func(w io.Writer) error { return reportTemplate.Execute(w, page) })
}

// commit renders the page into the temporary file and moves it onto the
// path.
func (r *reportFile) commit(render func(io.Writer) error) error {
	if err := render(r.tmp); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := r.tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := r.tmp.Close(); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := os.Rename(r.tmp.Name(), r.path); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	r.done = true
	return nil
}

// discard removes the temporary file unless the report was written.
func (r *reportFile) discard() {
	if !r.done {
		_ = r.tmp.Close()
		_ = os.Remove(r.tmp.Name())
	}
}

func buildReport(scn *scenario.Scenario, res *offline.Result, checks []offline.Check) (reportPage, error) {
	prices := groupPrices(scn)
	data := chartSeries(scn, res, prices)
	data.Markers = markers(res.Events)
	data.Waits = waitHistogramOf(res.Waits)
	js, err := json.Marshal(data) // escapes <, > and & so the data cannot end its script element
	if err != nil {
		return reportPage{}, fmt.Errorf("writing report: %w", err)
	}
	page := reportPage{Title: scn.Name, Description: scn.Description, Checks: checks, Data: template.JS(js),
		UPlotJS: template.JS(uplot.JS), UPlotCSS: template.CSS(uplot.CSS), EventsTotal: len(res.Events)}
	page.Groups, page.HasCost = groupRows(res, prices)
	page.Summary = summarize(scn, res, checks, page.Groups, page.HasCost)
	page.Worst = res.Waits[:min(len(res.Waits), worstPods)]
	page.WaitsShown = len(res.Waits)
	for _, e := range res.Events {
		if len(page.Events) == maxEventRows {
			break
		}
		if kind := markerKind(e.Type); kind != "" {
			page.Events = append(page.Events, eventRow{At: e.At.String(), Kind: kind, Type: e.Type, Text: eventText(e)})
		}
	}
	return page, nil
}

// groupPrices collects each group's price, including groups added by
// events.
func groupPrices(scn *scenario.Scenario) map[string]float64 {
	out := map[string]float64{}
	for _, g := range scn.NodeGroups {
		out[g.Name] = g.PricePerHour
	}
	for _, e := range scn.Events {
		if e.AddGroup != nil {
			out[e.AddGroup.Name] = e.AddGroup.PricePerHour
		}
	}
	return out
}

// chartSeries thins the samples to at most maxPoints and turns them into
// the chart series.
func chartSeries(scn *scenario.Scenario, res *offline.Result, prices map[string]float64) chartData {
	d := chartData{Duration: scn.Duration.Seconds()}
	step := (len(res.Samples) + maxPoints - 1) / maxPoints
	groups := make([]chartGroup, len(res.GroupOrder))
	for i, id := range res.GroupOrder {
		groups[i] = chartGroup{Name: id, Price: prices[id], Backoff: [][2]float64{}}
	}
	const gib = 1 << 30
	for i, s := range res.Samples {
		if i%max(step, 1) != 0 && i != len(res.Samples)-1 {
			continue
		}
		d.T = append(d.T, s.At.Seconds())
		d.Pending = append(d.Pending, s.Pending)
		d.CPUReq = append(d.CPUReq, float64(s.Requested.CPU)/1000)
		d.CPUAlloc = append(d.CPUAlloc, float64(s.Allocatable.CPU)/1000)
		d.MemReq = append(d.MemReq, float64(s.Requested.Memory)/gib)
		d.MemAlloc = append(d.MemAlloc, float64(s.Allocatable.Memory)/gib)
		for gi, id := range res.GroupOrder {
			g := s.Groups[id]
			groups[gi].Target = append(groups[gi].Target, g.Target)
			groups[gi].Ready = append(groups[gi].Ready, g.Ready)
			groups[gi].Nodes = append(groups[gi].Nodes, g.Nodes)
		}
	}
	for gi, id := range res.GroupOrder {
		groups[gi].Backoff = backoffSpans(res.Samples, id, scn.Duration.Duration)
	}
	d.Groups = groups
	return d
}

// backoffSpans are the intervals in which a group was backed off.
func backoffSpans(samples []offline.Sample, id string, end time.Duration) [][2]float64 {
	out := [][2]float64{}
	start := time.Duration(-1)
	for _, s := range samples {
		on := s.Groups[id].BackedOff
		switch {
		case on && start < 0:
			start = s.At
		case !on && start >= 0:
			out = append(out, [2]float64{start.Seconds(), s.At.Seconds()})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]float64{start.Seconds(), end.Seconds()})
	}
	return out
}

// markerKind sorts the timeline events the charts mark; "" for the
// others.
func markerKind(t string) string {
	switch {
	case t == "ScaleUp":
		return "scale-up"
	case t == "DeleteNodes" || t == "DecreaseTargetSize":
		return "scale-down"
	case t == "EvictPod" || t == "ScaleDownStarted":
		return "drain"
	case strings.HasPrefix(t, "Backoff"):
		return "backoff"
	case strings.HasPrefix(t, "TemplateMismatch"):
		return "mismatch"
	case t == "ScaleUpFailed" || t == "ScaleUpTimedOut" || t == "ScaleUpError" || t == "ScaleDownFailed" ||
		t == "LoopError" || t == "EventError" || t == "Error":
		return "failure"
	case t == "ScenarioEvent":
		return "scenario"
	}
	return ""
}

func markers(events []offline.Event) []chartMarker {
	out := []chartMarker{}
	for _, e := range events {
		kind := markerKind(e.Type)
		if kind == "" || len(out) == maxMarkers {
			continue
		}
		out = append(out, chartMarker{T: e.At.Seconds(), Kind: kind, Text: e.Type + " " + eventText(e)})
	}
	return out
}

// waitBuckets are the upper bounds of the wait histogram's buckets.
var waitBuckets = []time.Duration{0, 10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 3 * time.Minute,
	5 * time.Minute, 10 * time.Minute, 20 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour}

func waitHistogramOf(waits []offline.PodWait) waitHistogram {
	h := waitHistogram{Counts: make([]int, len(waitBuckets)+2)}
	h.Labels = append(h.Labels, "0s")
	for i := 1; i < len(waitBuckets); i++ {
		h.Labels = append(h.Labels, "≤"+shortDuration(waitBuckets[i]))
	}
	h.Labels = append(h.Labels, ">"+shortDuration(waitBuckets[len(waitBuckets)-1]), "still pending")
	for _, w := range waits {
		if !w.Bound {
			h.Counts[len(h.Counts)-1]++
			continue
		}
		i := 0
		for i < len(waitBuckets) && w.Wait > waitBuckets[i] {
			i++
		}
		h.Counts[i]++
	}
	return h
}

// shortDuration prints 1h, 1h30m, 2m, 10s instead of 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
