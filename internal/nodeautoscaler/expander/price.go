package expander

import (
	"context"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
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
// Pods are valued by Pods, the cloud's own pod prices, when it is set
// (externalgrpc's PricingPodPrice), as upstream's pricing model values
// them; then, as upstream, an option with a pod the cloud cannot price is
// left out, and the stabilization pod counts for nothing when the cloud
// cannot price it. Without Pods kscale values a pod at reference prices
// per requested CPU core and GiB of memory (PodCPUPricePerHour,
// PodMemoryPricePerHour), where upstream uses the cloud's pricing model
// (GCE's per-resource prices). Node groups kscale would create do not
// exist, so upstream's penalty for them never applies.
type Price struct {
	// Pods prices pods; nil values them at the reference prices.
	Pods PodPricer
}

// PodPricer is a cloud's price of running a pod, per hour (upstream's
// PricingModel.PodPrice): the externalgrpc provider asks its server.
type PodPricer interface {
	// PodPrice returns the pod's price per hour, or an error when the
	// cloud cannot price it.
	PodPrice(ctx context.Context, pod *corev1.Pod) (float64, error)
}

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
func (p Price) BestOptions(ctx context.Context, opts []Option) []Option {
	if p.Pods != nil {
		return p.cloudPrices(ctx, opts)
	}
	var priced []Option
	for _, o := range opts {
		if hasNodePrice(o) {
			priced = append(priced, o)
		}
	}
	if len(priced) == 0 {
		return opts
	}
	return keepMax(priced, func(o Option) float64 { return -PriceScore(o) })
}

// hasNodePrice reports whether an option can be scored: its node has a
// price and a template, and it adds nodes.
func hasNodePrice(o Option) bool { return o.PricePerHour > 0 && o.Template != nil && o.NodeCount > 0 }

// cloudPrices scores the options with the pod prices of p.Pods; an option
// with a pod the cloud cannot price is left out (upstream's price
// expander skips it), and when none is left every option is kept.
func (p Price) cloudPrices(ctx context.Context, opts []Option) []Option {
	if !slices.ContainsFunc(opts, hasNodePrice) {
		// Nothing to score: ask the cloud for no pod price.
		return opts
	}
	log := klog.FromContext(ctx)
	stabilization, err := p.Pods.PodPrice(ctx, stabilizationPod)
	if err != nil {
		log.V(4).Info("Price expander continues without the stabilization pod's price", "err", err)
		stabilization = 0
	}
	type scored struct {
		Option
		score float64
	}
	var priced []scored
next:
	for _, o := range opts {
		if !hasNodePrice(o) {
			continue
		}
		pods := 0.0
		for _, pod := range o.Pods {
			v, err := p.Pods.PodPrice(ctx, pod)
			if err != nil {
				log.V(4).Info("Price expander leaves out an option with a pod the cloud cannot price", "nodeGroup", o.Group, "pod", klog.KObj(pod), "err", err)
				continue next
			}
			pods += v
		}
		priced = append(priced, scored{o, score(o, pods, stabilization)})
	}
	if len(priced) == 0 {
		return opts
	}
	var out []Option
	for _, s := range keepMax(priced, func(s scored) float64 { return -s.score }) {
		out = append(out, s.Option)
	}
	return out
}

// stabilizationPod is upstream's small pod whose price both sides of an
// option's price ratio add (0.5 CPU, 500 MiB).
var stabilizationPod = &corev1.Pod{
	ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kscale-price-stabilization"},
	Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "stabilization", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("500Mi")}}}}},
}

// PriceScore is an option's price score with pods at the reference
// prices; lower is better.
func PriceScore(o Option) float64 {
	pods := 0.0
	for _, p := range o.Pods {
		pods += podPrice(p)
	}
	return score(o, pods, stabilizationCPU*PodCPUPricePerHour+stabilizationMemGiB*PodMemoryPricePerHour)
}

// score is upstream's price score of an option whose pods cost pods per
// hour, with the stabilization pod's price.
func score(o Option, pods, stabilization float64) float64 {
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
