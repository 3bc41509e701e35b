package expander

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
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

// fakePodPrices prices pods by name; a name in fail cannot be priced.
type fakePodPrices struct {
	prices map[string]float64
	fail   map[string]bool
	// asked, when set, counts the calls.
	asked *int
}

func (f fakePodPrices) PodPrice(_ context.Context, pod *corev1.Pod) (float64, error) {
	if f.asked != nil {
		*f.asked++
	}
	if f.fail[pod.Name] {
		return 0, errors.New("cannot price " + pod.Name)
	}
	return f.prices[pod.Name], nil
}

// withPod is a priced option of one node whose only pod is named name.
func withPod(group, name string) Option {
	o := priced(group, 0.2, 1, 1, "2", 0)
	o.Pods[0] = o.Pods[0].DeepCopy()
	o.Pods[0].Name = name
	return o
}

func TestPriceWithCloudPodPrices(t *testing.T) {
	prices := map[string]float64{"big": 0.2, "small": 0.01, stabilizationPod.Name: 0.02}
	opts := []Option{withPod("a", "big"), withPod("b", "small")}
	tests := []struct {
		name string
		fail []string
		want []string
	}{
		// Equal nodes at equal prices: the reference prices see two equal
		// pods, the cloud's prices see that a's pod is worth more.
		{"the cloud's pod prices decide", nil, []string{"a"}},
		{"without the stabilization pod's price", []string{stabilizationPod.Name}, []string{"a"}},
		{"an option with a pod the cloud cannot price is left out", []string{"big"}, []string{"b"}},
		{"no option priced keeps all", []string{"big", "small"}, []string{"a", "b"}},
	}
	if got := groups(Price{}.BestOptions(t.Context(), opts)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("reference prices: got %v, want a tie", got)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakePodPrices{prices: prices, fail: map[string]bool{}}
			for _, n := range tt.fail {
				f.fail[n] = true
			}
			if got := groups(Price{Pods: f}.BestOptions(t.Context(), opts)); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
		})
	}
}

func TestPriceAsksNoPodPriceWithoutNodePrices(t *testing.T) {
	a, b := withPod("a", "big"), withPod("b", "small")
	a.PricePerHour, b.PricePerHour = 0, 0
	f := fakePodPrices{fail: map[string]bool{}, asked: new(int)}
	if got := groups(Price{Pods: f}.BestOptions(t.Context(), []Option{a, b})); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("got %v, want both kept", got)
	}
	if *f.asked != 0 {
		t.Errorf("%d pod prices asked, want none", *f.asked)
	}
}

func TestScoreWithCloudPrices(t *testing.T) {
	// One 2-CPU node at 0.2 in an empty cluster (unfitness 2, not damped
	// for one node) for a pod the cloud prices at 0.05, stabilization 0.02.
	o := withPod("a", "p")
	if got, want := score(o, 0.05, 0.02), 2*(0.2+0.02)/(0.05+0.02); math.Abs(got-want) > 1e-12 {
		t.Fatalf("score %v, want %v", got, want)
	}
}
