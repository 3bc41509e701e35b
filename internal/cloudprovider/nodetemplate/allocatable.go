package nodetemplate

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Instance type label keys, stable first.
const (
	LabelInstanceType     = "node.kubernetes.io/instance-type"
	LabelInstanceTypeBeta = "beta.kubernetes.io/instance-type"
)

// gpuResource is never learnt from live nodes: device plugins report it late.
const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// observed is what live nodes of one instance type showed.
type observed struct {
	capacity, allocatable corev1.ResourceList
}

// Estimator learns allocatable per instance type from live nodes.
type Estimator struct {
	types    map[string]observed
	reserved corev1.ResourceList
	last     []*corev1.Node
}

// NewEstimator returns an estimator that has seen nothing.
func NewEstimator() *Estimator {
	return &Estimator{types: map[string]observed{}, reserved: corev1.ResourceList{}}
}

// Observe learns from the current nodes: per instance type the minimum
// capacity and allocatable of each resource (a resource missing on some
// node of the type counts as zero, so it is left out), and cluster-wide the largest
// CPU and memory reservation (capacity - allocatable) of any node. Types
// seen before keep their last observation when their nodes are gone.
func (e *Estimator) Observe(nodes []*corev1.Node) {
	if slices.Equal(nodes, e.last) {
		return // the same node objects teach nothing new
	}
	e.last = slices.Clone(nodes)
	seen := map[string]observed{}
	reserved := corev1.ResourceList{}
	for _, n := range nodes {
		it := instanceType(n)
		if it == "" {
			continue
		}
		o, ok := seen[it]
		if !ok {
			o = observed{capacity: corev1.ResourceList{}, allocatable: corev1.ResourceList{}}
		}
		minInto(o.capacity, n.Status.Capacity, !ok)
		minInto(o.allocatable, n.Status.Allocatable, !ok)
		seen[it] = o
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			c, a := n.Status.Capacity[r], n.Status.Allocatable[r]
			c.Sub(a)
			if cur, ok := reserved[r]; !ok || c.Cmp(cur) > 0 {
				reserved[r] = c
			}
		}
	}
	for it, o := range seen {
		e.types[it] = o
	}
	if len(nodes) > 0 {
		e.reserved = reserved
	}
}

// Resources returns capacity and allocatable of an instance type. A nil
// estimator learns nothing: allocatable is the type's capacity.
func (e *Estimator) Resources(it cloudprovider.InstanceType) (capacity, allocatable corev1.ResourceList) {
	if e == nil {
		return it.Capacity.DeepCopy(), it.Capacity.DeepCopy()
	}
	if o, ok := e.types[it.Name]; ok {
		capacity, allocatable = o.capacity.DeepCopy(), o.allocatable.DeepCopy()
		if gpu, ok := it.Capacity[gpuResource]; ok {
			capacity[gpuResource], allocatable[gpuResource] = gpu.DeepCopy(), gpu.DeepCopy()
		}
		return capacity, allocatable
	}
	capacity, allocatable = it.Capacity.DeepCopy(), it.Capacity.DeepCopy()
	for r, q := range e.reserved {
		if a, ok := allocatable[r]; ok {
			a.Sub(q)
			if a.Sign() < 0 {
				a = resource.MustParse("0")
			}
			allocatable[r] = a
		}
	}
	return capacity, allocatable
}

func instanceType(n *corev1.Node) string {
	if v := n.Labels[LabelInstanceType]; v != "" {
		return v
	}
	return n.Labels[LabelInstanceTypeBeta]
}

// minInto lowers dst to src per resource; with first it copies src. A
// resource src lacks counts as zero there, so dst drops it: the minimum
// over nodes of a type holds only resources every node has.
func minInto(dst, src corev1.ResourceList, first bool) {
	if first {
		for r, q := range src {
			dst[r] = q.DeepCopy()
		}
		return
	}
	for r, cur := range dst {
		q, ok := src[r]
		switch {
		case !ok:
			delete(dst, r)
		case q.Cmp(cur) < 0:
			dst[r] = q.DeepCopy()
		}
	}
}
