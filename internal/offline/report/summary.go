package report

import (
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

// summaryRow is one line of the summary table.
type summaryRow struct {
	Label, Value, ID string
}

// groupRows sums each group's node-hours (registered nodes over time)
// and their cost; hasCost is whether any group has a price.
func groupRows(res *offline.Result, prices map[string]float64) (rows []groupRow, hasCost bool) {
	for _, id := range res.GroupOrder {
		r := groupRow{Name: id, Price: prices[id]}
		hasCost = hasCost || r.Price > 0
		for i, s := range res.Samples {
			n := s.Groups[id].Nodes
			r.Peak = max(r.Peak, n)
			r.NodeHours += float64(n) * sampleSpan(res.Samples, i).Hours()
		}
		r.Cost = r.NodeHours * r.Price
		if f, ok := res.Final.Groups[id]; ok {
			r.Min, r.Max, r.Final = f.Min, f.Max, f.Target
		}
		rows = append(rows, r)
	}
	return rows, hasCost
}

// sampleSpan is how long sample i stood: until the next sample (the last
// one stands for nothing).
func sampleSpan(samples []offline.Sample, i int) time.Duration {
	if i+1 >= len(samples) {
		return 0
	}
	return samples[i+1].At - samples[i].At
}

// summarize computes the figures of the summary table.
func summarize(scn *scenario.Scenario, res *offline.Result, checks []offline.Check, groups []groupRow, hasCost bool) []summaryRow {
	rows := []summaryRow{
		{"Simulated time", scn.Duration.String(), "duration"},
		{"Autoscaler loops", fmt.Sprintf("%d (%d failed)", res.Final.Loops, res.Final.LoopErrors), "loops"},
	}
	first, peak, peakAt := 0, 0, time.Duration(0)
	var cpuUse, memUse, span float64
	var cpuPeak, memPeak float64
	for i, s := range res.Samples {
		n := 0
		for _, g := range s.Groups {
			n += g.Nodes
		}
		if i == 0 {
			first = n
		}
		if n > peak {
			peak, peakAt = n, s.At
		}
		if d := sampleSpan(res.Samples, i).Hours(); s.Allocatable.CPU > 0 && s.Allocatable.Memory > 0 {
			c, m := float64(s.Requested.CPU)/float64(s.Allocatable.CPU), float64(s.Requested.Memory)/float64(s.Allocatable.Memory)
			cpuUse, memUse, span = cpuUse+c*d, memUse+m*d, span+d
			cpuPeak, memPeak = max(cpuPeak, c), max(memPeak, m)
		}
	}
	rows = append(rows, summaryRow{"Nodes (start / peak / end)", fmt.Sprintf("%d / %d at %s / %d", first, peak, shortDuration(peakAt), res.Final.Nodes), "nodes"})
	ups, added, removed := 0, 0, 0
	for _, e := range res.Events {
		switch e.Type {
		case "ScaleUp":
			ups, added = ups+1, added+e.Delta
		case "NodeRemoved":
			removed += max(len(e.Nodes), 1)
		}
	}
	rows = append(rows, summaryRow{"Scale-ups (nodes asked for) / nodes removed", fmt.Sprintf("%d (%d) / %d", ups, added, removed), "scaling"})
	hours, cost := 0.0, 0.0
	for _, g := range groups {
		hours, cost = hours+g.NodeHours, cost+g.Cost
	}
	rows = append(rows, summaryRow{"Node-hours", fmt.Sprintf("%.1f", hours), "node-hours"})
	if hasCost {
		rows = append(rows, summaryRow{"Cost (node-hours × pricePerHour)", fmt.Sprintf("%.2f", cost), "cost"})
	}
	if span > 0 {
		rows = append(rows, summaryRow{"CPU requested / allocatable (mean, peak)", fmt.Sprintf("%.0f%%, %.0f%%", 100*cpuUse/span, 100*cpuPeak), "cpu"},
			summaryRow{"Memory requested / allocatable (mean, peak)", fmt.Sprintf("%.0f%%, %.0f%%", 100*memUse/span, 100*memPeak), "memory"})
	}
	rows = append(rows, waitSummary(res.Waits)...)
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if len(checks) > 0 {
		rows = append(rows, summaryRow{"Expectations failed", fmt.Sprintf("%d of %d", failed, len(checks)), "checks"})
	}
	return rows
}

// waitSummary gives the wait percentiles of the pods that got a node and
// the number still pending. waits is sorted longest first.
func waitSummary(waits []offline.PodWait) []summaryRow {
	var bound []time.Duration
	pending := 0
	for _, w := range waits {
		if w.Bound {
			bound = append(bound, w.Wait)
		} else {
			pending++
		}
	}
	rows := []summaryRow{{"Pods that got a node after the start / still pending at the end", fmt.Sprintf("%d / %d", len(bound), pending), "pods"}}
	if len(bound) == 0 {
		return rows
	}
	// bound is longest first: the q-quantile is counted from the end.
	q := func(f float64) string {
		i := int(f * float64(len(bound)-1))
		return shortDuration(bound[len(bound)-1-i])
	}
	return append(rows, summaryRow{"Wait for a node (median / p95 / longest)", q(0.5) + " / " + q(0.95) + " / " + shortDuration(bound[0]), "wait"})
}
