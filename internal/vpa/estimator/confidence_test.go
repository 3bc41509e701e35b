package estimator

import (
	"math"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/vpa/model"
)

// TestConfidenceAgainstInterval checks that the confidence measures the
// history span and the sample count against the configured
// --confidence-interval-*, as upstream's getConfidence
// (pkg/recommender/logic/estimator.go, vertical-pod-autoscaler v1.7.3)
// does, not against a fixed day.
func TestConfidenceAgainstInterval(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		span     time.Duration
		samples  int
		interval time.Duration
		want     float64
	}{
		{"18m interval, 9 samples over 16m: samples decide", 16 * time.Minute, 9, 18 * time.Minute, 0.5},
		{"18m interval, 36 samples over 9m: span decides", 9 * time.Minute, 36, 18 * time.Minute, 0.5},
		{"24h interval, one sample a minute for 2 days", 48 * time.Hour, 2 * 1440, 24 * time.Hour, 2},
		{"1h interval, 30 samples over 2h", 2 * time.Hour, 30, time.Hour, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &model.AggregateContainerState{FirstSampleStart: t0, LastSampleStart: t0.Add(tc.span), TotalSamplesCount: tc.samples}
			if got := confidence(s, tc.interval); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("confidence = %v, want %v", got, tc.want)
			}
		})
	}
}
