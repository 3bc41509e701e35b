package report

import (
	_ "embed" // the page is a file beside this one
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/kscale/kscale/internal/whatif"
)

// whatIfHTML is a what-if's report page.
//
//go:embed whatif.html
var whatIfHTML string

var whatIfTemplate = template.Must(template.New("whatif").Parse(whatIfHTML))

var whatIfColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}

type whatIfChart struct {
	Title string
	Max   string
	Lines []struct{ Color, Points string }
}

// WriteWhatIfHTML renders a what-if's HTML report: the totals side by
// side, the checks, and one chart per quantity with a line per
// configuration, drawn as inline SVG (no script).
func WriteWhatIfHTML(w io.Writer, f *whatif.File, out *WhatIfOutput) error {
	page := struct {
		Title, Description string
		Configs            []string
		Rows               []struct {
			Label  string
			Values []string
		}
		Checks []whatif.Check
		Key    []struct{ Name, Color string }
		Charts []whatIfChart
	}{Title: f.Name, Description: f.Description, Checks: out.Checks}
	for i, r := range out.Results {
		page.Configs = append(page.Configs, r.Configuration)
		page.Key = append(page.Key, struct{ Name, Color string }{r.Configuration, whatIfColors[i%len(whatIfColors)]})
	}
	for _, row := range whatIfRows {
		vals := make([]string, len(out.Results))
		for i, r := range out.Results {
			vals[i] = fmt.Sprintf(row.format, row.get(r.Totals))
		}
		page.Rows = append(page.Rows, struct {
			Label  string
			Values []string
		}{row.label, vals})
	}
	for _, c := range []struct {
		title string
		get   func(p whatif.Point) float64
	}{
		{"replicas", func(p whatif.Point) float64 { return float64(p.Replicas) }},
		{"CPU requested (cores)", func(p whatif.Point) float64 { return p.CPURequested }},
		{"CPU used (cores)", func(p whatif.Point) float64 { return p.CPUUsed }},
		{"CPU demand not served (cores)", func(p whatif.Point) float64 { return max(p.CPUDemand-p.CPUUsed, 0) }},
		{"CPU request per pod (cores)", func(p whatif.Point) float64 { return p.CPURequestPerPod }},
		{"memory requested (GiB)", func(p whatif.Point) float64 { return p.MemoryRequested }},
	} {
		page.Charts = append(page.Charts, chartOf(c.title, out.Results, c.get))
	}
	if err := whatIfTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("rendering the what-if report: %w", err)
	}
	return nil
}

// chartOf draws one quantity of every configuration on a shared scale.
func chartOf(title string, res []whatif.Result, get func(whatif.Point) float64) whatIfChart {
	top, last := 0.0, 0.0
	for _, r := range res {
		for _, p := range r.Series {
			top = max(top, get(p))
			last = max(last, p.Minute)
		}
	}
	ch := whatIfChart{Title: title, Max: fmt.Sprintf("%.3g", top)}
	if top == 0 {
		top = 1
	}
	last = max(last, 1)
	for i, r := range res {
		var b strings.Builder
		for _, p := range r.Series {
			fmt.Fprintf(&b, "%.1f,%.1f ", p.Minute/last*1000, 175-get(p)/top*165)
		}
		ch.Lines = append(ch.Lines, struct{ Color, Points string }{whatIfColors[i%len(whatIfColors)], b.String()})
	}
	return ch
}
