package model

import (
	"encoding/json"
	"math"
	"testing"

	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// FuzzLoadCheckpoint feeds arbitrary checkpoint status JSON to the loader:
// it must reject or load without panicking, and a loaded aggregate must
// give finite, non-negative percentiles.
func FuzzLoadCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":"v3","cpuHistogram":{"referenceTimestamp":"2026-03-01T00:00:00Z","bucketWeights":{"25":10000,"26":5},"totalWeight":3.5},"memoryHistogram":{"bucketWeights":{"19":10000},"totalWeight":2},"totalSamplesCount":1440}`))
	f.Add([]byte(`{"version":"v2"}`))
	f.Add([]byte(`{"version":"v3","cpuHistogram":{"bucketWeights":{"176":1},"totalWeight":1}}`))
	f.Add([]byte(`{"version":"v3","memoryHistogram":{"bucketWeights":{"0":4294967295,"175":1},"totalWeight":1e300}}`))
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, data []byte) {
		var st vpav1.VerticalPodAutoscalerCheckpointStatus
		if err := json.Unmarshal(data, &st); err != nil {
			return
		}
		a, err := LoadAggregateFromCheckpoint(cfg, &st, t0)
		if err != nil {
			return
		}
		for _, h := range []*DecayingHistogram{a.CPU, a.Memory} {
			for _, p := range []float64{0, 0.5, 0.9, 0.95, 1} {
				v := h.Percentile(p)
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("percentile %v = %v", p, v)
				}
			}
		}
		back := a.SaveToCheckpoint(t0)
		if back.Version != CheckpointVersion {
			t.Fatalf("saved version %q", back.Version)
		}
	})
}
