package actuation

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

func TestMetricsScaledDownReasonsAndGPUs(t *testing.T) {
	gpuNode := fixture.Node("gpu", fixture.WithCapacity("nvidia.com/gpu", "1"))
	gpuNode.Labels["cluster-api/accelerator"] = "a100"
	cases := []struct {
		name             string
		kind             Kind
		cand             scaledown.Candidate
		reason, res, typ string
	}{
		{"empty", KindEmpty, scaledown.Candidate{Node: fixture.Node("a"), Ready: true}, "empty", "", ""},
		{"drained", KindNonEmpty, scaledown.Candidate{Node: fixture.Node("b"), Ready: true}, "underutilized", "", ""},
		{"unready", KindEmpty, scaledown.Candidate{Node: fixture.Node("c"), Ready: false}, "unready", "", ""},
		{"gpu", KindNonEmpty, scaledown.Candidate{Node: gpuNode, Ready: true}, "underutilized", "nvidia.com/gpu", "a100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			now := time.Unix(100, 0)
			m.observe(Outcome{Node: c.cand.Node.Name, Kind: c.kind, Started: now, Ended: now}, c.cand)
			if got := testutil.ToFloat64(m.deleted.WithLabelValues(c.reason, c.res, c.typ, "")); got != 1 {
				t.Errorf("scaled_down_nodes_total{%s,%s,%s} = %v, want 1", c.reason, c.res, c.typ, got)
			}
			wantGPU := 0
			if c.typ != "" {
				wantGPU = 1
				if got := testutil.ToFloat64(m.gpu.WithLabelValues(c.reason, c.res, c.typ)); got != 1 {
					t.Errorf("scaled_down_gpu_nodes_total = %v, want 1", got)
				}
			}
			if got := testutil.CollectAndCount(m.gpu); got != wantGPU {
				t.Errorf("scaled_down_gpu_nodes_total series %d, want %d", got, wantGPU)
			}
		})
	}
}
