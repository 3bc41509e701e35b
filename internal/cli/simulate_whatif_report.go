package cli

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/kscale/kscale/internal/whatif"
)

// whatIfTemplate is a what-if's report: the totals side by side, the
// checks, and one chart per quantity with a line per configuration, drawn
// as inline SVG (no script).
var whatIfTemplate = template.Must(template.New("whatif").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kscale simulate: {{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:1200px}
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ddd;padding:3px 8px}
th{background:#f5f5f5;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#2ca02c}.fail{color:#d62728;font-weight:bold}svg{border:1px solid #eee;margin:.3em 0}
.key span{margin-right:1.2em;font-size:.9em}.key i{display:inline-block;width:14px;height:3px;margin-right:4px;vertical-align:middle}
</style></head><body>
<h1>{{.Title}}</h1>
{{if .Description}}<p>{{.Description}}</p>{{end}}
<h2>Totals</h2>
<table id="totals"><tr><th></th>{{range .Configs}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Label}}</th>{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table>
{{if .Checks}}<h2>Expectations</h2><ul id="checks">{{range .Checks}}<li class="{{if .OK}}ok{{else}}fail{{end}}">{{if .OK}}ok{{else}}FAIL{{end}}: {{.Expectation}} (got {{.Got}})</li>{{end}}</ul>{{end}}
<h2>Over time</h2>
<p class="key">{{range .Key}}<span><i style="background:{{.Color}}"></i>{{.Name}}</span>{{end}}</p>
{{range .Charts}}<h3>{{.Title}}</h3>
<svg width="1000" height="180" viewBox="0 0 1000 180" role="img" aria-label="{{.Title}}">
<text x="4" y="12" font-size="11">{{.Max}}</text><text x="4" y="176" font-size="11">0</text>
{{range .Lines}}<polyline fill="none" stroke="{{.Color}}" stroke-width="1.5" points="{{.Points}}"/>{{end}}
</svg>{{end}}
</body></html>
`))

var whatIfColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}

type whatIfChart struct {
	Title string
	Max   string
	Lines []struct{ Color, Points string }
}

func writeWhatIfReport(w io.Writer, f *whatif.File, out *whatIfOutput) error {
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
	return whatIfTemplate.Execute(w, page)
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
