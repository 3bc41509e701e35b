package report

import (
	"strings"
	"time"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

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
		out = append(out, chartMarker{T: e.At.Seconds(), Kind: kind, Text: e.Type + " " + EventText(e)})
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
