package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReportRendersInChromium opens a report in headless Chromium and checks
// that its scripts ran without errors and that every chart drew something.
func TestReportRendersInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found: run `make deps` (hack/install-test-deps.sh) or apt-get install chromium")
	}
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	if code, out, errOut := runCLI(t, "simulate", "--output", "none", "--report", report, "../../test/scenarios/s1-priority-cascade.yaml"); code != 0 {
		t.Fatalf("simulate exit %d: %s%s", code, out, errOut)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-extensions", "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+report)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	if !strings.Contains(dom, `data-script="ok"`) {
		t.Fatalf("report script did not finish; DOM starts %q", dom[:min(len(dom), 500)])
	}
	if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
		t.Fatalf("script errors: %s", m[1])
	}
	for _, id := range []string{"nodes-chart", "pending-chart", "backoff-chart"} {
		m := regexp.MustCompile(`id="` + id + `"[^>]*data-elements="(\d+)"`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s has no element count", id)
		}
		if n, _ := strconv.Atoi(m[1]); n == 0 {
			t.Fatalf("%s drew nothing", id)
		}
	}
	if !strings.Contains(dom, "<td>BackoffStarted</td>") {
		t.Fatal("action list lacks the backoff")
	}
}
