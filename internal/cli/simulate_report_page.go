package cli

import "html/template"

// reportTemplate is the report page. Everything from the scenario or the
// run reaches it either through the template's escaping or as JSON in a
// non-executable script element that the page's script parses; the
// charts are drawn by the embedded uPlot.
var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kscale simulate: {{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{{.UPlotCSS}}</style>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:1200px}
h1{font-size:1.4em;margin-bottom:.2em}h2{font-size:1.1em;margin:1.8em 0 .4em}h3{font-size:1em}
table{border-collapse:collapse;font-size:.9em;margin:.3em 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
#summary th{width:24em}.ok{color:#2ca02c}.fail{color:#d62728;font-weight:bold}
.hint{color:#555;font-size:.9em}.readout{font:12px ui-monospace,monospace;white-space:pre;color:#333;min-height:1.3em;margin:2px 0 0 60px}
.chart{margin-top:.3em}.multiples{display:flex;flex-wrap:wrap;gap:4px 16px}.multiples h3{margin:.6em 0 0;font-size:.9em}
.key span{display:inline-block;margin-right:1.2em;font-size:.9em}.key i{display:inline-block;width:14px;height:3px;margin-right:4px;vertical-align:middle}
.events{max-height:28em;overflow:auto;display:inline-block;border:1px solid #eee}
.kind-failure td:nth-child(2){color:#d62728;font-weight:600}
</style></head><body>
<script>
window.kscaleErrors = [];
window.addEventListener("error", function (e) {
  window.kscaleErrors.push(String(e.message));
  document.body.setAttribute("data-errors", window.kscaleErrors.join("; "));
});
</script>
<h1 id="title">{{.Title}}</h1>
{{if .Description}}<p>{{.Description}}</p>{{end}}
<h2>Summary</h2>
<table id="summary">{{range .Summary}}<tr data-id="{{.ID}}"><th>{{.Label}}</th><td>{{.Value}}</td></tr>
{{end}}</table>
<h2>Node groups</h2>
<table id="groups"><tr><th>group</th><th>min</th><th>max</th><th>peak nodes</th><th>final target</th><th>node-hours</th>{{if .HasCost}}<th>price / hour</th><th>cost</th>{{end}}</tr>
{{range .Groups}}<tr><td>{{.Name}}</td><td class="num">{{.Min}}</td><td class="num">{{.Max}}</td><td class="num">{{.Peak}}</td><td class="num">{{.Final}}</td><td class="num">{{printf "%.1f" .NodeHours}}</td>{{if $.HasCost}}<td class="num">{{printf "%.4g" .Price}}</td><td class="num">{{printf "%.2f" .Cost}}</td>{{end}}</tr>
{{end}}</table>
<p class="hint">Drag across a chart to zoom into a time range (all time charts follow), double-click to zoom out; hover to read values.
Vertical lines mark timeline events:</p>
<div class="key" id="marker-key"></div>
<h2>Registered nodes per group (stacked)</h2>
<div id="nodes-chart" class="chart"></div><div class="readout" id="nodes-chart-events"></div>
<h2>Target, registered and ready nodes, one chart per group (shaded: backed off)</h2>
<div id="group-charts" class="multiples"></div>
{{if .HasCost}}<h2>Cost per hour, per group (stacked; registered nodes × pricePerHour)</h2>
<div id="cost-chart" class="chart"></div><div class="readout" id="cost-chart-events"></div>{{end}}
<h2>Pending pods</h2>
<div id="pending-chart" class="chart"></div><div class="readout" id="pending-chart-events"></div>
<h2>CPU: requested by running pods versus allocatable on nodes</h2>
<div id="cpu-chart" class="chart"></div><div class="readout" id="cpu-chart-events"></div>
<h2>Memory: requested by running pods versus allocatable on nodes</h2>
<div id="memory-chart" class="chart"></div><div class="readout" id="memory-chart-events"></div>
<h2>Time pods waited for a node ({{.WaitsShown}} pods created or pending after the start)</h2>
<div id="wait-chart" class="chart"></div>
{{if .Worst}}<h3>Longest waits</h3>
<table id="worst"><tr><th>pod</th><th>workload</th><th>created</th><th>waited</th><th>state</th></tr>
{{range .Worst}}<tr><td>{{.Pod}}</td><td>{{.Workload}}</td><td class="num">{{.Created}}</td><td class="num">{{.Wait}}</td><td>{{if .Bound}}got a node{{else}}<span class="fail">still pending</span>{{end}}</td></tr>
{{end}}</table>{{end}}
<h2>Events ({{len .Events}} shown of {{.EventsTotal}} timeline entries; all are in --output json)</h2>
<div class="events"><table id="events"><tr><th>time</th><th>kind</th><th>type</th><th>details</th></tr>
{{range .Events}}<tr class="kind-{{.Kind}}"><td class="num">{{.At}}</td><td>{{.Kind}}</td><td>{{.Type}}</td><td>{{.Text}}</td></tr>
{{end}}</table></div>
{{if .Checks}}<h2>Checks</h2><table id="checks"><tr><th>line</th><th>expectation</th><th>result</th></tr>
{{range .Checks}}<tr><td class="num">{{.Line}}</td><td>{{.What}}</td><td>{{if .OK}}<span class="ok">ok</span>{{else}}<span class="fail">FAIL</span> {{.Detail}}{{end}}</td></tr>
{{end}}</table>{{end}}
<script>{{.UPlotJS}}</script>
<script type="application/json" id="kscale-data">{{.Data}}</script>
<script>` + reportScript + `</script>
</body></html>
`))
