package expander

import (
	"context"
	"math"

	corev1 "k8s.io/api/core/v1"
)

// Price keeps the cheapest options, scored as upstream's price expander
// scores them: the price of the new nodes over the value of the pods they
// take (each side plus the value of a small stabilization pod), times how
// far the node's size is from a preferred size for the cluster; the size
// penalty fades as the option adds more nodes, and a GPU node always
// carries a fixed large penalty. Options without a price (the provider
// does not know one) are left out; when none has a price the filter keeps
// them all.
//
// Differences from upstream, whose pod prices come from the cloud's
// pricing model (GCE's per-resource prices): kscale values a pod at
// reference prices per requested CPU core and GiB of memory
// (PodCPUPricePerHour, PodMemoryPricePerHour); node groups kscale would
// create do not exist, so upstream's penalty for them never applies.
type Price struct{}

// Reference prices of a pod's requests, US dollars per hour: on-demand
// m5 prices split between CPU and memory (m5.large, 2 cores and 8 GiB,
// $0.096 in us-east-1).
const (
	PodCPUPricePerHour    = 0.024
	PodMemoryPricePerHour = 0.006
)

// Upstream's constants: the stabilization pod (0.5 CPU, 500 MiB), the
// unfitness of GPU nodes, and the size of the preferred node by cluster
// size.
const (
	stabilizationCPU    = 0.5
	stabilizationMemGiB = 500.0 / 1024
	gpuUnfitness        = 1000.0
)

// BestOptions keeps the options with the lowest score.
func (Price) BestOptions(_ context.Context, opts []Option) []Option {
	var priced []Option
	for _, o := range opts {
		if o.PricePerHour > 0 && o.Template != nil && o.NodeCount > 0 {
			priced = append(priced, o)
		}
	}
	if len(priced) == 0 {
		return opts
	}
	return keepMax(priced, func(o Option) float64 { return -PriceScore(o) })
}

// PriceScore is an option's price score; lower is better.
func PriceScore(o Option) float64 {
	stabilization := stabilizationCPU*PodCPUPricePerHour + stabilizationMemGiB*PodMemoryPricePerHour
	pods := 0.0
	for _, p := range o.Pods {
		pods += podPrice(p)
	}
	ratio := (o.PricePerHour*float64(o.NodeCount) + stabilization) / (pods + stabilization)
	unfitness := (nodeUnfitness(preferredCPU(o.ClusterNodes), o.Template)-1)*(1-math.Tanh(float64(o.NodeCount-1)/15)) + 1
	if gpu := o.Template.Status.Capacity[gpuResource]; !gpu.IsZero() {
		unfitness = gpuUnfitness
	}
	return unfitness * ratio
}

// gpuResource is the GPU resource whose presence marks a GPU node.
const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// podPrice values a pod's requests at the reference prices.
func podPrice(p *corev1.Pod) float64 {
	var cpu, mem int64
	for _, c := range p.Spec.Containers {
		cpu += c.Resources.Requests.Cpu().MilliValue()
		mem += c.Resources.Requests.Memory().Value()
	}
	return float64(cpu)/1000*PodCPUPricePerHour + float64(mem)/(1<<30)*PodMemoryPricePerHour
}

// preferredCPU is the CPU count of the node size upstream prefers for a
// cluster of n nodes.
func preferredCPU(n int) float64 {
	switch {
	case n <= 2:
		return 1
	case n <= 6:
		return 2
	case n <= 20:
		return 4
	case n <= 60:
		return 8
	case n <= 200:
		return 16
	}
	return 32
}

// nodeUnfitness is how many times larger or smaller the node's CPU is than
// the preferred one (1 = the preferred size).
func nodeUnfitness(preferred float64, n *corev1.Node) float64 {
	cpu := float64(n.Status.Capacity.Cpu().MilliValue()) / 1000
	if cpu <= 0 {
		return 1
	}
	return math.Max(preferred/cpu, cpu/preferred)
}
