package main

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLive200 runs the live harness at 200 nodes / 6,000 pods with
// kscale's node autoscaler (built from this checkout, default flags) and
// reports its figures. It needs `make testbin`; testenv fails with the
// command when the binaries are missing.
func BenchmarkLive200(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "kscale")
	build := exec.CommandContext(b.Context(), "go", "build", "-o", bin, "github.com/kscale/kscale/cmd/kscale")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building kscale: %v\n%s", err, out)
	}
	cfg, err := Preset("200")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Kscale, cfg.Idle, cfg.Interval = bin, 15*time.Second, 20*time.Second
	var rep *Report
	for b.Loop() {
		if rep, err = Run(b.Context(), cfg, b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
	if rep.Uncovered > 0 {
		b.Errorf("%d of %d pending pods got no increase", rep.Uncovered, rep.Pods)
	}
	b.ReportMetric(rep.UnschedulableToIncrease.Median, "unsched-to-increase-median-s")
	b.ReportMetric(rep.UnschedulableToIncrease.P99, "unsched-to-increase-p99-s")
	b.ReportMetric(rep.CreateToIncrease.Median, "create-to-increase-median-s")
	b.ReportMetric(rep.CreateToIncrease.P99, "create-to-increase-p99-s")
	b.ReportMetric(rep.BurstLoops.Seconds.P99, "burst-loop-p99-s")
	b.ReportMetric(rep.IdleLoops.Seconds.Median, "idle-loop-median-s")
	b.ReportMetric(rep.BurstLoops.CPUMillisPerLoop, "burst-cpu-ms/loop")
	b.ReportMetric(rep.BurstLoops.RequestsPerLoop, "burst-requests/loop")
	b.ReportMetric(rep.FirstLoopSeconds, "first-loop-s")
	b.ReportMetric(rep.RSSPeakMB, "rss-peak-MB")
	b.ReportMetric(rep.IncreasesPerBurst, "increases/burst")
}
