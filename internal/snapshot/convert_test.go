package snapshot

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/scenario"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const eksLabel = "eks.amazonaws.com/nodegroup"

// m5large is a node with the capacity of the catalog's m5.large and 100m
// CPU and 512Mi memory reserved.
func m5large(name string, opts ...fixture.NodeOption) *corev1.Node {
	base := []fixture.NodeOption{
		fixture.WithCapacity(corev1.ResourceCPU, "2"), fixture.WithCapacity(corev1.ResourceMemory, "8Gi"),
		fixture.WithAllocatable(corev1.ResourceCPU, "1900m"), fixture.WithAllocatable(corev1.ResourceMemory, "7680Mi"),
		fixture.WithNodeLabels(map[string]string{"node.kubernetes.io/instance-type": "m5.large"}),
	}
	return fixture.Node(name, append(base, opts...)...)
}

func ownedPod(name, kind, owner, node string, opts ...fixture.PodOption) *corev1.Pod {
	gvk := appsv1.SchemeGroupVersion.WithKind(kind)
	if kind == "Job" {
		gvk = batchv1.SchemeGroupVersion.WithKind(kind)
	}
	base := []fixture.PodOption{fixture.WithOwner(gvk, owner, types.UID("uid-"+owner))}
	if node != "" {
		base = append(base, fixture.OnNode(node), fixture.Running())
	} else {
		base = append(base, fixture.UnschedulablePod())
	}
	return fixture.Pod(name, append(base, opts...)...)
}

func cluster(nodes []*corev1.Node, pods []*corev1.Pod, pdbs ...*policyv1.PodDisruptionBudget) *Cluster {
	c := &Cluster{Source: "https://test"}
	for _, n := range nodes {
		c.Nodes = append(c.Nodes, *n)
	}
	for _, p := range pods {
		c.Pods = append(c.Pods, *p)
	}
	for _, p := range pdbs {
		c.PDBs = append(c.PDBs, *p)
	}
	return c
}

func defaultOptions() Options {
	return Options{Now: now, Duration: 30 * time.Minute, MinSize: SizeFromCluster, MaxSize: SizeFromCluster}
}

// fullCluster has an EKS group of two m5.large nodes, an unlabelled
// control-plane node, a Deployment with a pending pod, a DaemonSet, a Job,
// a bare pod, a finished pod, a PDB and the priorities.
func fullCluster() *Cluster {
	web := map[string]string{"app": "web", "pod-template-hash": "5d8f"}
	nodes := []*corev1.Node{
		m5large("a-1", fixture.WithNodeLabels(map[string]string{eksLabel: "spot", "team": "x"}), fixture.WithZone("eu-1a"),
			fixture.WithTaints(fixture.Taint("dedicated", "web", corev1.TaintEffectNoSchedule), fixture.Taint(taintToBeDeleted, "1", corev1.TaintEffectNoSchedule))),
		m5large("a-2", fixture.WithNodeLabels(map[string]string{eksLabel: "spot", "team": "x"}), fixture.WithZone("eu-1a"), fixture.NotReady(),
			fixture.WithTaints(fixture.Taint("dedicated", "web", corev1.TaintEffectNoSchedule), fixture.Taint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoSchedule))),
		fixture.Node("cp", fixture.WithNodeLabels(map[string]string{"node-role.kubernetes.io/control-plane": ""}), fixture.Unschedulable()),
	}
	tol := fixture.WithTolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule})
	dsAffinity := fixture.WithAffinity(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a-1"}}}}}}}})
	succeeded := fixture.Pod("done", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
	pods := []*corev1.Pod{
		ownedPod("web-5d8f-1", "ReplicaSet", "web-5d8f", "a-1", fixture.WithLabels(web), fixture.WithRequests("cpu", "500m", "memory", "1Gi"), tol, fixture.WithPriority(100)),
		ownedPod("web-5d8f-2", "ReplicaSet", "web-5d8f", "a-1", fixture.WithLabels(web), fixture.WithRequests("cpu", "500m", "memory", "1Gi"), tol, fixture.WithPriority(100)),
		ownedPod("web-5d8f-3", "ReplicaSet", "web-5d8f", "", fixture.WithLabels(web), fixture.WithRequests("cpu", "500m", "memory", "1Gi"), tol, fixture.WithPriority(100)),
		ownedPod("agent-x1", "DaemonSet", "agent", "a-1", fixture.WithLabels(map[string]string{"app": "agent"}), dsAffinity),
		ownedPod("batch-q", "Job", "batch", "cp", fixture.WithLabels(map[string]string{"app": "batch"}), fixture.WithInitContainer("init", false, "cpu", "1")),
		fixture.Pod("debug", fixture.OnNode("cp"), fixture.Running(), fixture.InNamespace("ops")),
		succeeded,
	}
	half := intstr.FromString("50%")
	c := cluster(nodes, pods, fixture.PDB("web", "web", fixture.MinAvailable(half)), fixture.PDB("nothing", "nothing"))
	c.Priorities = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
		Data: map[string]string{"priorities": "50:\n  - ^spot$\n10:\n  - .*\n"}}
	return c
}

func TestConvertFullCluster(t *testing.T) {
	res, err := Convert(fullCluster(), defaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenario
	if len(s.NodeGroups) != 2 {
		t.Fatalf("groups = %+v, want spot and unmanaged-2", s.NodeGroups)
	}
	spot, cp := s.NodeGroups[0], s.NodeGroups[1]
	if spot.Name != "spot" || spot.Min != 2 || spot.Max != 2 || spot.Target != 2 || !slices.Equal(spot.InstanceTypes, []string{"m5.large"}) ||
		spot.Zone != "eu-1a" || spot.Labels["team"] != "x" || spot.Labels[eksLabel] != "spot" || len(spot.Resources) != 0 {
		t.Errorf("spot group = %+v", spot)
	}
	if qty(spot.Reserved, "cpu") != "100m" || qty(spot.Reserved, "memory") != "512Mi" {
		t.Errorf("spot reserved = %v, want 100m and 512Mi", spot.Reserved)
	}
	if len(spot.Taints.Value) != 1 || spot.Taints.Value[0].Key != "dedicated" {
		t.Errorf("spot taints = %v, want only dedicated (ToBeDeleted is the node's)", spot.Taints.Value)
	}
	if !strings.HasPrefix(cp.Name, unmanagedPrefix) || cp.Min != 1 || cp.Max != 1 || cp.Target != 1 ||
		qty(cp.Resources, "cpu") != "4" || cp.Labels["node-role.kubernetes.io/control-plane"] != "" {
		t.Errorf("unmanaged group = %+v", cp)
	}
	wantNodes := []scenario.Node{
		{Name: "a-1", Group: "spot", Taints: scenario.K8s[[]corev1.Taint]{Value: []corev1.Taint{{Key: taintToBeDeleted, Value: "1", Effect: corev1.TaintEffectNoSchedule}}}},
		{Name: "a-2", Group: "spot", NotReady: true},
		{Name: "cp", Group: cp.Name, Taints: scenario.K8s[[]corev1.Taint]{Value: []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}}},
	}
	if len(s.Nodes) != len(wantNodes) {
		t.Fatalf("nodes = %+v", s.Nodes)
	}
	for i, want := range wantNodes {
		got := s.Nodes[i]
		if got.Name != want.Name || got.Group != want.Group || got.NotReady != want.NotReady || !slices.Equal(got.Taints.Value, want.Taints.Value) {
			t.Errorf("node %d = %+v, want %+v", i, got, want)
		}
	}
	byName := map[string]scenario.Workload{}
	var order []string
	for _, w := range s.Workloads {
		byName[w.Name] = w
		order = append(order, w.Name)
	}
	if !slices.Equal(order, []string{"agent", "batch", "web", "debug"}) {
		t.Errorf("workload order = %v, want the DaemonSet first, then by decreasing CPU request", order)
	}
	web := byName["web"]
	if web.Kind != "ReplicaSet" || web.Replicas != 3 || web.Scheduled != 2 || web.Pod.Priority != 100 ||
		qty(web.Pod.Requests, "cpu") != "500m" || len(web.Pod.Tolerations.Value) != 1 || web.PDB != nil {
		t.Errorf("web = %+v", web)
	}
	if a := byName["agent"]; a.Kind != "DaemonSet" || a.Replicas != 0 || a.Pod.Affinity != nil {
		t.Errorf("agent = %+v, want a DaemonSet without its node pinning", a)
	}
	if j := byName["batch"]; j.Kind != "Job" || j.Replicas != 1 || j.Scheduled != 1 || qty(j.Pod.Requests, "cpu") != "1" {
		t.Errorf("batch = %+v, want a Job requesting its init container's 1 CPU", j)
	}
	if d := byName["debug"]; d.Kind != "Pods" || d.Namespace != "ops" || d.Replicas != 1 || d.Scheduled != 1 {
		t.Errorf("debug = %+v", d)
	}
	if !slices.Equal(s.Priorities[50], []string{"^spot$"}) || !slices.Equal(s.Priorities[10], []string{".*"}) {
		t.Errorf("priorities = %v", s.Priorities)
	}
	if b := s.PodDisruptionBudgets; len(b) != 2 || b[0].Name != "nothing" || b[1].Name != "web" || b[1].MinAvailable != "50%" ||
		b[1].Selector.Value.MatchLabels["app"] != "web" || b[0].MaxUnavailable != "1" {
		t.Errorf("budgets = %+v, want nothing and web as they are", b)
	}
	for _, want := range []string{"1 finished (Succeeded or Failed) pods are left out",
		"nodes in no node group: 1", "Job default/batch: the remaining run time"} {
		if !containsNote(res.Notes, want) {
			t.Errorf("notes %q lack %q", res.Notes, want)
		}
	}
	roundTrip(t, res)
}

func containsNote(notes []string, want string) bool {
	return slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) })
}

// roundTrip marshals the result, parses it as kscale simulate does and
// starts the offline world from it.
func roundTrip(t *testing.T, res *Result) *scenario.Scenario {
	t.Helper()
	if err := Fit(res); err != nil {
		t.Fatalf("Fit: %v", err)
	}
	data, err := Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		t.Fatalf("parsing the snapshot: %v\n%s", err, data)
	}
	if len(scn.NodeGroups) != len(res.Scenario.NodeGroups) || len(scn.Workloads) != len(res.Scenario.Workloads) || len(scn.Nodes) != len(res.Scenario.Nodes) {
		t.Errorf("parsed scenario lost entries:\n%s", data)
	}
	return scn
}

func TestConvertCases(t *testing.T) {
	kwokNode := func(name, group string, opts ...fixture.NodeOption) *corev1.Node {
		return fixture.Node(name, append([]fixture.NodeOption{fixture.WithProviderID("inmemory:///" + group + "/" + name)}, opts...)...)
	}
	configured := []scenario.NodeGroup{
		{Name: "ng-1", Min: 1, Max: 5, Resources: scenario.Resources{"cpu": resource.MustParse("4"), "memory": resource.MustParse("16Gi")},
			Taints: scenario.K8s[[]corev1.Taint]{Value: []corev1.Taint{fixture.Taint("gpu", "", corev1.TaintEffectNoSchedule)}}},
		{Name: "ng-2", Min: 2, Max: 3, InstanceTypes: []string{"m5.xlarge"}, AutoscalingOptions: map[string]string{"zeroormaxnodescaling": "true"}},
	}
	tests := []struct {
		name  string
		c     *Cluster
		opts  func(*Options)
		check func(t *testing.T, r *Result)
		notes []string
	}{{
		name: "cloud config: nodes join their group by provider id",
		c: cluster([]*corev1.Node{
			kwokNode("i-1", "ng-1", fixture.WithTaints(fixture.Taint("gpu", "", corev1.TaintEffectNoSchedule))),
			kwokNode("i-2", "ng-1", fixture.WithCapacity(corev1.ResourceCPU, "8")), kwokNode("i-9", "gone"), fixture.Node("plain"),
		}, nil),
		opts: func(o *Options) { o.NodeGroups = configured },
		check: func(t *testing.T, r *Result) {
			g := r.Scenario.NodeGroups
			if len(g) != 3 || g[0].Name != "ng-1" || g[0].Target != 2 || g[0].Max != 5 || g[1].Name != "ng-2" || g[1].Target != 2 || g[2].Name != "unmanaged-1" || g[2].Target != 2 {
				t.Errorf("groups = %+v", g)
			}
			if n := r.Scenario.Nodes[0]; n.Name != "i-1" || n.Group != "ng-1" || len(n.Taints.Value) != 0 {
				t.Errorf("first node = %+v, want i-1 in ng-1 without the group's taint repeated", n)
			}
			if o := g[1].AutoscalingOptions["zeroormaxnodescaling"]; o != "true" {
				t.Errorf("ng-2's zero-or-max option = %q, want the cloud config's true", o)
			}
		},
		notes: []string{`node i-9: its provider id names group "gone"`, "node i-2 differs from group ng-1 of the cloud config in capacity"},
	}, {
		name: "inferred groups: sizes from flags, differing labels, zones and shapes",
		c: cluster([]*corev1.Node{
			m5large("b-1", fixture.WithNodeLabels(map[string]string{"worker.gardener.cloud/pool": "Pool_A", "rack": "1"}), fixture.WithZone("z1")),
			m5large("b-2", fixture.WithNodeLabels(map[string]string{"worker.gardener.cloud/pool": "Pool_A", "rack": "2"}), fixture.WithZone("z2")),
			fixture.Node("b-3", fixture.WithNodeLabels(map[string]string{"worker.gardener.cloud/pool": "Pool_A", "rack": "2"}), fixture.WithZone("z2")),
		}, nil),
		opts: func(o *Options) { o.MinSize, o.MaxSize = 0, 10 },
		check: func(t *testing.T, r *Result) {
			g := r.Scenario.NodeGroups
			if len(g) != 1 || g[0].Name != "pool-a" || g[0].Min != 0 || g[0].Max != 10 || g[0].Target != 3 || g[0].Zone != "" ||
				g[0].Labels["rack"] != "" || !slices.Equal(g[0].InstanceTypes, []string{"m5.large"}) {
				t.Errorf("groups = %+v", g)
			}
		},
		notes: []string{`group "Pool_A" is written as "pool-a"`, "labels rack differ", "span several zones", "node b-3: its capacity"},
	}, {
		name: "a PDB over two workloads, and owners that are not ReplicaSets",
		c: cluster([]*corev1.Node{fixture.Node("n")}, []*corev1.Pod{
			ownedPod("db-0", "StatefulSet", "db", "n", fixture.WithLabels(map[string]string{"app": "db", "tier": "data"})),
			ownedPod("db-1", "StatefulSet", "db", "n", fixture.WithLabels(map[string]string{"app": "db", "tier": "data"}), fixture.WithRequests("cpu", "2")),
			ownedPod("cache-0", "StatefulSet", "cache", "n", fixture.WithLabels(map[string]string{"app": "cache", "tier": "data"}), fixture.WithHostPort(6379, corev1.ProtocolTCP)),
		}, fixture.PDB("data", "x", func(p *policyv1.PodDisruptionBudget) { p.Spec.Selector.MatchLabels = map[string]string{"tier": "data"} })),
		check: func(t *testing.T, r *Result) {
			for _, w := range r.Scenario.Workloads {
				if w.PDB != nil || w.Kind != "ReplicaSet" || w.Controller == nil || w.Controller.Kind != "StatefulSet" || w.Controller.Missing {
					t.Errorf("workload %+v, want a ReplicaSet workload owned by its StatefulSet, without a PDB", w)
				}
			}
			if b := r.Scenario.PodDisruptionBudgets; len(b) != 1 || b[0].Name != "data" || b[0].Selector.Value.MatchLabels["tier"] != "data" {
				t.Errorf("budgets = %+v, want data over both workloads", b)
			}
		},
		notes: []string{"1 of its pods differ", "host port 6379"},
	}, {
		name: "names: app labels taken twice, invalid names",
		c: cluster([]*corev1.Node{fixture.Node("n")}, []*corev1.Pod{
			ownedPod("a-1", "ReplicaSet", "Front.End-abc", "n", fixture.WithLabels(map[string]string{"app": "web", "pod-template-hash": "abc"})),
			ownedPod("b-1", "ReplicaSet", "web-xyz", "", fixture.InNamespace("other"), fixture.WithLabels(map[string]string{"app": "web", "pod-template-hash": "xyz"})),
		}),
		check: func(t *testing.T, r *Result) {
			var names []string
			for _, w := range r.Scenario.Workloads {
				names = append(names, w.Namespace+"/"+w.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"default/web", "other/web-2"}) {
				t.Errorf("workloads = %v", names)
			}
		},
		notes: []string{"labels its pods app=web-2 (its workload name) instead of app=web"},
	}, {
		name: "a node that was Ready and failed is noted; one that never was is not",
		c: func() *Cluster {
			failed := fixture.Node("failed", fixture.NotReady())
			failed.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour))
			failed.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-10 * time.Minute))
			booting := fixture.Node("booting", fixture.NotReady())
			booting.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
			booting.Status.Conditions[0].LastTransitionTime = booting.CreationTimestamp
			return cluster([]*corev1.Node{failed, booting}, nil)
		}(),
		check: func(t *testing.T, r *Result) {
			if containsNote(r.Notes, "node booting") {
				t.Errorf("notes %q name the node that never was Ready", r.Notes)
			}
		},
		notes: []string{"node failed has been NotReady since 2026-11-22T11:50:00Z after it was Ready"},
	}, {
		name: "running pods stay on their node, even one a scheduler would not pick now",
		c: cluster([]*corev1.Node{fixture.Node("sick", fixture.NotReady())}, []*corev1.Pod{
			fixture.Pod("stuck", fixture.OnNode("sick"), fixture.Running()),
		}),
		check: func(t *testing.T, r *Result) {
			if w := r.Scenario.Workloads[0]; w.Replicas != 1 || w.Scheduled != 1 || w.On["sick"] != 1 {
				t.Errorf("workload = %+v, want 1 replica scheduled on sick", w)
			}
		},
	}, {
		name: "owners that are gone, pods being deleted, local storage",
		c: func() *Cluster {
			victim := fixture.Pod("victim", fixture.OnNode("n"), fixture.Running())
			victim.DeletionTimestamp = &metav1.Time{Time: now.Add(20 * time.Second)}
			gone := fixture.Pod("gone", fixture.OnNode("n"), fixture.Running())
			gone.DeletionTimestamp = &metav1.Time{Time: now}
			gone.Spec.NodeName = ""
			scratch := ownedPod("scratch-0", "ReplicaSet", "scratch", "n", func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
					{Name: "logs", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}}}
				p.Annotations = map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "logs"}
			})
			c := cluster([]*corev1.Node{fixture.Node("n")}, []*corev1.Pod{
				ownedPod("orphan-0", "StatefulSet", "orphan", "n"), ownedPod("kept-0", "ReplicaSet", "kept", "n"), victim, gone, scratch})
			c.Controllers = map[string]bool{ControllerKey("default", "ReplicaSet", "kept", "uid-kept"): true,
				ControllerKey("default", "ReplicaSet", "scratch", "uid-scratch"): true}
			return c
		}(),
		check: func(t *testing.T, r *Result) {
			orphan, kept, victim := workloadNamed(r, "orphan-0"), workloadNamed(r, "kept-0"), workloadNamed(r, "victim")
			if orphan == nil || orphan.Controller == nil || !orphan.Controller.Missing || orphan.Controller.Kind != "StatefulSet" {
				t.Errorf("orphan = %+v, want its StatefulSet missing", orphan)
			}
			if kept == nil || kept.Controller != nil || kept.On["n"] != 1 {
				t.Errorf("kept = %+v, want a plain ReplicaSet workload on n", kept)
			}
			if victim == nil || victim.Kind != "Pods" || victim.Terminating == nil || victim.Terminating.Duration != 20*time.Second || victim.On["n"] != 1 {
				t.Errorf("victim = %+v, want a bare pod on n terminating in 20s", victim)
			}
			if w := workloadNamed(r, "gone"); w != nil {
				t.Errorf("an unbound terminating pod is kept: %+v", w)
			}
			want := []scenario.Volume{{Name: "tmp", Type: scenario.VolumeEmptyDir}, {Name: "logs", Type: scenario.VolumeHostPath}}
			parsed := roundTrip(t, r)
			for _, w := range parsed.Workloads {
				if w.Name == "scratch" && (!slices.Equal(w.Pod.Volumes, want) ||
					w.Pod.Annotations["cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"] != "logs") {
					t.Errorf("scratch's pod after the round trip = %+v, want volumes %v and the safe-to-evict annotation", w.Pod, want)
				}
			}
			if slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "volume") }) {
				t.Errorf("notes %q name a volume the scenario carries", r.Notes)
			}
		},
		notes: []string{"1 terminating pods not bound to a node"},
	}, {
		name: "bound pods that are not Ready",
		c: func() *Cluster {
			starting := ownedPod("web-1", "ReplicaSet", "web", "n", func(p *corev1.Pod) { p.Status.Conditions = nil })
			crashing := ownedPod("web-2", "ReplicaSet", "web", "n", func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse })
			db := ownedPod("db-0", "StatefulSet", "db", "n", fixture.WithLabels(map[string]string{"app": "db"}))
			c := cluster([]*corev1.Node{fixture.Node("n")}, []*corev1.Pod{starting, crashing,
				ownedPod("web-3", "ReplicaSet", "web", "n"), ownedPod("web-4", "ReplicaSet", "web", ""), db})
			c.Desired = map[string]int32{ControllerKey("default", "ReplicaSet", "web", "uid-web"): 4,
				ControllerKey("default", "StatefulSet", "db", "uid-db"): 3}
			return c
		}(),
		check: func(t *testing.T, r *Result) {
			parsed := roundTrip(t, r)
			for _, w := range parsed.Workloads {
				switch w.Name {
				case "db":
					if w.Replicas != 1 || w.Desired == nil || *w.Desired != 3 || w.NotReady != 0 {
						t.Errorf("db after the round trip = %+v, want 1 replica of a StatefulSet that wants 3", w)
					}
				default:
					if w.Replicas != 4 || w.Scheduled != 3 || w.NotReady != 2 || w.Desired != nil {
						t.Errorf("web after the round trip = %+v, want 4 replicas (as desired), 3 scheduled, 2 of them not Ready", w)
					}
				}
			}
		},
	}, {
		name: "a DaemonSet without pods comes from its template",
		c: func() *Cluster {
			ds := func(name string) appsv1.DaemonSet {
				return appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name},
					Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")}}}}}}}}
			}
			running := ownedPod("agent-n", "DaemonSet", "agent", "n", fixture.WithLabels(map[string]string{"app": "agent"}))
			running.Namespace = "kube-system"
			c := cluster([]*corev1.Node{fixture.Node("n")}, []*corev1.Pod{running})
			c.DaemonSets = []appsv1.DaemonSet{ds("agent"), ds("logs")}
			return c
		}(),
		check: func(t *testing.T, r *Result) {
			parsed := roundTrip(t, r)
			var names []string
			for _, w := range parsed.Workloads {
				names = append(names, w.Kind+" "+w.Name)
				if w.Name == "logs" && qty(w.Pod.Requests, corev1.ResourceCPU) != "200m" {
					t.Errorf("logs requests = %v, want its template's 200m CPU", w.Pod.Requests)
				}
			}
			if slices.Sort(names); !slices.Equal(names, []string{"DaemonSet agent", "DaemonSet logs"}) {
				t.Errorf("workloads = %v, want the DaemonSet with pods once and the one without from its template", names)
			}
		},
		notes: []string{"DaemonSet kube-system/logs has no pods"},
	}, {
		name: "bad priorities are left out",
		c: func() *Cluster {
			c := cluster(nil, nil)
			c.Priorities = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "p"}, Data: map[string]string{"priorities": "10: ['(']"}}
			return c
		}(),
		check: func(t *testing.T, r *Result) {
			if r.Scenario.Priorities != nil {
				t.Errorf("priorities = %v, want none", r.Scenario.Priorities)
			}
		},
		notes: []string{`bad regular expression "("`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := defaultOptions()
			if tc.opts != nil {
				tc.opts(&o)
			}
			res, err := Convert(tc.c, o)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, res)
			tc.check(t, res)
			for _, want := range tc.notes {
				if !containsNote(res.Notes, want) {
					t.Errorf("notes %q lack %q", res.Notes, want)
				}
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no time", Options{Duration: time.Minute, MinSize: -1, MaxSize: -1}, "now: required"},
		{"no duration", Options{Now: now, MinSize: -1, MaxSize: -1}, "duration"},
		{"min above max", Options{Now: now, Duration: time.Minute, MinSize: 3, MaxSize: 2}, "above maxSize"},
		{"zero max", Options{Now: now, Duration: time.Minute, MinSize: -1, MaxSize: 0}, "maxSize"},
		{"sizes with cloud config", Options{Now: now, Duration: time.Minute, MinSize: 1, MaxSize: -1, NodeGroups: []scenario.NodeGroup{}}, "only for inferred groups"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Convert(&Cluster{}, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func qty(r scenario.Resources, name corev1.ResourceName) string {
	q, ok := r[name]
	if !ok {
		return ""
	}
	return q.String()
}

func workloadNamed(r *Result, name string) *scenario.Workload {
	for i := range r.Scenario.Workloads {
		if r.Scenario.Workloads[i].Name == name {
			return &r.Scenario.Workloads[i]
		}
	}
	return nil
}
