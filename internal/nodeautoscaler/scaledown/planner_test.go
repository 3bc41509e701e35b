package scaledown

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
)

func pdb(name, app string, ns string, allowed int32) *policyv1.PodDisruptionBudget {
	p := fixture.PDB(name, app)
	p.Namespace = ns
	p.Status.DisruptionsAllowed = allowed
	return p
}

func antiAffinity(key, value string) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
			TopologyKey:   fixture.LabelHostname,
		}},
	}}
}

func emulatedSpread(group string) []fixture.PodOption {
	return []fixture.PodOption{
		fixture.WithLabels(map[string]string{"tsc-group": group}),
		fixture.WithTopologySpread(corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: fixture.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tsc-group": group}},
		}),
	}
}

func withEmptyDir(p *corev1.Pod) {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "scratch",
		VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
}

func annotate(k, v string) fixture.PodOption {
	return fixture.WithAnnotations(map[string]string{k: v})
}

type planCase struct {
	name     string
	world    *world
	cfg      func(*Config)
	unneeded []string
	blocked  map[string]Reason
}

func TestPlanBlockingReasons(t *testing.T) {
	jobKind := schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
	dsKind := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	tests := []planCase{
		{
			name: "empty first, then movable; the last one has nowhere to go",
			world: new(world).node("a", "g").node("b", "g").node("c", "g").
				pod("pb", "b", "500m").pod("pc", "c", "1"),
			unneeded: []string{"a", "b"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name:     "high utilization",
			world:    new(world).node("a", "g").node("b", "g").pod("p", "a", "3"),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonHighUtilization},
		},
		{
			name: "GPU node measured by GPU",
			world: new(world).node("gpu", "g", fixture.WithCapacity("nvidia.com/gpu", "1")).node("b", "g").
				pod("p", "gpu", "100m", fixture.WithRequests("cpu", "100m", "nvidia.com/gpu", "1")),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"gpu": ReasonHighUtilization},
		},
		{
			name: "a pod the simulator does not model (resource claims) has nowhere to move",
			world: new(world).node("a", "g").node("b", "g").pod("p", "a", "100m", func(p *corev1.Pod) {
				p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &p.Name}}
			}),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonNoPlaceToMove},
		},
		{
			name:     "bare pod",
			world:    new(world).node("a", "g").node("b", "g").barePod("p", "a", "100m"),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonBarePod},
		},
		{
			name:     "bare pod marked safe to evict moves",
			world:    new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1").barePod("p", "a", "100m", annotate(SafeToEvictAnnotation, "true")),
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name:     "safe-to-evict false",
			world:    new(world).node("a", "g").node("b", "g").pod("p", "a", "100m", annotate(SafeToEvictAnnotation, "false")),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonNotSafeToEvict},
		},
		{
			name:     "safe-to-evict on-completion keeps the node while the pod runs",
			world:    new(world).node("a", "g").node("b", "g").pod("p", "a", "100m", annotate(SafeToEvictAnnotation, "on-completion")),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonOnCompletionPod},
		},
		{
			name: "safe-to-evict on-completion: a finished pod no longer counts",
			world: new(world).node("a", "g").node("b", "g").
				pod("p", "a", "100m", annotate(SafeToEvictAnnotation, "on-completion"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
			unneeded: []string{"b", "a"},
		},
		{
			name:     "a pod annotated daemonset-pod is ignored like a DaemonSet pod",
			world:    new(world).node("a", "g").node("b", "g").barePod("p", "a", "100m", annotate(DaemonSetPodAnnotation, "true")),
			unneeded: []string{"b", "a"},
		},
		{
			name: "Job pod is unmovable even when safe to evict",
			world: new(world).node("a", "g").node("b", "g").
				barePod("p", "a", "100m", fixture.WithOwner(jobKind, "job", "uid-job"), annotate(SafeToEvictAnnotation, "true")),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonJobPod},
		},
		{
			name:     "kube-system pod without PDB",
			world:    new(world).node("a", "g").node("b", "g").pod("p", "a", "100m", fixture.InNamespace("kube-system")),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonSystemPod},
		},
		{
			name: "kube-system pod with a PDB moves",
			world: func() *world {
				w := new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1").pod("p", "a", "100m", fixture.InNamespace("kube-system"))
				w.pdbs = append(w.pdbs, pdb("p", "p", "kube-system", 1))
				return w
			}(),
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name:     "kube-system pod allowed by --skip-nodes-with-system-pods=false",
			world:    new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1").pod("p", "a", "100m", fixture.InNamespace("kube-system")),
			cfg:      func(c *Config) { c.SkipNodesWithSystemPods = false },
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name:     "local storage",
			world:    new(world).node("a", "g").node("b", "g").pod("p", "a", "100m", withEmptyDir),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonLocalStorage},
		},
		{
			name: "local storage listed as safe moves",
			world: new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1").
				pod("p", "a", "100m", withEmptyDir, annotate(SafeToEvictLocalVolumesAnnotation, "scratch")),
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name:     "local storage allowed by --skip-nodes-with-local-storage=false",
			world:    new(world).node("a", "g").node("b", "g").node("c", "g").pod("x", "c", "1").pod("p", "a", "100m", withEmptyDir),
			cfg:      func(c *Config) { c.SkipNodesWithLocalStorage = false },
			unneeded: []string{"b", "a"},
			blocked:  map[string]Reason{"c": ReasonNoPlaceToMove},
		},
		{
			name: "PDB allowing no disruption",
			world: func() *world {
				w := new(world).node("a", "g").node("b", "g").pod("p", "a", "100m")
				w.pdbs = append(w.pdbs, pdb("p", "p", "default", 0))
				return w
			}(),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonPDB},
		},
		{
			name: "scale-down-disabled annotation",
			world: func() *world {
				w := new(world).node("a", "g").node("b", "g")
				w.nodes[0].Node.Annotations = map[string]string{ScaleDownDisabledAnnotation: "true"}
				return w
			}(),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonScaleDownDisabled},
		},
		{
			name: "already being deleted",
			world: new(world).node("a", "g", fixture.WithTaints(fixture.Taint(clusterstate.ToBeDeletedTaint, "", corev1.TaintEffectNoSchedule))).
				node("b", "g"),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonBeingDeleted},
		},
		{
			name:     "node without group",
			world:    new(world).node("a", "").node("b", "g"),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonNotAutoscaled},
		},
		{
			name: "group blocked by its provider",
			world: func() *world {
				w := new(world).node("a", "g").node("b", "h")
				w.groups[0].Blocked = "MachineDeployment rollout in progress"
				return w
			}(),
			unneeded: []string{"b"},
			blocked:  map[string]Reason{"a": ReasonNodeGroupBlocked},
		},
		{
			name: "group minimum size",
			world: func() *world {
				w := new(world).node("a", "g").node("b", "g")
				w.groups[0].MinSize = 1
				return w
			}(),
			unneeded: []string{"a"},
			blocked:  map[string]Reason{"b": ReasonMinSize},
		},
		{
			name: "DaemonSet, mirror and finished pods do not count",
			world: new(world).node("a", "g").node("b", "g").pod("x", "b", "1").
				barePod("ds", "a", "100m", fixture.WithOwner(dsKind, "ds", "uid-ds")).
				barePod("mirror", "a", "100m", annotate(MirrorPodAnnotation, "x")).
				barePod("done", "a", "100m", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
			unneeded: []string{"a"},
			blocked:  map[string]Reason{"b": ReasonNoPlaceToMove},
		},
		{
			name: "anti-affinity leaves no place",
			world: new(world).node("a", "g").node("b", "g").
				pod("p1", "a", "100m", fixture.WithLabels(map[string]string{"app": "web"}), fixture.WithAffinity(antiAffinity("app", "web"))).
				pod("p2", "b", "100m", fixture.WithLabels(map[string]string{"app": "web"}), fixture.WithAffinity(antiAffinity("app", "web"))),
			unneeded: []string{},
			blocked:  map[string]Reason{"a": ReasonNoPlaceToMove, "b": ReasonNoPlaceToMove},
		},
		{
			name: "S12 blocked: emulated spread pods never cross zones",
			world: new(world).node("i-1", "ng-1", fixture.WithZone("a")).node("i-2", "ng-2", fixture.WithZone("b")).
				pod("pod-1", "i-1", "1m", emulatedSpread("rs")...).pod("pod-2", "i-2", "1m", emulatedSpread("rs")...),
			cfg:      func(c *Config) { c.SpreadLabel = "tsc-group" },
			unneeded: []string{},
			blocked:  map[string]Reason{"i-1": ReasonNoPlaceToMove, "i-2": ReasonNoPlaceToMove},
		},
		{
			name: "S12 allowed: same-zone destination",
			world: new(world).node("i-1", "ng-1", fixture.WithZone("a")).node("i-2", "ng-2", fixture.WithZone("b")).node("i-3", "ng-2", fixture.WithZone("b")).
				pod("pod-1", "i-1", "1m", emulatedSpread("rs")...).pod("pod-2", "i-2", "1m", emulatedSpread("rs")...).
				barePod("blocker", "i-3", "1m"),
			cfg:      func(c *Config) { c.SpreadLabel = "tsc-group" },
			unneeded: []string{"i-2"},
			blocked:  map[string]Reason{"i-1": ReasonNoPlaceToMove, "i-3": ReasonBarePod},
		},
	}
	runPlanCases(t, tests)
}

// runPlanCases plans every case and checks its unneeded and blocked nodes.
func runPlanCases(t *testing.T, tests []planCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			plan := runPlan(t, tc.world, cfg)
			if got := names(plan.Unneeded); !slices.Equal(got, tc.unneeded) {
				t.Errorf("unneeded = %v, want %v", got, tc.unneeded)
			}
			if got := reasons(plan.Blocked); !maps.Equal(got, tc.blocked) {
				t.Errorf("blocked = %v, want %v", got, tc.blocked)
			}
		})
	}
}

// runPlan plans on a fresh snapshot, and again on a loop-style snapshot
// (see samePlanOnLoopSnapshot) and with the pods by node (see
// samePlanWithPodsOn), which must give the same plan.
func runPlan(t *testing.T, w *world, cfg Config) Plan {
	t.Helper()
	in := w.input(t0)
	plan, err := mustPlanner(t, cfg).Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	samePlanOnLoopSnapshot(t, cfg, in, plan)
	samePlanWithPodsOn(t, cfg, in, plan)
	return plan
}
