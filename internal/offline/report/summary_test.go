package report

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/offline"
)

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 10 * time.Second: "10s", 2 * time.Minute: "2m", time.Hour: "1h",
		90 * time.Minute: "1h30m", 2*time.Minute + 12*time.Second: "2m12s", time.Hour + 5*time.Second: "1h0m5s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestWaitHistogramAndSummary(t *testing.T) {
	waits := []offline.PodWait{ // longest first, as the world sorts them
		{Pod: "a", Wait: 3 * time.Hour},
		{Pod: "b", Wait: 7 * time.Hour, Bound: true},
		{Pod: "c", Wait: 2 * time.Minute, Bound: true},
		{Pod: "d", Wait: 90 * time.Second, Bound: true},
		{Pod: "e", Wait: 0, Bound: true},
	}
	h := waitHistogramOf(waits)
	if len(h.Labels) != len(h.Counts) {
		t.Fatalf("%d labels for %d buckets", len(h.Labels), len(h.Counts))
	}
	want := map[string]int{"0s": 1, "≤2m": 2, ">6h": 1, "still pending": 1}
	for i, l := range h.Labels {
		if h.Counts[i] != want[l] {
			t.Errorf("bucket %s: %d pods, want %d", l, h.Counts[i], want[l])
		}
	}
	got := waitSummary(waits)
	wantRows := []summaryRow{
		{"Pods that got a node after the start / still pending at the end", "4 / 1", "pods"},
		{"Wait for a node (median / p95 / longest)", "1m30s / 2m / 7h", "wait"},
	}
	if !reflect.DeepEqual(got, wantRows) {
		t.Errorf("waitSummary = %v, want %v", got, wantRows)
	}
}

func TestGroupRowsCost(t *testing.T) {
	res := &offline.Result{GroupOrder: []string{"a", "b"}, Samples: []offline.Sample{
		{At: 0, Groups: map[string]offline.GroupSample{"a": {Nodes: 2}, "b": {Nodes: 1}}},
		{At: 30 * time.Minute, Groups: map[string]offline.GroupSample{"a": {Nodes: 4}, "b": {Nodes: 1}}},
		{At: time.Hour, Groups: map[string]offline.GroupSample{"a": {Nodes: 0}, "b": {Nodes: 1}}},
	}}
	rows, hasCost := groupRows(res, map[string]float64{"a": 0.5})
	if !hasCost || len(rows) != 2 {
		t.Fatalf("rows %v, hasCost %v", rows, hasCost)
	}
	if rows[0].NodeHours != 3 || rows[0].Cost != 1.5 || rows[0].Peak != 4 {
		t.Errorf("group a: %+v, want 3 node-hours, cost 1.5, peak 4", rows[0])
	}
	if rows[1].NodeHours != 1 || rows[1].Cost != 0 {
		t.Errorf("group b: %+v, want 1 node-hour, no cost", rows[1])
	}
}

// TestPageCarriesChartScript: chart.js reaches the page as the last
// script element, unchanged but for its comments, which html/template
// drops from script text.
func TestPageCarriesChartScript(t *testing.T) {
	scn, res := simulateFile(t, reportScenario)
	var b strings.Builder
	if err := WriteHTML(&b, scn, res, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	start := strings.LastIndex(page, "<script>\n")
	end := strings.LastIndex(page, "</script>")
	if start < 0 || end < start {
		t.Fatal("the page has no final script element")
	}
	got := strings.Split(page[start+len("<script>\n"):end], "\n")
	want := strings.Split(chartJS, "\n")
	if len(got) != len(want) {
		t.Fatalf("the page's script has %d lines, chart.js %d", len(got), len(want))
	}
	for i, line := range want {
		if c := strings.Index(line, "//"); c >= 0 && strings.TrimSpace(line[:c]) == "" {
			line = line[:c]
		}
		if got[i] != line {
			t.Fatalf("line %d of the page's script is %q, chart.js has %q", i+1, got[i], line)
		}
	}
}
