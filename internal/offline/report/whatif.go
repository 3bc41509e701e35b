package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kscale/kscale/internal/whatif"
)

// WhatIfOutput is the output of a what-if: every configuration's result,
// the expectations and the sweep; its JSON is `--output json`.
type WhatIfOutput struct {
	Name    string               `json:"whatIf"`
	Results []whatif.Result      `json:"results"`
	Checks  []whatif.Check       `json:"checks"`
	Sweep   []whatif.SweepResult `json:"sweep,omitempty"`
}

// whatIfRows are the totals shown in text and in the report, in order.
var whatIfRows = []struct {
	label, format string
	get           func(t whatif.Totals) any
}{
	{"CPU utilisation (used/requested)", "%.2f", func(t whatif.Totals) any { return t.CPUUtilization }},
	{"memory utilisation (used/requested)", "%.2f", func(t whatif.Totals) any { return t.MemoryUtilization }},
	{"time CPU above requests (min)", "%.1f", func(t whatif.Totals) any { return t.CPUAboveRequestMinutes }},
	{"pod-minutes CPU above requests", "%.1f", func(t whatif.Totals) any { return t.CPUAboveRequestPodMinutes }},
	{"time CPU starved (min)", "%.1f", func(t whatif.Totals) any { return t.CPUStarvedMinutes }},
	{"CPU unserved (core-min)", "%.1f", func(t whatif.Totals) any { return t.CPUUnservedCoreMinutes }},
	{"pod-minutes memory above requests (OOM risk)", "%.1f", func(t whatif.Totals) any { return t.MemoryOOMRiskPodMinutes }},
	{"evictions", "%d", func(t whatif.Totals) any { return t.Evictions }},
	{"in-place resizes", "%d", func(t whatif.Totals) any { return t.Resizes }},
	{"replicas mean", "%.2f", func(t whatif.Totals) any { return t.ReplicasMean }},
	{"replicas max", "%d", func(t whatif.Totals) any { return t.ReplicasMax }},
	{"replica changes", "%d", func(t whatif.Totals) any { return t.ReplicaChanges }},
	{"CPU requested (core-h)", "%.1f", func(t whatif.Totals) any { return t.CPURequestedCoreHours }},
	{"CPU used (core-h)", "%.1f", func(t whatif.Totals) any { return t.CPUUsedCoreHours }},
	{"memory requested (GiB-h)", "%.1f", func(t whatif.Totals) any { return t.MemoryRequestedGiBHours }},
	{"memory used (GiB-h)", "%.1f", func(t whatif.Totals) any { return t.MemoryUsedGiBHours }},
	{"nodes needed mean", "%.2f", func(t whatif.Totals) any { return t.NodesNeededMean }},
	{"nodes needed max", "%d", func(t whatif.Totals) any { return t.NodesNeededMax }},
}

// WriteWhatIf writes a what-if's output in format: "json", "none" (only
// failed checks) or "text" (the totals side by side, the sweep, then the
// checks when check is set or there are any).
func WriteWhatIf(w io.Writer, format string, out *WhatIfOutput, check bool) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "none":
		return writeWhatIfChecks(w, out.Checks, true)
	}
	var cells strings.Builder
	cells.WriteString(out.Name + "\t")
	for _, r := range out.Results {
		cells.WriteString(r.Configuration + "\t")
	}
	cells.WriteString("\n")
	for _, row := range whatIfRows {
		cells.WriteString(row.label + "\t")
		for _, r := range out.Results {
			fmt.Fprintf(&cells, row.format+"\t", row.get(r.Totals))
		}
		cells.WriteString("\n")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	if _, err := io.WriteString(tw, cells.String()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	var sweep strings.Builder
	for _, s := range out.Sweep {
		fmt.Fprintf(&sweep, "\nsweep %s: largest target within the bound: %g\n", s.Configuration, s.Best)
		for _, row := range s.Rows {
			fmt.Fprintf(&sweep, "  target %-8g above-request %7.1f min  replicas mean %5.2f  CPU utilisation %.2f\n", row.Target, row.AboveRequestMinutes, row.ReplicasMean, row.CPUUtilization)
		}
	}
	if _, err := io.WriteString(w, sweep.String()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if check || len(out.Checks) > 0 {
		return writeWhatIfChecks(w, out.Checks, false)
	}
	return nil
}

func writeWhatIfChecks(w io.Writer, checks []whatif.Check, failedOnly bool) error {
	for _, c := range checks {
		if failedOnly && c.OK {
			continue
		}
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		if _, err := fmt.Fprintf(w, "%s %s (got %g)\n", mark, c.Expectation, c.Got); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}
