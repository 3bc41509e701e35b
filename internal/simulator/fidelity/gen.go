package fidelity

import (
	"fmt"
	"math/rand/v2"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The generator draws from small vocabularies so that selectors, taints,
// ports and topology domains collide often: every filter then decides
// many pairs both ways.
const (
	keyZone       = corev1.LabelTopologyZone
	keyRegion     = corev1.LabelTopologyRegion
	keyHost       = corev1.LabelHostname
	keyBetaZone   = corev1.LabelFailureDomainBetaZone
	keyRack       = "example.com/rack"
	keyPool       = "example.com/pool"
	keyCores      = "example.com/cores"
	keyGPU        = "example.com/gpu"
	resGPU        = corev1.ResourceName("example.com/gpu")
	resHugePages  = corev1.ResourceName("hugepages-2Mi")
	csiDriver     = "csi.example.com"
	featureLabel  = "fidelity.kscale.dev/feature"
	namespaceName = corev1.LabelMetadataName
)

var (
	zones      = []string{"z1", "z2", "z3"}
	racks      = []string{"k1", "k2", "k3", "k4"}
	pools      = []string{"a", "b", "c"}
	cores      = []string{"2", "4", "8", "16"}
	apps       = []string{"web", "db", "cache"}
	tiers      = []string{"fe", "be"}
	versions   = []string{"v1", "v2"}
	namespaces = []string{"default", "ns-a", "ns-b", "ns-c"}
	nsLabels   = map[string]map[string]string{
		"default": {},
		"ns-a":    {"team": "x", "env": "prod"},
		"ns-b":    {"team": "y", "env": "dev"},
		"ns-c":    {"team": "x", "env": "dev"},
	}
)

// profile sets how likely each feature is. "mixed" clusters have many
// taints, small nodes and selective pods, so the early filters decide most
// pairs; "open" clusters have big, mostly untainted nodes and pods that
// pass those, so topology spread, inter-pod affinity, ports and volumes
// decide more.
type profile struct {
	taint, unschedulable      float64
	cpu, memMi, pods          []int64
	boundPerNode              int
	tolerations, nodeSelector float64
	nodeAffinity, affinity    float64
	anti, spread, ports, vols float64
}

var profiles = []profile{
	{taint: 0.45, unschedulable: 0.1, cpu: []int64{1000, 2000, 3500, 4000, 8000}, memMi: []int64{2048, 4096, 8192, 16384},
		pods: []int64{3, 5, 10, 110}, boundPerNode: 7, tolerations: 0.4, nodeSelector: 0.2, nodeAffinity: 0.3,
		affinity: 0.2, anti: 0.2, spread: 0.35, ports: 0.12, vols: 0.25},
	{taint: 0.12, unschedulable: 0.03, cpu: []int64{8000, 16000, 32000}, memMi: []int64{16384, 32768, 65536},
		pods: []int64{16, 110}, boundPerNode: 11, tolerations: 0.5, nodeSelector: 0.08, nodeAffinity: 0.12,
		affinity: 0.35, anti: 0.35, spread: 0.55, ports: 0.25, vols: 0.35},
}

// gen holds one generation's random source and the cluster built so far.
type gen struct {
	r *rand.Rand
	p profile
	c *Cluster
	// features collects the features of the pending pod being generated.
	features map[string]bool
	uid      int
}

// Generate returns the cluster of the seed: the same seed always gives the
// same cluster. Sizes vary per seed: 3 to 14 nodes, up to 6 bound pods per
// node, 12 to 36 pending pods.
func Generate(seed int64) *Cluster {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), c: &Cluster{Seed: seed, Features: map[string]int64{}}}
	g.p = pick(g, profiles)
	g.namespaces()
	g.storageClasses()
	nodes := 3 + g.r.IntN(12)
	for i := range nodes {
		g.c.Nodes = append(g.c.Nodes, g.node(i))
	}
	g.csiNodes()
	g.volumes()
	for _, n := range g.c.Nodes {
		for range g.r.IntN(g.p.boundPerNode) {
			g.c.Pods = append(g.c.Pods, g.boundPod(n))
		}
	}
	pending := 12 + g.r.IntN(25)
	for i := range pending {
		g.features = map[string]bool{}
		p := g.pendingPod(i)
		for f := range g.features {
			g.c.Features[f]++
		}
		g.c.Pending = append(g.c.Pending, p)
	}
	g.features = nil
	return g.c
}

// feature records that the pending pod being generated uses f.
func (g *gen) feature(f string) {
	if g.features != nil {
		g.features[f] = true
	}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, from []T) T { return from[g.r.IntN(len(from))] }

// some returns a random non-empty subset of from, in order.
func some[T any](g *gen, from []T, most int) []T {
	n := 1 + g.r.IntN(min(most, len(from)))
	idx := g.r.Perm(len(from))[:n]
	slices.Sort(idx)
	out := make([]T, n)
	for i, j := range idx {
		out[i] = from[j]
	}
	return out
}

func (g *gen) newUID(prefix string) types.UID {
	g.uid++
	return types.UID(fmt.Sprintf("%s-%d-%d", prefix, g.c.Seed, g.uid))
}

func (g *gen) namespaces() {
	for _, name := range namespaces {
		l := map[string]string{namespaceName: name}
		for k, v := range nsLabels[name] {
			l[k] = v
		}
		g.c.Namespaces = append(g.c.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}})
	}
}

func zoneRegion(zone string) string {
	if zone == "z3" {
		return "r2"
	}
	return "r1"
}

func milli(m int64) resource.Quantity { return *resource.NewMilliQuantity(m, resource.DecimalSI) }

func mebi(m int64) resource.Quantity { return *resource.NewQuantity(m<<20, resource.BinarySI) }

func count(n int64) resource.Quantity { return *resource.NewQuantity(n, resource.DecimalSI) }
