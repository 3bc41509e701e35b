package expander

import (
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func opt(group, priority string, nodes, pods int, cpu string) Option {
	labels := map[string]string{}
	if priority != "" {
		labels[PriorityLabel] = priority
	}
	t := fixture.Node("t-"+group, fixture.WithNodeLabels(labels), fixture.WithCapacity(corev1.ResourceCPU, cpu))
	o := Option{Group: group, NodeCount: nodes, Template: t}
	for range pods {
		o.Pods = append(o.Pods, fixture.Pod("p", fixture.WithRequests("cpu", "1", "memory", "1Gi")))
	}
	return o
}

func groups(opts []Option) []string {
	var out []string
	for _, o := range opts {
		out = append(out, o.Group)
	}
	slices.Sort(out)
	return out
}

func TestFilters(t *testing.T) {
	prios, err := ParsePriorities("10:\n  - ^ng-a$\n50:\n  - ^ng-b.*\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter Filter
		opts   []Option
		want   []string
	}{
		{"highest-priority 300 beats 200 beats 100", HighestPriority{},
			[]Option{opt("a", "200", 1, 1, "4"), opt("b", "300", 1, 1, "4"), opt("c", "100", 1, 1, "4")}, []string{"b"}},
		{"highest-priority ties kept", HighestPriority{},
			[]Option{opt("a", "300", 1, 1, "4"), opt("b", "300", 1, 1, "4")}, []string{"a", "b"}},
		{"unlabeled is 0 and loses to 100", HighestPriority{},
			[]Option{opt("a", "", 1, 1, "4"), opt("b", "100", 1, 1, "4")}, []string{"b"}},
		{"unlabeled ties with 0", HighestPriority{},
			[]Option{opt("a", "", 1, 1, "4"), opt("b", "0", 1, 1, "4")}, []string{"a", "b"}},
		{"unparsable is 0", HighestPriority{},
			[]Option{opt("a", "high", 1, 1, "4"), opt("b", "1", 1, 1, "4")}, []string{"b"}},
		{"most-pods", MostPods{},
			[]Option{opt("a", "", 1, 3, "4"), opt("b", "", 1, 5, "4"), opt("c", "", 2, 5, "4")}, []string{"b", "c"}},
		{"least-waste prefers the snug node", LeastWaste{},
			[]Option{opt("a", "", 1, 2, "8"), opt("b", "", 1, 2, "2")}, []string{"b"}},
		{"priority configmap", &Priority{Source: func() (Priorities, error) { return prios, nil }},
			[]Option{opt("ng-a", "", 1, 1, "4"), opt("ng-b1", "", 1, 1, "4"), opt("ng-c", "", 1, 1, "4")}, []string{"ng-b1"}},
		{"priority with no match keeps all", &Priority{Source: func() (Priorities, error) { return prios, nil }},
			[]Option{opt("x", "", 1, 1, "4"), opt("y", "", 1, 1, "4")}, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := groups(tt.filter.BestOptions(t.Context(), tt.opts)); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v want %v", got, tt.want)
			}
		})
	}
}

func TestChain(t *testing.T) {
	c, err := NewChain([]string{"highest-priority", "least-waste"}, Sources{}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	best, ok := c.Best(t.Context(), []Option{opt("a", "100", 1, 2, "8"), opt("b", "100", 1, 2, "2"), opt("c", "50", 1, 2, "2")})
	if !ok || best.Group != "b" {
		t.Fatalf("best %v, want b", best.Group)
	}
	if _, ok := c.Best(t.Context(), nil); ok {
		t.Fatal("empty options returned a choice")
	}
	seen := map[string]bool{}
	r, _ := NewChain([]string{"random"}, Sources{}, rand.New(rand.NewPCG(1, 2)))
	for range 50 {
		b, _ := r.Best(t.Context(), []Option{opt("a", "", 1, 1, "4"), opt("b", "", 1, 1, "4")})
		seen[b.Group] = true
	}
	if len(seen) != 2 {
		t.Fatalf("random chose only %v", seen)
	}
	if _, err := NewChain([]string{"priority"}, Sources{}, nil); err == nil {
		t.Fatal("priority without a source accepted")
	}
	if _, err := ParsePriorities("10: ['(']"); err == nil {
		t.Fatal("bad regexp accepted")
	}
}

func TestChainWithPrice(t *testing.T) {
	c, err := NewChain([]string{"price"}, Sources{}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	a, b := opt("a", "", 2, 4, "2"), opt("b", "", 2, 4, "2")
	a.PricePerHour, b.PricePerHour = 0.3, 0.1
	if best, ok := c.Best(t.Context(), []Option{a, b}); !ok || best.Group != "b" {
		t.Fatalf("best %v, want the cheaper b", best.Group)
	}
}
