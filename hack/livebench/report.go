package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the result of one run; its JSON form is the -json output.
type Report struct {
	// Autoscaler is "kscale" or "upstream-cluster-autoscaler"; Binary its path.
	Autoscaler string `json:"autoscaler"`
	Binary     string `json:"binary"`
	Config     Config `json:"config"`
	// Signal says how increases were observed: "log" (the autoscaler's log
	// line written just before the provider call, klog microseconds) or
	// "audit-node-create" (its node create requests in the audit log).
	Signal string `json:"signal"`
	// PopulateSeconds is how long creating nodes and running pods took.
	PopulateSeconds float64 `json:"populateSeconds"`
	// FirstLoopSeconds is from process start to the first counted loop.
	FirstLoopSeconds float64 `json:"firstLoopSeconds"`
	// RSSAtFirstLoopMB and RSSPeakMB are VmRSS at the first loop and VmHWM at the end.
	RSSAtFirstLoopMB float64 `json:"rssAtFirstLoopMB"`
	RSSPeakMB        float64 `json:"rssPeakMB"`
	// Latencies per pending pod, in seconds.
	CreateToIncrease        Summary `json:"createToIncrease"`
	UnschedulableToIncrease Summary `json:"unschedulableToIncrease"`
	CreateToUnschedulable   Summary `json:"createToUnschedulable"`
	// Pods is the number of pending pods sent; Uncovered how many no increase covered.
	Pods      int `json:"pods"`
	Uncovered int `json:"uncovered"`
	// IncreasedBeforeMark counts the marked pods whose node was asked for
	// before kube-scheduler marked them (their unschedulable -> increase
	// counts as 0).
	IncreasedBeforeMark int `json:"increasedBeforeMark"`
	// PodTimes are every burst pod's times (JSON only), to analyse a run
	// again.
	PodTimes []PodTimes `json:"podTimes,omitempty"`
	// Increases are the provider's increase calls after the first burst.
	Increases []Increase `json:"increases"`
	// IncreasesPerBurst is len(Increases) / bursts.
	IncreasesPerBurst float64 `json:"increasesPerBurst"`
	// MarksFromAudit counts the pods whose unschedulable time comes from
	// kube-scheduler's status patch in the audit log, the watch having
	// missed it (see fillMarks).
	MarksFromAudit int `json:"marksFromAudit"`
	// BurstLoops and IdleLoops describe the loops in and out of burst windows.
	BurstLoops LoopSummary `json:"burstLoops"`
	IdleLoops  LoopSummary `json:"idleLoops"`
	// Loops are the loops counted from the first one on, each with its
	// end, duration, CPU, requests and burst mark (JSON only).
	Loops []Loop `json:"loops"`
	// Requests counts the autoscaler's API requests by verb and resource
	// in the bursts' window: from the first burst's start to one interval
	// after the last one's, the same length for every autoscaler, each
	// burst with a whole interval for the writes it causes.
	Requests map[string]int `json:"requests"`
	// RequestsFromFirstLoop counts them from the first loop to the end of
	// the run (the row of the figures before session 10).
	RequestsFromFirstLoop map[string]int `json:"requestsFromFirstLoop"`
	// SampleGaps counts samples that held more than one loop: their loops
	// got the mean duration.
	SampleGaps int `json:"sampleGaps"`
	// StartedAt is when the run started (UTC).
	StartedAt time.Time `json:"startedAt"`
	// LoadAverage is /proc/loadavg's 1, 5 and 15 minute figures at the end
	// of the run and CPUs the machine's CPU count: how loaded the machine was.
	LoadAverage string `json:"loadAverage"`
	CPUs        int    `json:"cpus"`
}

// LoopSummary describes a set of loops.
type LoopSummary struct {
	// Seconds is the loop duration distribution.
	Seconds Summary `json:"seconds"`
	// CPUMillisPerLoop is the process's CPU per loop (all its threads,
	// informers and provider included).
	CPUMillisPerLoop float64 `json:"cpuMillisPerLoop"`
	// RequestsPerLoop is the autoscaler's API requests per loop.
	RequestsPerLoop float64 `json:"requestsPerLoop"`
	// PartsMeanSeconds is the mean time per loop of each timed part (see
	// Loop.Functions); Seconds' mean beyond their sum is untimed.
	PartsMeanSeconds map[string]float64 `json:"partsMeanSeconds,omitempty"`
}

func summarizeLoops(ls []Loop, burst bool) LoopSummary {
	var secs []float64
	var cpu, reqs float64
	parts := map[string]float64{}
	for _, l := range ls {
		if l.Burst != burst {
			continue
		}
		secs = append(secs, l.Seconds)
		cpu += l.CPUSeconds
		reqs += l.Requests
		for f, v := range l.Functions {
			parts[f] += v
		}
	}
	s := LoopSummary{Seconds: summarize(secs)}
	if n := float64(len(secs)); n > 0 {
		s.CPUMillisPerLoop, s.RequestsPerLoop = 1000*cpu/n, reqs/n
		for f := range parts {
			parts[f] /= n
		}
		s.PartsMeanSeconds = parts
	}
	return s
}

// latencies fills the three per-pod distributions.
func (r *Report) latencies(pods []PodTimes) {
	var c2i, u2i, c2u []float64
	r.Pods, r.PodTimes = len(pods), pods
	for _, p := range pods {
		if !p.Unschedulable.IsZero() {
			c2u = append(c2u, p.Unschedulable.Sub(p.Created).Seconds())
		}
		if p.Increase.IsZero() {
			r.Uncovered++
			continue
		}
		c2i = append(c2i, p.Increase.Sub(p.Created).Seconds())
		if !p.Unschedulable.IsZero() {
			// An increase made before the mark leaves kscale no share.
			u2i = append(u2i, max(0, p.Increase.Sub(p.Unschedulable).Seconds()))
			if p.Increase.Before(p.Unschedulable) {
				r.IncreasedBeforeMark++
			}
		}
	}
	r.CreateToIncrease, r.UnschedulableToIncrease, r.CreateToUnschedulable = summarize(c2i), summarize(u2i), summarize(c2u)
}

// countRequests groups requests received at or after from and before to
// (zero: no end) by "verb resource[/sub]".
func countRequests(reqs []Request, from, to time.Time) map[string]int {
	out := map[string]int{}
	for _, r := range reqs {
		if r.At.Before(from) || (!to.IsZero() && !r.At.Before(to)) {
			continue
		}
		k := r.Verb + " " + r.Resource
		if r.Subresource != "" {
			k += "/" + r.Subresource
		}
		out[k]++
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	c := r.Config
	p := func(format string, args ...any) { _, _ = fmt.Fprintf(tw, format+"\n", args...) }
	p("autoscaler\t%s (%s)", r.Autoscaler, r.Binary)
	p("cluster\t%d nodes in %d groups, %d running pods (populated in %.0f s)", c.Nodes, c.Groups, c.Pods, r.PopulateSeconds)
	p("bursts\t%d x %d pending pods every %s, owners %d, mix %s", c.Bursts, c.BurstSize, c.Interval, c.Owners, strings.Join(c.Mix, ","))
	p("increase signal\t%s", r.Signal)
	p("machine\t%d CPUs, load average %s at the end", r.CPUs, r.LoadAverage)
	p("first loop\t%.2f s after start (RSS %.0f MB)", r.FirstLoopSeconds, r.RSSAtFirstLoopMB)
	p("")
	p("latency (s)\tcount\tmin\tmedian\tp99\tmax")
	row := func(name string, s Summary) {
		p("%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f", name, s.Count, s.Min, s.Median, s.P99, s.Max)
	}
	row("create -> increase", r.CreateToIncrease)
	row("unschedulable -> increase", r.UnschedulableToIncrease)
	row("create -> unschedulable", r.CreateToUnschedulable)
	p("pods not covered by an increase\t%d of %d (left out of the rows above: they waited longer than the run)", r.Uncovered, r.Pods)
	p("marked pods whose node was asked for before their mark\t%d (counted as 0 s unschedulable -> increase)", r.IncreasedBeforeMark)
	p("unschedulable marks from the audit log\t%d (the watch missed them; their time is the mark's arrival)", r.MarksFromAudit)
	p("increases\t%d (%.1f per burst)", len(r.Increases), r.IncreasesPerBurst)
	p("")
	p("loops (s)\tcount\tmin\tmedian\tp99\tmax\tmean\tCPU ms/loop\trequests/loop")
	loopRow := func(name string, l LoopSummary) {
		s := l.Seconds
		p("%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f", name, s.Count, s.Min, s.Median, s.P99, s.Max, s.Mean, l.CPUMillisPerLoop, l.RequestsPerLoop)
	}
	loopRow("in bursts", r.BurstLoops)
	loopRow("idle", r.IdleLoops)
	partsRow := func(name string, l LoopSummary) {
		var parts []string
		for _, f := range slices.Sorted(maps.Keys(l.PartsMeanSeconds)) {
			parts = append(parts, fmt.Sprintf("%s %.3f", f, l.PartsMeanSeconds[f]))
		}
		p("%s: mean s per loop by part\t%s", name, strings.Join(parts, ", "))
	}
	partsRow("in bursts", r.BurstLoops)
	partsRow("idle", r.IdleLoops)
	p("samples holding >1 loop\t%d (scrape interval %s)", r.SampleGaps, c.ScrapeInterval)
	p("RSS peak (VmHWM)\t%.0f MB", r.RSSPeakMB)
	p("")
	total := func(m map[string]int) (n int) {
		for _, v := range m {
			n += v
		}
		return n
	}
	n := total(r.Requests)
	p("API requests in the bursts' window\t%d (%.1f per pending pod; %d bursts x %s from the first burst)", n,
		float64(n)/float64(max(r.Pods, 1)), c.Bursts, c.Interval)
	for _, k := range slices.Sorted(maps.Keys(r.Requests)) {
		p("  %s\t%d", k, r.Requests[k])
	}
	p("API requests from the first loop to the end\t%d", total(r.RequestsFromFirstLoop))
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing text report: %w", err)
	}
	return nil
}
