package cli

import (
	"fmt"
	"html/template"
	"os"
	"strings"
	"time"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

// Chart geometry of the report's SVGs.
const (
	chartW, chartH, chartPad = 900.0, 220.0, 40.0
	maxPoints                = 1500
)

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// series is one line of a chart.
type series struct {
	Name, Color, Points string
}

// span is one backoff interval of a group.
type span struct {
	X, W float64
}

// backoffRow is one group's backoff spans.
type backoffRow struct {
	Group, Color string
	Y            float64
	Spans        []span
}

// reportData feeds the report template.
type reportData struct {
	Title, Description, Duration string
	Nodes, Pending               []series
	NodesMax, PendingMax         int
	Backoff                      []backoffRow
	BackoffH                     float64
	Actions                      []offline.Event
	Checks                       []offline.Check
	Final                        offline.Final
	Groups                       []string
	Ticks                        []tick
}

// tick is an x-axis label.
type tick struct {
	X     float64
	Label string
}

func writeReportFile(path string, scn *scenario.Scenario, res *offline.Result, checks []offline.Check) error {
	f, err := os.Create(path)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--report: %w", err)}
	}
	data := buildReport(scn, res, checks)
	if err := reportTemplate.Execute(f, data); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing report: %w", err)
	}
	return f.Close()
}

func buildReport(scn *scenario.Scenario, res *offline.Result, checks []offline.Check) reportData {
	d := reportData{Title: scn.Name, Description: scn.Description, Duration: scn.Duration.String(), Checks: checks,
		Final: res.Final, Groups: res.GroupOrder}
	end := scn.Duration.Duration
	x := func(t time.Duration) float64 { return chartPad + (chartW-2*chartPad)*float64(t)/float64(max(end, 1)) }
	step := max(1, len(res.Samples)/maxPoints)
	for _, s := range res.Samples {
		d.PendingMax = max(d.PendingMax, s.Pending)
		for _, g := range s.Groups {
			d.NodesMax = max(d.NodesMax, g.Target, g.Nodes)
		}
	}
	y := func(v, top int) float64 {
		return chartH - chartPad - (chartH-2*chartPad)*float64(v)/float64(max(top, 1))
	}
	var pending strings.Builder
	for i, s := range res.Samples {
		if i%step == 0 || i == len(res.Samples)-1 {
			fmt.Fprintf(&pending, "%.1f,%.1f ", x(s.At), y(s.Pending, d.PendingMax))
		}
	}
	d.Pending = []series{{Name: "pending pods", Color: "#d62728", Points: pending.String()}}
	for gi, id := range res.GroupOrder {
		color := palette[gi%len(palette)]
		var target, ready strings.Builder
		row := backoffRow{Group: id, Color: color, Y: float64(gi) * 22}
		var spanStart time.Duration = -1
		for i, s := range res.Samples {
			g, ok := s.Groups[id]
			if i%step == 0 || i == len(res.Samples)-1 {
				if ok {
					fmt.Fprintf(&target, "%.1f,%.1f ", x(s.At), y(g.Target, d.NodesMax))
					fmt.Fprintf(&ready, "%.1f,%.1f ", x(s.At), y(g.Ready, d.NodesMax))
				}
			}
			switch {
			case ok && g.BackedOff && spanStart < 0:
				spanStart = s.At
			case (!ok || !g.BackedOff) && spanStart >= 0:
				row.Spans = append(row.Spans, span{X: x(spanStart), W: max(1, x(s.At)-x(spanStart))})
				spanStart = -1
			}
		}
		if spanStart >= 0 {
			row.Spans = append(row.Spans, span{X: x(spanStart), W: max(1, x(end)-x(spanStart))})
		}
		d.Nodes = append(d.Nodes, series{Name: id + " target", Color: color, Points: target.String()},
			series{Name: id + " ready", Color: color, Points: ready.String()})
		d.Backoff = append(d.Backoff, row)
	}
	d.BackoffH = float64(len(res.GroupOrder))*22 + 30
	for i := range 6 {
		t := end * time.Duration(i) / 5
		d.Ticks = append(d.Ticks, tick{X: x(t), Label: t.Round(time.Second).String()})
	}
	for _, e := range res.Events {
		if e.IsAction() || strings.HasPrefix(e.Type, "Backoff") || e.Type == "ScaleUpFailed" || e.Type == "ScaleUpTimedOut" {
			d.Actions = append(d.Actions, e)
		}
	}
	return d
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kscale simulate: {{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}
svg{background:#fafafa;border:1px solid #ddd}
table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
.ok{color:#2ca02c}.fail{color:#d62728;font-weight:bold}.legend span{margin-right:1em}
</style></head><body>
<script>
window.kscaleErrors = [];
window.addEventListener("error", function (e) {
  window.kscaleErrors.push(String(e.message));
  document.body.setAttribute("data-errors", window.kscaleErrors.join("; "));
});
</script>
<h1>{{.Title}}</h1><p>{{.Description}}</p><p>Duration {{.Duration}}; {{.Final.Loops}} loops, {{.Final.LoopErrors}} errors; longest loop {{.Final.MaxLoop}}.</p>
<h2>Nodes per group (solid: target, dashed: ready)</h2>
<svg id="nodes-chart" class="chart" width="900" height="220" viewBox="0 0 900 220" role="img">
<text x="4" y="36" font-size="10">{{.NodesMax}}</text><text x="4" y="180" font-size="10">0</text>
{{range .Ticks}}<text x="{{.X}}" y="214" font-size="10" text-anchor="middle">{{.Label}}</text>{{end}}
{{range $i, $s := .Nodes}}<polyline fill="none" stroke="{{$s.Color}}" stroke-width="1.5" points="{{$s.Points}}" data-series="{{$s.Name}}"/>{{end}}
</svg>
<div class="legend">{{range .Nodes}}<span style="color:{{.Color}}">{{.Name}}</span>{{end}}</div>
<h2>Pending pods</h2>
<svg id="pending-chart" class="chart" width="900" height="220" viewBox="0 0 900 220" role="img">
<text x="4" y="36" font-size="10">{{.PendingMax}}</text><text x="4" y="180" font-size="10">0</text>
{{range .Ticks}}<text x="{{.X}}" y="214" font-size="10" text-anchor="middle">{{.Label}}</text>{{end}}
{{range .Pending}}<polyline fill="none" stroke="{{.Color}}" stroke-width="1.5" points="{{.Points}}" data-series="{{.Name}}"/>{{end}}
</svg>
<h2>Backoff spans</h2>
<svg id="backoff-chart" class="chart" width="900" height="{{.BackoffH}}" viewBox="0 0 900 {{.BackoffH}}" role="img">
{{range .Backoff}}<text x="4" y="{{.Y}}" dy="14" font-size="10">{{.Group}}</text>{{$row := .}}{{range .Spans}}<rect x="{{.X}}" y="{{$row.Y}}" width="{{.W}}" height="16" fill="{{$row.Color}}" opacity="0.7"/>{{end}}{{end}}
</svg>
<h2>Actions and backoff changes</h2>
<table id="actions"><tr><th>time</th><th>type</th><th>group</th><th>delta</th><th>nodes</th><th>details</th></tr>
{{range .Actions}}<tr><td>{{.At}}</td><td>{{.Type}}</td><td>{{.Group}}</td><td>{{if .Delta}}{{.Delta}}{{end}}</td><td>{{range .Nodes}}{{.}} {{end}}</td><td>{{.Reason}} {{.Message}}</td></tr>
{{end}}</table>
{{if .Checks}}<h2>Checks</h2><table id="checks"><tr><th>line</th><th>expectation</th><th>result</th></tr>
{{range .Checks}}<tr><td>{{.Line}}</td><td>{{.What}}</td><td>{{if .OK}}<span class="ok">ok</span>{{else}}<span class="fail">FAIL</span> {{.Detail}}{{end}}</td></tr>
{{end}}</table>{{end}}
<script>
document.querySelectorAll("svg.chart").forEach(function (svg) {
  var drawn = 0;
  svg.querySelectorAll("polyline,rect").forEach(function (el) {
    var box = el.getBBox();
    if (box.width > 0 || box.height > 0) { drawn++; }
  });
  svg.setAttribute("data-elements", String(drawn));
});
document.querySelectorAll("polyline").forEach(function (p) {
  if (p.getAttribute("data-series").indexOf(" ready") > 0) { p.setAttribute("stroke-dasharray", "4 3"); }
});
document.body.setAttribute("data-script", "ok");
</script>
</body></html>
`))
