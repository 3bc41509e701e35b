package expander

import (
	"math"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func priced(group string, price float64, nodes, pods int, cpu string, cluster int) Option {
	o := opt(group, "", nodes, pods, cpu)
	o.PricePerHour, o.ClusterNodes = price, cluster
	return o
}

func TestPrice(t *testing.T) {
	gpu := priced("gpu", 0.1, 2, 4, "2", 0)
	gpu.Template.Status.Capacity[gpuResource] = resource.MustParse("1")
	tests := []struct {
		name string
		opts []Option
		want []string
	}{
		{"the cheaper of two equal groups", []Option{priced("a", 0.2, 2, 4, "2", 0), priced("b", 0.1, 2, 4, "2", 0)}, []string{"b"}},
		{"equal prices tie", []Option{priced("a", 0.1, 2, 4, "2", 0), priced("b", 0.1, 2, 4, "2", 0)}, []string{"a", "b"}},
		// One 8-CPU node at 0.35 is cheaper than two 2-CPU nodes at 0.2
		// each, but a small cluster prefers 1-CPU nodes: unfitness 8 vs 2.
		{"a small cluster prefers the small node", []Option{priced("big", 0.35, 1, 4, "8", 0), priced("small", 0.2, 2, 4, "2", 0)}, []string{"small"}},
		// With 60 nodes the preferred size is 8 CPUs.
		{"a large cluster prefers the large node", []Option{priced("big", 0.35, 1, 4, "8", 60), priced("small", 0.2, 2, 4, "2", 60)}, []string{"big"}},
		{"a GPU node carries a large penalty", []Option{gpu, priced("plain", 0.5, 2, 4, "2", 0)}, []string{"plain"}},
		{"options without a price are left out", []Option{priced("free", 0, 2, 4, "2", 0), priced("b", 0.3, 2, 4, "2", 0)}, []string{"b"}},
		{"without any price all are kept", []Option{priced("a", 0, 1, 1, "2", 0), priced("b", 0, 1, 1, "2", 0)}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := groups(Price{}.BestOptions(t.Context(), tt.opts)); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
		})
	}
}

func TestPriceScore(t *testing.T) {
	// Two 2-CPU nodes at $0.2 for four pods of 1 CPU and 1 GiB in an
	// empty cluster: stabilization 0.5·0.024 + (500/1024)·0.006, pods
	// 4·(0.024+0.006), unfitness 2 damped by tanh(1/15).
	o := priced("a", 0.2, 2, 4, "2", 0)
	s := 0.5*0.024 + 500.0/1024*0.006
	want := ((2-1)*(1-math.Tanh(1.0/15)) + 1) * (0.4 + s) / (4*0.030 + s)
	if got := PriceScore(o); math.Abs(got-want) > 1e-12 {
		t.Fatalf("score %v, want %v", got, want)
	}
}
