package expander

import (
	"context"
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// Option is one way to scale up: a group, how many nodes, and the pending
// pods they would take.
type Option struct {
	// Group is the node group id.
	Group string
	// NodeCount is how many nodes to add.
	NodeCount int
	// Pods are the pending pods the new nodes would run.
	Pods []*corev1.Pod
	// Template is the group's template node.
	Template *corev1.Node
	// PricePerHour is what one of the group's new nodes costs per hour
	// (the provider's template price); 0 when unknown.
	PricePerHour float64
	// ClusterNodes is how many nodes the cluster has; the price expander
	// prefers node sizes that suit it.
	ClusterNodes int
}

// Filter keeps the best of the options; it never returns an empty list
// for a non-empty input.
type Filter interface {
	// BestOptions returns the preferred subset of options.
	// ctx bounds a filter that asks a server (grpc).
	BestOptions(ctx context.Context, opts []Option) []Option
}

// Chain applies filters in order and picks one of what is left at random.
type Chain struct {
	filters []Filter
	rng     *rand.Rand
}

// Sources feed the expanders that read outside state.
type Sources struct {
	// Priorities feeds the priority expander; needed only when it is used.
	Priorities PrioritySource
	// GRPC is the filter of the grpc expander (grpcexpander.Filter);
	// needed only when it is used.
	GRPC Filter
	// PodPrices, when set, prices pods for the price expander (the
	// cloud's pod prices); without it pods are valued at reference prices.
	PodPrices PodPricer
}

// NewChain builds the chain named by --expander from the sources the
// expanders need; rng breaks ties.
func NewChain(names []string, src Sources, rng *rand.Rand) (*Chain, error) {
	c := &Chain{rng: rng}
	for _, n := range names {
		switch n {
		case options.ExpanderRandom:
			// Random is the tie-breaker every chain ends with.
		case options.ExpanderMostPods:
			c.filters = append(c.filters, MostPods{})
		case options.ExpanderLeastWaste:
			c.filters = append(c.filters, LeastWaste{})
		case options.ExpanderPrice:
			c.filters = append(c.filters, Price{Pods: src.PodPrices})
		case options.ExpanderHighestPriority:
			c.filters = append(c.filters, HighestPriority{})
		case options.ExpanderPriority:
			if src.Priorities == nil {
				return nil, fmt.Errorf("building expander %q: no priority source", n)
			}
			c.filters = append(c.filters, &Priority{Source: src.Priorities})
		case options.ExpanderGRPC:
			if src.GRPC == nil {
				return nil, fmt.Errorf("building expander %q: no gRPC expander client", n)
			}
			c.filters = append(c.filters, src.GRPC)
		default:
			return nil, fmt.Errorf("building expander: unknown expander %q", n)
		}
	}
	return c, nil
}

// Best returns the chosen option, or false when opts is empty.
func (c *Chain) Best(ctx context.Context, opts []Option) (Option, bool) {
	if len(opts) == 0 {
		return Option{}, false
	}
	for _, f := range c.filters {
		if len(opts) == 1 {
			break
		}
		if best := f.BestOptions(ctx, opts); len(best) > 0 {
			opts = best
		}
	}
	return opts[c.rng.IntN(len(opts))], true
}

// MostPods keeps the options that schedule the most pods.
type MostPods struct{}

// BestOptions keeps the options with the most pods.
func (MostPods) BestOptions(_ context.Context, opts []Option) []Option {
	return keepMax(opts, func(o Option) float64 { return float64(len(o.Pods)) })
}

// LeastWaste keeps the options that leave the least CPU and memory unused
// on the new nodes (sum of the two unused fractions).
type LeastWaste struct{}

// BestOptions keeps the least wasteful options.
func (LeastWaste) BestOptions(_ context.Context, opts []Option) []Option {
	return keepMax(opts, func(o Option) float64 { return -waste(o) })
}

func waste(o Option) float64 {
	if o.Template == nil || o.NodeCount == 0 {
		return 2
	}
	var cpu, mem int64
	for _, p := range o.Pods {
		for _, c := range p.Spec.Containers {
			cpu += c.Resources.Requests.Cpu().MilliValue()
			mem += c.Resources.Requests.Memory().Value()
		}
	}
	alloc := o.Template.Status.Allocatable
	w := 0.0
	if a := alloc.Cpu().MilliValue() * int64(o.NodeCount); a > 0 {
		w += float64(a-cpu) / float64(a)
	}
	if a := alloc.Memory().Value() * int64(o.NodeCount); a > 0 {
		w += float64(a-mem) / float64(a)
	}
	return w
}

// keepMax keeps the options whose score is the maximum.
func keepMax[T any](opts []T, score func(T) float64) []T {
	var best []T
	bestScore := 0.0
	for i, o := range opts {
		s := score(o)
		switch {
		case i == 0 || s > bestScore+1e-9:
			best, bestScore = []T{o}, s
		case s >= bestScore-1e-9:
			best = append(best, o)
		}
	}
	return best
}
