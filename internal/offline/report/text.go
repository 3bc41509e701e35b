package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

// WriteTimeline prints the readable timeline and the final state.
func WriteTimeline(w io.Writer, scn *scenario.Scenario, res *offline.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintf(tw, "Scenario: %s (%v)\n\n", scn.Name, scn.Duration.Duration)
	for _, e := range res.Events {
		_, _ = fmt.Fprintf(tw, "%v\t%s\t%s\n", e.At, e.Type, EventText(e))
	}
	timing := ""
	if res.Final.MaxLoop != "" {
		timing = ", longest loop " + res.Final.MaxLoop + " at " + res.Final.MaxLoopAt
	}
	_, _ = fmt.Fprintf(tw, "\nFinal state after %s (%d loops, %d errors%s):\n", res.Final.Time, res.Final.Loops,
		res.Final.LoopErrors, timing)
	_, _ = fmt.Fprintf(tw, "  group\tmin\tmax\ttarget\tready\tbackoff\n")
	for _, id := range res.GroupOrder {
		g, ok := res.Final.Groups[id]
		if !ok {
			continue
		}
		backoff := "-"
		if g.BackedOff {
			backoff = "yes (" + g.BackoffReason + ")"
		}
		_, _ = fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%s\n", id, g.Min, g.Max, g.Target, g.Ready, backoff)
	}
	_, _ = fmt.Fprintf(tw, "  pending pods: %d, nodes: %d\n", res.Final.PendingPods, res.Final.Nodes)
	return tw.Flush()
}

// EventText is the details of a timeline event on one line: group,
// delta, nodes, pods, reason and message, as far as they are set.
func EventText(e offline.Event) string {
	var parts []string
	if e.Group != "" {
		parts = append(parts, e.Group)
	}
	if e.Delta != 0 {
		parts = append(parts, fmt.Sprintf("%+d", e.Delta))
	}
	if len(e.Nodes) > 0 {
		nodes := e.Nodes
		if len(nodes) > 5 {
			nodes = append(nodes[:5:5], fmt.Sprintf("... (%d)", len(e.Nodes)))
		}
		parts = append(parts, "["+strings.Join(nodes, " ")+"]")
	}
	if e.Pods > 0 {
		parts = append(parts, fmt.Sprintf("%d pod(s)", e.Pods))
	}
	if e.Reason != "" {
		parts = append(parts, e.Reason)
	}
	if e.Message != "" {
		parts = append(parts, e.Message)
	}
	return strings.Join(parts, "  ")
}

// WriteChecks prints the expectation results (only failures with onlyFailed).
func WriteChecks(w io.Writer, checks []offline.Check, onlyFailed bool) error {
	if !onlyFailed {
		if _, err := fmt.Fprintln(w, "\nChecks:"); err != nil {
			return err
		}
	}
	for _, c := range checks {
		if c.OK && onlyFailed {
			continue
		}
		status := "ok  "
		if !c.OK {
			status = "FAIL"
		}
		line := fmt.Sprintf("  %s line %d: %s", status, c.Line, c.What)
		if c.Detail != "" {
			line += "\n         " + c.Detail
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// WriteOutput writes a run's output in format: "json" (the timeline, the
// final state and the checks), "none" (only failed checks) or "text" (the
// readable timeline, then the checks when check is set or there are any).
func WriteOutput(w io.Writer, format string, scn *scenario.Scenario, res *offline.Result, checks []offline.Check, check bool) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		events := res.Events
		if events == nil {
			events = []offline.Event{}
		}
		return enc.Encode(struct {
			Scenario string          `json:"scenario"`
			Events   []offline.Event `json:"events"`
			Final    offline.Final   `json:"final"`
			Checks   []offline.Check `json:"checks"`
		}{scn.Name, events, res.Final, checks})
	case "none":
		return WriteChecks(w, checks, true)
	}
	if err := WriteTimeline(w, scn, res); err != nil {
		return err
	}
	if check || len(checks) > 0 {
		return WriteChecks(w, checks, false)
	}
	return nil
}
