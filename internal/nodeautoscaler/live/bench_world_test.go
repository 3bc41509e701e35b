package live_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/fixture"
)

// benchPool is one node group of the benchmark cluster and the pods that
// fill its nodes.
type benchPool struct {
	id, instanceType, zone string
	nodes                  int
	// podsPerNode pods of milliCPU and memMi each run on a node, from
	// workloads ReplicaSets of the pool.
	podsPerNode, milliCPU, memMi, workloads int
	taint                                   string
}

// benchPools are 1,000 nodes in five groups. Most nodes are 70-85% used;
// the last 50 memory nodes are at about 30%, so scale-down has candidates
// to simulate.
var benchPools = []benchPool{
	{id: "general-a", instanceType: "m5.2xlarge", zone: "eu-a", nodes: 300, podsPerNode: 30, milliCPU: 180, memMi: 512, workloads: 120},
	{id: "general-b", instanceType: "m5.2xlarge", zone: "eu-b", nodes: 300, podsPerNode: 30, milliCPU: 180, memMi: 512, workloads: 120},
	{id: "compute", instanceType: "c5.4xlarge", zone: "eu-a", nodes: 200, podsPerNode: 25, milliCPU: 500, memMi: 1024, workloads: 60},
	{id: "memory", instanceType: "r5.2xlarge", zone: "eu-b", nodes: 150, podsPerNode: 20, milliCPU: 250, memMi: 2560, workloads: 40},
	{id: "gpu", instanceType: "g4dn.xlarge", zone: "eu-a", nodes: 50, podsPerNode: 1, milliCPU: 1000, memMi: 4096, workloads: 10, taint: "nvidia.com/gpu"},
}

const (
	benchNamespaces  = 20
	benchPoolLabel   = "node.kscale.io/pool"
	benchUnderused   = 50 // the last memory nodes carry 8 pods only
	benchJobPods     = 550
	benchStatefulSet = 50 // StatefulSets of 20 pods with a claim each
)

// benchWorld is the cluster the benchmark loop reads.
type benchWorld struct {
	cloud   *inmemory.Cloud
	objects []any
	pods    int
}

func (w *benchWorld) add(objs ...any) { w.objects = append(w.objects, objs...) }

func benchPod(name, ns string, milliCPU, memMi int64, opts ...fixture.PodOption) *corev1.Pod {
	requests := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
		}
	}
	p := fixture.Pod(name, append([]fixture.PodOption{fixture.InNamespace(ns), requests}, opts...)...)
	p.UID = types.UID("uid-pod-" + p.Namespace + "-" + name)
	return p
}

// chain applies the options in order.
func chain(opts ...fixture.PodOption) fixture.PodOption {
	return func(p *corev1.Pod) {
		for _, o := range opts {
			o(p)
		}
	}
}

func ownedBy(kind, apiVersion, name string, uid types.UID) fixture.PodOption {
	return func(p *corev1.Pod) {
		controller := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &controller}}
	}
}

// replicaSet adds a ReplicaSet (and a PDB for every fourth one) and returns
// the option that makes a pod one of its pods.
func (w *benchWorld) replicaSet(name, ns string, replicas int32) fixture.PodOption {
	rs := fixture.ReplicaSet(name, replicas)
	rs.Namespace, rs.UID = ns, types.UID("uid-rs-"+ns+"-"+name)
	w.add(rs)
	if len(w.objects)%4 == 0 {
		pdb := fixture.PDB(name, name, fixture.MaxUnavailable(intstr.FromString("10%")))
		pdb.Namespace = ns
		pdb.Status.DisruptionsAllowed = int32(len(w.objects) % 3)
		w.add(pdb)
	}
	return func(p *corev1.Pod) {
		ownedBy("ReplicaSet", "apps/v1", name, rs.UID)(p)
		p.Labels["app"] = name
	}
}

func newBenchWorld(b *testing.B, now time.Time) *benchWorld {
	w := &benchWorld{cloud: inmemory.New(clocktesting.NewFakeClock(now))}
	for i := range benchNamespaces {
		w.add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("team-%02d", i),
			Labels: map[string]string{"team": strconv.Itoa(i % 5)}}})
	}
	ds := []*appsv1.DaemonSet{fixture.DaemonSet("node-exporter"), fixture.DaemonSet("log-agent")}
	for _, d := range ds {
		d.Namespace, d.UID = "kube-system", types.UID("uid-ds-"+d.Name)
		w.add(d)
	}
	for _, pool := range benchPools {
		w.addPool(b, pool, ds, now)
	}
	w.addStatefulSets()
	w.addPending(now)
	return w
}

// addPool adds the group, its running machines and nodes, and their pods.
func (w *benchWorld) addPool(b *testing.B, pool benchPool, ds []*appsv1.DaemonSet, now time.Time) {
	it, err := inmemory.LookupInstanceType(pool.instanceType)
	if err != nil {
		b.Fatal(err)
	}
	tags := map[string]string{cloudprovider.TagLabelPrefix + benchPoolLabel: strings.TrimSuffix(strings.TrimSuffix(pool.id, "-a"), "-b")}
	if pool.taint != "" {
		tags[cloudprovider.TagTaintPrefix+pool.taint] = "present:NoSchedule"
	}
	g := cloudprovider.NodeGroup{ID: pool.id, MaxSize: 2000, Template: cloudprovider.Template{
		InstanceTypes: []cloudprovider.InstanceType{it}, Zones: []string{pool.zone}, Tags: tags}}
	err = w.cloud.AddGroup(inmemory.GroupConfig{ID: g.ID, MaxSize: g.MaxSize, Capacity: inmemory.Unlimited, BootTime: 3 * time.Minute, Template: g.Template})
	if err != nil {
		b.Fatal(err)
	}
	rsOpts := make([]fixture.PodOption, pool.workloads)
	for i := range rsOpts {
		ns := fmt.Sprintf("team-%02d", i%benchNamespaces)
		rsOpts[i] = fixture.PodOption(func(p *corev1.Pod) { p.Namespace = ns })
		rsOpts[i] = chain(w.replicaSet(fmt.Sprintf("%s-app-%03d", pool.id, i), ns, 0), rsOpts[i])
	}
	deleted := chain(fixture.InNamespace("team-00"), ownedBy("ReplicaSet", "apps/v1", "gone", "uid-gone"))
	for n := range pool.nodes {
		id := fmt.Sprintf("%s-%04d", pool.id, n)
		if err := w.cloud.AddInstance(pool.id, id, true, 0); err != nil {
			b.Fatal(err)
		}
		node, err := kwok.MachineNode(inmemory.Machine{Group: pool.id, ID: id, ProviderID: inmemory.ProviderID(pool.id, id),
			InstanceType: it, Zone: pool.zone, Running: true}, g, nil, now.Add(-time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		w.add(node)
		for _, d := range ds {
			w.addPod(benchPod(d.Name+"-"+id, d.Namespace, 50, 64, fixture.OnNode(id), fixture.Running(),
				ownedBy("DaemonSet", "apps/v1", d.Name, d.UID)))
		}
		count := pool.podsPerNode
		if pool.id == "memory" && n >= pool.nodes-benchUnderused {
			count = 8
		}
		for k := range count {
			opts := []fixture.PodOption{fixture.OnNode(id), fixture.Running(), rsOpts[(n*count+k)%len(rsOpts)]}
			if pool.id == "memory" && n == pool.nodes-1 && k == 0 {
				opts[2] = deleted // a pod whose ReplicaSet is gone keeps its node
			}
			if pool.taint != "" {
				opts = append(opts, fixture.WithTolerations(corev1.Toleration{Key: pool.taint, Operator: corev1.TolerationOpExists}),
					func(p *corev1.Pod) {
						p.Spec.Containers[0].Resources.Requests[corev1.ResourceName(pool.taint)] = resource.MustParse("1")
					})
			}
			p := benchPod(fmt.Sprintf("%s-%d", id, k), "", int64(pool.milliCPU), int64(pool.memMi), opts...)
			w.addPod(p)
		}
		if strings.HasPrefix(pool.id, "general") && n < benchJobPods/2 {
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job-" + id, Namespace: "team-00", UID: types.UID("uid-job-" + id)}}
			w.add(job)
			w.addPod(benchPod("job-"+id, "team-00", 100, 256, fixture.OnNode(id), fixture.Running(), ownedBy("Job", "batch/v1", job.Name, job.UID)))
		}
	}
}

func (w *benchWorld) addPod(p *corev1.Pod) {
	w.add(p)
	w.pods++
}

// addStatefulSets adds StatefulSets on the compute nodes, each pod with a
// claim bound to a zonal volume.
func (w *benchWorld) addStatefulSets() {
	for s := range benchStatefulSet {
		ns := fmt.Sprintf("team-%02d", s%benchNamespaces)
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("db-%02d", s), Namespace: ns, UID: types.UID(fmt.Sprintf("uid-sts-%02d", s))}}
		w.add(sts)
		for r := range 20 {
			name := fmt.Sprintf("%s-%d", sts.Name, r)
			claim := "data-" + name
			pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + ns + "-" + name},
				Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
						Key: fixture.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"eu-a"}}}}}}}}}
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: ns},
				Spec: corev1.PersistentVolumeClaimSpec{VolumeName: pv.Name}}
			w.add(pv, pvc)
			node := fmt.Sprintf("compute-%04d", (s*20+r)%200)
			w.addPod(benchPod(name, ns, 200, 512, fixture.OnNode(node), fixture.Running(), ownedBy("StatefulSet", "apps/v1", sts.Name, sts.UID),
				func(p *corev1.Pod) {
					p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
				}))
		}
	}
}

// addPending adds the 1,000 unschedulable pods: new web pods pinned to the
// general pools (half of them spread over zones with DoNotSchedule, a sixth
// with hostname anti-affinity), batch pods for compute, cache pods for
// memory and training pods for GPUs. Only 50 fit existing nodes (the
// general nodes without a Job pod have room for one web pod). With
// balancing, one estimate over general-a and general-b places the
// zone-spread pods on new nodes of both zones.
func (w *benchWorld) addPending(now time.Time) {
	// The pods were created over the last ten minutes, 0.6 s apart.
	pending := 0
	created := func(p *corev1.Pod) {
		p.CreationTimestamp = metav1.NewTime(now.Add(-10 * time.Minute).Add(time.Duration(pending) * 600 * time.Millisecond))
		pending++
	}
	inPool := func(pools ...string) fixture.PodOption {
		return fixture.WithAffinity(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: benchPoolLabel, Operator: corev1.NodeSelectorOpIn, Values: pools}}}}}}})
	}
	kinds := []struct {
		name            string
		count           int
		milliCPU, memMi int64
		opts            []fixture.PodOption
	}{
		{"web-spread", 300, 2500, 4096, []fixture.PodOption{inPool("general"), fixture.WithTopologySpread(corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: fixture.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web-spread"}}})}},
		{"web-anti", 100, 2500, 4096, []fixture.PodOption{fixture.WithAffinity(&corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: benchPoolLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{"general"}}}}}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web-anti"}}, TopologyKey: fixture.LabelHostname}}}})}},
		{"web", 200, 2500, 4096, []fixture.PodOption{inPool("general")}},
		{"batch", 200, 4000, 4096, []fixture.PodOption{fixture.WithNodeSelector(map[string]string{benchPoolLabel: "compute"})}},
		{"cache", 150, 1000, 48 << 10, []fixture.PodOption{fixture.WithNodeSelector(map[string]string{benchPoolLabel: "memory"})}},
		{"train", 50, 2000, 8192, []fixture.PodOption{fixture.WithNodeSelector(map[string]string{benchPoolLabel: "gpu"}),
			fixture.WithTolerations(corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists})}},
	}
	for _, k := range kinds {
		owner := w.replicaSet(k.name, "team-01", int32(k.count))
		for i := range k.count {
			opts := append([]fixture.PodOption{fixture.UnschedulablePod(), created, owner}, k.opts...)
			p := benchPod(fmt.Sprintf("%s-%d", k.name, i), "team-01", k.milliCPU, k.memMi, opts...)
			if k.name == "train" {
				p.Spec.Containers[0].Resources.Requests[inmemory.ResourceGPU] = resource.MustParse("1")
			}
			w.addPod(p)
		}
	}
}
