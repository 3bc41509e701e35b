package updater

import (
	"testing"
	"time"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// BenchmarkAssess is the updater's per-pod decision after processing:
// assessment, the update rule and the eviction requirements.
func BenchmarkAssess(b *testing.B) {
	pod := fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi"), started(13*time.Hour), oomKilled(time.Minute, time.Minute))
	processed := recommendation.Process(pod, scenario7, nil, recommendation.Limits{})
	b.ReportAllocs()
	for b.Loop() {
		p := Assess(pod, processed, now, defaultThresholds)
		if !p.ShouldUpdate(defaultThresholds) || !PassesEvictionRequirements(pod, processed, nil) {
			b.Fatal("pod must be updated")
		}
	}
}
