package report

import (
	_ "embed" // the page and its script are files beside this one
	"encoding/json"
	"fmt"
	"html/template"
	"io"

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

// pageHTML is the report page. Everything from the scenario or the run
// reaches it either through the template's escaping or as JSON in a
// non-executable script element that the page's script parses; the
// charts are drawn by the embedded uPlot.
//
//go:embed page.html
var pageHTML string

// chartJS draws the report's charts with uPlot from the JSON in the
// kscale-data element. It writes what it drew into data attributes (the
// browser test reads them) and, when the page's address ends in #probe,
// moves the cursor of every time chart to the last sample so the legends
// show the final values.
//
//go:embed chart.js
var chartJS string

// pageTemplate is page.html with chart.js as its "chart.js" template;
// the script is static text, copied into the page as it is.
var pageTemplate = template.Must(template.Must(template.New("report").Parse(pageHTML)).New("chart.js").Parse(chartJS)).Lookup("report")

// page feeds the page template: the summary and tables are rendered by
// the template (escaped), the charts by script from Data, which is
// embedded as JSON in a non-executable script element.
type page struct {
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

// WriteHTML renders the HTML report of a scenario run and its checks.
func WriteHTML(w io.Writer, scn *scenario.Scenario, res *offline.Result, checks []offline.Check) error {
	p, err := buildPage(scn, res, checks)
	if err != nil {
		return err
	}
	if err := pageTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("rendering the report: %w", err)
	}
	return nil
}

func buildPage(scn *scenario.Scenario, res *offline.Result, checks []offline.Check) (page, error) {
	prices := groupPrices(scn)
	data := chartSeries(scn, res, prices)
	data.Markers = markers(res.Events)
	data.Waits = waitHistogramOf(res.Waits)
	js, err := json.Marshal(data) // escapes <, > and & so the data cannot end its script element
	if err != nil {
		return page{}, fmt.Errorf("encoding the chart data: %w", err)
	}
	p := page{Title: scn.Name, Description: scn.Description, Checks: checks, Data: template.JS(js),
		UPlotJS: template.JS(uplot.JS), UPlotCSS: template.CSS(uplot.CSS), EventsTotal: len(res.Events)}
	p.Groups, p.HasCost = groupRows(res, prices)
	p.Summary = summarize(scn, res, checks, p.Groups, p.HasCost)
	p.Worst = res.Waits[:min(len(res.Waits), worstPods)]
	p.WaitsShown = len(res.Waits)
	for _, e := range res.Events {
		if len(p.Events) == maxEventRows {
			break
		}
		if kind := markerKind(e.Type); kind != "" {
			p.Events = append(p.Events, eventRow{At: e.At.String(), Kind: kind, Type: e.Type, Text: EventText(e)})
		}
	}
	return p, nil
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
