package live

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestSafeToAutoscale checks cluster_safe_to_autoscale: 1 only after a
// loop that succeeded and found the cluster within the unready limits.
func TestSafeToAutoscale(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		healthy bool
		want    float64
	}{
		{"ok and healthy", nil, true, 1},
		{"ok but too many unready nodes", nil, false, 0},
		{"failed", errors.New("cloud down"), true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := newRunnerMetrics(prometheus.NewRegistry(), false, ClusterLimits{})
			if err != nil {
				t.Fatal(err)
			}
			m.observeLoop(time.Unix(100, 0), time.Second, tt.err, tt.healthy)
			if got := testutil.ToFloat64(m.safe); got != tt.want {
				t.Errorf("cluster_safe_to_autoscale = %v, want %v", got, tt.want)
			}
		})
	}
}
