package whatif

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkSevenDays runs three configurations (the example's HVPA and
// HPA+VPA, and an HPA on CPU) on a
// 7-day trace at 30 s resolution (the target: < 5 s, < 200 MB);
// sys-MB is the memory the process took from the OS, an upper bound of
// the peak.
func BenchmarkSevenDays(b *testing.B) {
	f := readExample(b)
	f.Duration.Duration = 7 * 24 * time.Hour
	hpaCPU := f.Configurations[1]
	hpaCPU.Name, hpaCPU.VPA = "hpa-cpu", nil
	h := *hpaCPU.HPA
	h.Metric, h.Target = MetricCPU, 80
	hpaCPU.HPA = &h
	f.Configurations = []Configuration{f.Configurations[0], f.Configurations[1], hpaCPU}
	b.ReportAllocs()
	for b.Loop() {
		loads, err := Loads(f)
		if err != nil {
			b.Fatal(err)
		}
		if res := Run(f, loads); len(res) != 3 {
			b.Fatal("want 3 results")
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// Sys bounds the peak: all memory the process got from the OS.
	b.ReportMetric(float64(m.Sys)/(1<<20), "sys-MB")
}
