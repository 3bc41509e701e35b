package report

import (
	"context"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

const reportScenario = "testdata/report-capacity.yaml"

// TestReportRendersInChromium opens the report of a known scenario in
// headless Chromium: its scripts run without errors, markup in the
// scenario's name and in cloud error messages stays text, every chart is
// drawn, and the legends, moved to the last sample, show the run's final
// figures. A screenshot goes to the test's artifact directory.
func TestReportRendersInChromium(t *testing.T) {
	chromium := lookChromium(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	scn, res := simulateFile(t, reportScenario)
	writeReport(t, report, scn, res)
	dom := runChromium(t, chromium, dir, "--dump-dom", "file://"+report+"#probe")
	if !strings.Contains(dom, `data-script="ok"`) {
		t.Fatalf("report script did not finish; DOM starts %q", dom[:min(len(dom), 500)])
	}
	if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
		t.Fatalf("script errors: %s", m[1])
	}
	if strings.Contains(dom, "<script>window.injected") || !strings.Contains(dom, "&lt;script&gt;window.injected=1") {
		t.Error("the scenario name's markup is not escaped")
	}
	if !strings.Contains(dom, "no spot capacity &lt;/script&gt;&lt;script&gt;window.injected=2") {
		t.Error("the cloud error message's markup is not shown as text in the event table")
	}
	if got := attr(t, dom, "<body", "data-charts"); got != "10" {
		t.Errorf("charts drawn: %s, want 10 (nodes, 4 groups, cost, pending, cpu, memory, waits)", got)
	}
	last := res.Samples[len(res.Samples)-1]
	nodes := []string{"time=2h"}
	total := 0
	for _, g := range res.GroupOrder {
		nodes = append(nodes, fmt.Sprintf("%s=%d", g, last.Groups[g].Nodes))
		total += last.Groups[g].Nodes
	}
	nodes = append(nodes, fmt.Sprintf("total=%d", total))
	for id, want := range map[string]string{
		"nodes-chart":   strings.Join(nodes, "|"),
		"pending-chart": fmt.Sprintf("time=2h|pending pods=%d", last.Pending),
		"cpu-chart": fmt.Sprintf("time=2h|allocatable (cores)=%g|requested (cores)=%g|requested / allocatable=%.0f%%",
			float64(last.Allocatable.CPU)/1000, float64(last.Requested.CPU)/1000, 100*float64(last.Requested.CPU)/float64(last.Allocatable.CPU)),
		"group-chart-1": fmt.Sprintf("time=2h|target=%d|registered=%d|ready=%d", last.Groups["general-b"].Target,
			last.Groups["general-b"].Nodes, last.Groups["general-b"].Ready),
	} {
		if got := html.UnescapeString(attr(t, dom, `id="`+id+`"`, "data-legend")); got != want {
			t.Errorf("%s legend at the end: %q, want %q", id, got, want)
		}
	}
	if got, want := attr(t, dom, `id="wait-chart"`, "data-total"), fmt.Sprint(len(res.Waits)); got != want {
		t.Errorf("wait histogram counts %s pods, want %s", got, want)
	}
	for _, want := range []string{"<td>BackoffStarted</td>", "<td>ScaleUpFailed</td>", `<tr data-id="cost">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	shot := filepath.Join(t.ArtifactDir(), "report.png")
	runChromium(t, chromium, dir, "--hide-scrollbars", "--window-size=1280,4400", "--screenshot="+shot, "file://"+report)
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

func lookChromium(t *testing.T) string {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found: run `make deps` (hack/install-test-deps.sh) or apt-get install chromium")
	}
	return chromium
}

// runChromium runs headless Chromium with its profile under dir and
// returns its standard output.
func runChromium(t *testing.T, chromium, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	out, err := exec.CommandContext(ctx, chromium, args...).Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", args, err)
	}
	return string(out)
}

// attr returns the attribute of the first element whose tag contains
// marker.
func attr(t *testing.T, dom, marker, name string) string {
	t.Helper()
	i := strings.Index(dom, marker)
	if i < 0 {
		t.Fatalf("no element with %s", marker)
	}
	tag := dom[i:]
	tag = tag[:strings.IndexByte(tag, '>')]
	m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		t.Fatalf("element with %s has no %s", marker, name)
	}
	return m[1]
}

// writeReport renders the run's report to path as simulate --report does.
func writeReport(t *testing.T, path string, scn *scenario.Scenario, res *offline.Result) {
	t.Helper()
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	if err := f.Commit(func(w io.Writer) error { return WriteHTML(w, scn, res, res.Checks(scn)) }); err != nil {
		t.Fatal(err)
	}
}

// simulateFile runs a scenario file in-process.
func simulateFile(t *testing.T, path string) (*scenario.Scenario, *offline.Result) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	w, err := offline.New(scn)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return scn, res
}
