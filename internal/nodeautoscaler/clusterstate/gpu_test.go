package clusterstate

import (
	"testing"
	"time"

	"github.com/kscale/kscale/internal/fixture"
)

func TestGPULabelReadiness(t *testing.T) {
	const label = "cluster-api/accelerator"
	labelled := fixture.WithNodeLabels(map[string]string{label: "a100"})
	tests := []struct {
		name  string
		rules ReadinessRules
		opts  []fixture.NodeOption
		age   time.Duration
		want  Bucket
	}{
		{name: "GPU node before its device plugin is starting", rules: ReadinessRules{GPULabel: label, MaxNodeStartupTime: 15 * time.Minute},
			opts: []fixture.NodeOption{labelled}, age: time.Minute, want: NotStarted},
		{name: "and long not started after the startup time", rules: ReadinessRules{GPULabel: label, MaxNodeStartupTime: 15 * time.Minute},
			opts: []fixture.NodeOption{labelled}, age: time.Hour, want: LongNotStarted},
		{name: "GPU node with allocatable GPUs is ready", rules: ReadinessRules{GPULabel: label},
			opts: []fixture.NodeOption{labelled, fixture.WithCapacity("nvidia.com/gpu", "1")}, want: Ready},
		{name: "AMD GPUs count too", rules: ReadinessRules{GPULabel: label},
			opts: []fixture.NodeOption{labelled, fixture.WithCapacity("amd.com/gpu", "2")}, want: Ready},
		{name: "no label, no GPU: ready", rules: ReadinessRules{GPULabel: label}, want: Ready},
		{name: "a provider without a GPU label ignores the label", rules: ReadinessRules{}, opts: []fixture.NodeOption{labelled}, want: Ready},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := readyNode("n", t0, nil...)
			for _, o := range tc.opts {
				o(n)
			}
			if got := tc.rules.Bucket(n, t0.Add(tc.age)); got != tc.want {
				t.Errorf("bucket %v, want %v", got, tc.want)
			}
		})
	}
}
