package snapfidelity

import (
	"fmt"
	"math/rand/v2"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/scenario"
)

// Namespaces the generated pods live in; the harness empties them
// between clusters.
var Namespaces = []string{"fid-a", "fid-b"}

// Priority classes the generated pods may name: one below the default
// --expendable-pods-priority-cutoff (-10), one well above.
const (
	PriorityLow  = "fid-low"
	PriorityHigh = "fid-high"
)

// PriorityValues are the values of the priority classes.
var PriorityValues = map[string]int32{PriorityLow: -20, PriorityHigh: 1000}

// Cluster is one generated cluster, in a form that shrinks: groups,
// named nodes, workloads whose pods are bound to named nodes or pending,
// and the autoscaler's flags.
type Cluster struct {
	// Seed generated the cluster.
	Seed int64
	// Settings are the autoscaler flags, by name.
	Settings map[string]string
	// Groups are the cloud's node groups (the kwok cloud config).
	Groups []scenario.NodeGroup
	// Nodes are the running instances.
	Nodes []Node
	// Workloads create the pods.
	Workloads []Workload
	// Budgets are PodDisruptionBudgets with selectors of their own.
	Budgets []Budget
}

// Node is one running instance of a group.
type Node struct {
	// Name is the instance id and node name.
	Name string
	// Group is the node group; "" is a node of no group (its provider
	// id names no group of the cloud config).
	Group string
	// NotReady makes the node's kubelet report Ready=False.
	NotReady bool
}

// Workload is a set of identical pods: a controller's (with its object:
// a ReplicaSet, StatefulSet, ReplicationController, Job or DaemonSet) or
// bare pods.
type Workload struct {
	// Name names the controller; pods are <name>-<n>.
	Name string
	// Namespace is one of Namespaces.
	Namespace string
	// Kind is KindReplicaSet, KindPods, KindJob or KindDaemonSet.
	Kind string
	// MilliCPU, MemMi and GPUs are each pod's requests.
	MilliCPU, MemMi, GPUs int64
	// PriorityClass is "" or one of the priority classes.
	PriorityClass string
	// Bound names the node of each running pod.
	Bound []string
	// Pending is the number of pods left to the scheduler.
	Pending int
	// Finished is how many of the bound pods have succeeded.
	Finished int
	// NotReady is how many of the bound pods after the finished ones run
	// but are not Ready (starting, crash-looping).
	NotReady int
	// MaxUnavailable, when not nil, adds a PDB selecting the pods.
	MaxUnavailable *int
	// Owner is the controller of a ReplicaSet workload's pods: one of
	// the Owner* constants.
	Owner string
	// Surplus is the controller's desired replicas minus its pods: a
	// StatefulSet or ReplicationController short of pods (no controller
	// of theirs runs) or a ReplicaSet scaled down (its controller deletes
	// pods, which stay terminating).
	Surplus int
	// Volume is "" or the type of the pods' one local storage volume
	// (scenario.VolumeEmptyDir, scenario.VolumeHostPath).
	Volume string
	// SafeVolume lists the volume in the pods' safe-to-evict-local-volumes
	// annotation.
	SafeVolume bool
	// Claims is "" or the kind of the pods' claims (one of the Claims*
	// constants); ZonesOfPending are the zones of the pending pods'
	// volumes with ClaimsZonal.
	Claims         string
	ZonesOfPending []string
	// Tier is "" or the pods' tier label (one of the Tier* constants),
	// which Budgets select.
	Tier string
	// Shard is how many of the pods (the first ones) carry the shard
	// label, so that a budget may select part of the workload.
	Shard int
}

// Owners of a ReplicaSet workload's pods.
const (
	OwnerReplicaSet  = "ReplicaSet"
	OwnerStatefulSet = "StatefulSet"
	OwnerRC          = "ReplicationController"
	// OwnerCustom is a custom controller (example.com/v1 Foo).
	OwnerCustom = "Custom"
	// OwnerMissing is a ReplicaSet that was deleted.
	OwnerMissing = "Missing"
)

var owners = []string{OwnerReplicaSet, OwnerReplicaSet, OwnerStatefulSet, OwnerRC, OwnerCustom, OwnerMissing}

// Workload kinds.
const (
	KindReplicaSet = "ReplicaSet"
	KindPods       = "Pods"
	// KindJob is a batch Job's pods (the Job object exists; no Job
	// controller runs, so its pods are the generated ones).
	KindJob = "Job"
	// KindDaemonSet is a DaemonSet's pods, one bound to every Ready node
	// as its controller (which does not run) would.
	KindDaemonSet = "DaemonSet"
)

// shape is one node group's instance shape.
type shape struct {
	milliCPU, memMi, gpus int64
}

var shapes = []shape{{2000, 4096, 0}, {4000, 8192, 0}, {8000, 16384, 0}, {4000, 16384, 0}, {8000, 32768, 2}}

// ResourceGPU is the extended resource of GPU nodes and pods.
const ResourceGPU = "nvidia.com/gpu"

// Generate returns the cluster of seed; the same seed gives the same
// cluster. 1 to 3 groups of 0 to 4 nodes, 1 to 6 workloads.
func Generate(seed int64) *Cluster {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	c := &Cluster{Seed: seed, Settings: settings(r)}
	free := map[string][3]int64{}
	for gi := range 1 + r.IntN(3) {
		s := shapes[r.IntN(len(shapes))]
		name := fmt.Sprintf("g%d", gi+1)
		nodes := r.IntN(5)
		g := scenario.NodeGroup{Name: name, Min: min(r.IntN(2), nodes), Max: nodes + 1 + r.IntN(4),
			Resources: scenario.Resources{"cpu": *resource.NewMilliQuantity(s.milliCPU, resource.DecimalSI),
				"memory": *resource.NewQuantity(s.memMi<<20, resource.BinarySI), "pods": *resource.NewQuantity(110, resource.DecimalSI)},
			BootTime: &scenario.Duration{}}
		if s.gpus > 0 {
			g.Resources[ResourceGPU] = *resource.NewQuantity(s.gpus, resource.DecimalSI)
		}
		if r.IntN(4) == 0 {
			g.AutoscalingOptions = map[string]string{"scaledownutilizationthreshold": "0.9"}
		}
		g.Zone = groupZone(seed, gi)
		if zeroOrMax(seed, gi) {
			g.AutoscalingOptions = withOption(g.AutoscalingOptions, cloudprovider.OptionZeroOrMaxNodeScaling, "true")
		}
		c.Groups = append(c.Groups, g)
		for i := range nodes {
			n := Node{Name: fmt.Sprintf("s%d-%s-%d", seed, name, i+1), Group: name, NotReady: r.IntN(8) == 0}
			c.Nodes = append(c.Nodes, n)
			free[n.Name] = [3]int64{s.milliCPU, s.memMi, s.gpus}
		}
	}
	if r.IntN(4) == 0 {
		n := Node{Name: fmt.Sprintf("s%d-other", seed)}
		c.Nodes = append(c.Nodes, n)
		free[n.Name] = [3]int64{4000, 8192, 0}
	}
	if r.IntN(3) == 0 {
		c.Workloads = append(c.Workloads, daemonSet(r, c, free))
	}
	for wi := range 1 + r.IntN(6) {
		w := workload(r, c, wi, free)
		drawClaims(seed, wi, &w)
		c.Workloads = append(c.Workloads, w)
	}
	drawBudgets(seed, c)
	return c
}

// zeroOrMax draws whether a seed's group is all-or-nothing (one in
// four), from a stream of its own so that the rest of the seed's cluster
// stays what it was before groups had the option.
func zeroOrMax(seed int64, group int) bool {
	return rand.New(rand.NewPCG(uint64(seed), 0x2e20+uint64(group))).IntN(4) == 0
}

// withOption returns opts (allocated when nil) with key set to value.
func withOption(opts map[string]string, key, value string) map[string]string {
	if opts == nil {
		opts = map[string]string{}
	}
	opts[key] = value
	return opts
}

// settings draws the autoscaler flags: scale-down acts in the first loop
// (no unneeded time) or only finds unneeded nodes.
func settings(r *rand.Rand) map[string]string {
	s := map[string]string{"expander": "least-waste"}
	if r.IntN(2) == 0 {
		s["scale-down-unneeded-time"] = "0s"
	}
	s["scale-down-utilization-threshold"] = []string{"0.3", "0.5", "0.7"}[r.IntN(3)]
	if r.IntN(4) == 0 {
		s["skip-nodes-with-local-storage"] = "false"
	}
	if r.IntN(4) == 0 {
		s["skip-nodes-with-job-pods"] = "false"
	}
	return s
}

// daemonSet draws a small DaemonSet whose pods run on every Ready node;
// it comes before the other workloads, so it fits every node.
func daemonSet(r *rand.Rand, c *Cluster, free map[string][3]int64) Workload {
	w := Workload{Name: "ds", Namespace: Namespaces[r.IntN(len(Namespaces))], Kind: KindDaemonSet,
		MilliCPU: []int64{50, 100, 200}[r.IntN(3)], MemMi: []int64{64, 128, 256}[r.IntN(3)]}
	if r.IntN(4) == 0 {
		w.PriorityClass = PriorityHigh
	}
	for _, n := range c.Nodes {
		if f := free[n.Name]; !n.NotReady {
			free[n.Name] = [3]int64{f[0] - w.MilliCPU, f[1] - w.MemMi, f[2]}
			w.Bound = append(w.Bound, n.Name)
		}
	}
	return w
}

func workload(r *rand.Rand, c *Cluster, i int, free map[string][3]int64) Workload {
	w := Workload{Name: fmt.Sprintf("w%d", i+1), Namespace: Namespaces[r.IntN(len(Namespaces))], Kind: KindReplicaSet,
		MilliCPU: []int64{100, 250, 500, 1000, 1500, 3000}[r.IntN(6)], MemMi: []int64{128, 512, 1024, 2048, 6144}[r.IntN(5)]}
	switch r.IntN(8) {
	case 0, 1:
		w.Kind = KindPods
	case 2:
		w.Kind = KindJob
	}
	if r.IntN(6) == 0 {
		w.GPUs = 1
	}
	if v := r.IntN(6); v < 2 {
		w.Volume, w.SafeVolume = []string{scenario.VolumeEmptyDir, scenario.VolumeHostPath}[v], r.IntN(3) == 0
	}
	switch r.IntN(4) {
	case 0:
		w.PriorityClass = PriorityLow
	case 1:
		w.PriorityClass = PriorityHigh
	}
	for range r.IntN(5) {
		if n := fits(r, c.Nodes, free, w); n != "" {
			w.Bound = append(w.Bound, n)
		}
	}
	w.Pending = r.IntN(4)
	// Bare and Job pods may have finished; a ReplicaSet's pods restart
	// instead.
	if w.Kind != KindReplicaSet && len(w.Bound) > 0 && r.IntN(3) == 0 {
		w.Finished = 1 + r.IntN(len(w.Bound))
	}
	if running := len(w.Bound) - w.Finished; running > 0 && r.IntN(4) == 0 {
		w.NotReady = 1 + r.IntN(running)
	}
	if w.Kind == KindReplicaSet {
		w.Owner = owners[r.IntN(len(owners))]
		switch pods := len(w.Bound) + w.Pending; {
		case r.IntN(4) != 0:
		case w.Owner == OwnerStatefulSet || w.Owner == OwnerRC:
			w.Surplus = 1 + r.IntN(2)
		case w.Owner == OwnerReplicaSet && pods > 0:
			w.Surplus = -1 - r.IntN(pods)
		}
	}
	// The disruption controller counts pods of the controllers it knows.
	if w.Kind == KindReplicaSet && w.Owner != OwnerCustom && w.Owner != OwnerMissing && r.IntN(3) == 0 {
		mu := r.IntN(2)
		w.MaxUnavailable = &mu
	}
	return w
}

// fits picks a node, from a random start, with room for one more pod of
// w and takes the room; "" when none has it.
func fits(r *rand.Rand, nodes []Node, free map[string][3]int64, w Workload) string {
	if len(nodes) == 0 {
		return ""
	}
	start := r.IntN(len(nodes))
	for k := range nodes {
		n := nodes[(start+k)%len(nodes)].Name
		f := free[n]
		if f[0] >= w.MilliCPU && f[1] >= w.MemMi && f[2] >= w.GPUs {
			free[n] = [3]int64{f[0] - w.MilliCPU, f[1] - w.MemMi, f[2] - w.GPUs}
			return n
		}
	}
	return ""
}
