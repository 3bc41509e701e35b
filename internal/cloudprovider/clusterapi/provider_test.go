package clusterapi_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi"
	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

const ns = "capi"

// world is a control plane with the Cluster API CRDs, the stand-in
// machine controller and a provider.
type world struct {
	env      *testenv.Env
	dyn      dynamic.Interface
	sim      *machinesim.Simulator
	provider *clusterapi.Provider
}

func newWorld(t *testing.T, specs ...string) *world {
	t.Helper()
	return newWorldWith(t, nil, specs...)
}

// newWorldWith is newWorld whose provider's client goes through wrap.
func newWorldWith(t *testing.T, wrap func(http.RoundTripper) http.RoundTripper, specs ...string) *world {
	t.Helper()
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	if err := clusterapitest.Install(ctx, env); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(env.Config)
	factory := informers.NewSharedInformerFactory(env.Client, 0)
	nodes := factory.Core().V1().Nodes().Lister()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	t.Cleanup(factory.Shutdown)
	parsed, err := clusterapi.ParseDiscovery(specs)
	if err != nil {
		t.Fatal(err)
	}
	provCfg := rest.CopyConfig(env.Config)
	provCfg.Wrap(wrap)
	p, err := clusterapi.New(clusterapi.Config{Client: dynamic.NewForConfigOrDie(provCfg), Discovery: discovery.NewDiscoveryClientForConfigOrDie(env.Config), Nodes: nodes, Specs: parsed})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := machinesim.New(machinesim.Config{Management: dyn, Workload: env.Client, Flavor: clusterapitest.Flavor{},
		Timing: machinesim.Timing{BootTime: 500 * time.Millisecond, Interval: 100 * time.Millisecond},
		Shapes: map[string]machinesim.Shape{ns + "/md-a": simShape, ns + "/md-contract": simShape}})
	if err != nil {
		t.Fatal(err)
	}
	simCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = sim.Run(simCtx); close(done) }()
	t.Cleanup(func() {
		stop()
		<-done
		if errs := sim.Errors(); len(errs) > 0 {
			t.Errorf("machine simulator errors: %v", errors.Join(errs...))
		}
	})
	return &world{env: env, dyn: dyn, sim: sim, provider: p}
}

// simShape is the nodes of the groups the simulator boots.
var simShape = machinesim.Shape{Capacity: rl("4", "8Gi"), Labels: map[string]string{
	corev1.LabelInstanceTypeStable: "sim.large", corev1.LabelTopologyZone: "zone-b"}}

func rl(cpu, mem string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods: resource.MustParse("110")}
}

func (w *world) create(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	gvrs := map[string]schema.GroupVersionResource{"MachineDeployment": clusterapitest.MachineDeployments, "MachineSet": clusterapitest.MachineSets,
		"MachinePool": clusterapitest.MachinePools, clusterapitest.InfraKind: clusterapitest.InfraTemplates}
	for _, o := range objs {
		api := w.dyn.Resource(gvrs[o.GetKind()]).Namespace(o.GetNamespace())
		status, hasStatus := o.Object["status"]
		created, err := api.Create(t.Context(), o, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		if hasStatus {
			created.Object["status"] = status
			if _, err := api.UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("writing the status of %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
}

func (w *world) groups(t *testing.T) map[string]cloudprovider.NodeGroup {
	t.Helper()
	return machinesim.NodeGroups(t, w.provider)
}

// poll refreshes the provider until cond holds on the group's instances.
func (w *world) poll(t *testing.T, what, group string, cond func([]cloudprovider.Instance) bool) []cloudprovider.Instance {
	t.Helper()
	return machinesim.PollInstances(t, w.provider, what, group, cond)
}

func count(insts []cloudprovider.Instance, pred func(cloudprovider.Instance) bool) int {
	n := 0
	for _, i := range insts {
		if pred(i) {
			n++
		}
	}
	return n
}

func running(i cloudprovider.Instance) bool {
	return i.State == cloudprovider.InstanceRunning && !i.Placeholder && !strings.HasPrefix(i.ProviderID, clusterapi.SyntheticPrefix)
}

func md(name string, replicas, minSize, maxSize int, ann map[string]string) *unstructured.Unstructured {
	return clusterapitest.Scalable{Namespace: ns, Name: name, Replicas: replicas, Min: minSize, Max: maxSize, Annotations: ann}.Object()
}

// optionPrefix starts the per-group option annotations.
var optionPrefix = clusterapi.NamesFor(clusterapi.DefaultGroup).OptionsPrefix

func TestProviderAgainstRealCRDs(t *testing.T) {
	w := newWorld(t)
	infra := clusterapitest.InfraTemplate(ns, "md-infra")
	clusterapitest.SetInfraStatus(infra, map[string]string{"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"}, "arm64")
	w.create(t, clusterapitest.InfraTemplate(ns, "md-a"), clusterapitest.InfraTemplate(ns, "md-none"), infra,
		md("md-a", 1, 1, 3, nil),
		md("md-none", 0, 0, 2, nil),
		md("md-infra", 0, 0, 2, map[string]string{clusterapi.CPUAnnotation: "16", clusterapi.LabelsAnnotation: "pool=infra",
			optionPrefix + "scaledownunneededtime": "90s", optionPrefix + "scaledownutilizationthreshold": "0.25"}),
		md("md-bad", 0, 0, 0, map[string]string{clusterapi.NamesFor(clusterapi.DefaultGroup).MinSize: "x", clusterapi.NamesFor(clusterapi.DefaultGroup).MaxSize: "2"}),
		md("md-paused", 0, 0, 2, map[string]string{clusterapi.NamesFor(clusterapi.DefaultGroup).Paused: ""}),
		md("md-unmanaged", 0, 0, 0, nil),
		clusterapitest.Scalable{Kind: "MachinePool", Namespace: ns, Name: "pool", Replicas: 3, Max: 5,
			ProviderIDs: []string{"sim:///pool/0"}}.Object(),
	)

	t.Run("node groups come from annotated resources; a bad one is skipped alone", func(t *testing.T) {
		gs := w.groups(t)
		var ids []string
		for id := range gs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		want := []string{"MachineDeployment/capi/md-a", "MachineDeployment/capi/md-infra", "MachineDeployment/capi/md-none", "MachinePool/capi/pool"}
		if !slices.Equal(ids, want) {
			t.Fatalf("groups %v, want %v", ids, want)
		}
		a := gs["MachineDeployment/capi/md-a"]
		if a.MinSize != 1 || a.MaxSize != 3 || a.TargetSize != 1 {
			t.Errorf("md-a bounds %d..%d target %d", a.MinSize, a.MaxSize, a.TargetSize)
		}
		o := gs["MachineDeployment/capi/md-infra"].Options
		if o.ScaleDownUnneededTime == nil || *o.ScaleDownUnneededTime != 90*time.Second ||
			o.ScaleDownUtilizationThreshold == nil || *o.ScaleDownUtilizationThreshold != 0.25 || a.Options.Set() {
			t.Errorf("md-infra options %+v (md-a %+v), want its annotations' unneeded time and threshold", o, a.Options)
		}
	})
	t.Run("templates from annotations over infrastructure status; none says why", func(t *testing.T) {
		gs := w.groups(t)
		tmpl := gs["MachineDeployment/capi/md-infra"].Template
		if tmpl.UnavailableReason != "" || len(tmpl.InstanceTypes) != 1 {
			t.Fatalf("md-infra template %+v", tmpl)
		}
		c := tmpl.InstanceTypes[0].Capacity
		if c.Cpu().String() != "16" || c.Memory().String() != "32Gi" || c.Name("nvidia.com/gpu", resource.DecimalSI).String() != "1" || c.Pods().String() != "110" {
			t.Errorf("md-infra capacity %v: want cpu 16 (annotation wins), memory 32Gi and one GPU from status, 110 pods", c)
		}
		if tmpl.InstanceTypes[0].Name != "" {
			t.Errorf("instance type %q without a live node, want none", tmpl.InstanceTypes[0].Name)
		}
		if got := tmpl.Tags[cloudprovider.TagLabelPrefix+corev1.LabelArchStable]; got != "arm64" {
			t.Errorf("arch label %q, want arm64 from status.nodeInfo", got)
		}
		if got := tmpl.Tags[cloudprovider.TagLabelPrefix+"pool"]; got != "infra" {
			t.Errorf("pool label %q, want infra from the labels annotation", got)
		}
		none := gs["MachineDeployment/capi/md-none"].Template
		if !strings.Contains(none.UnavailableReason, "cannot scale from zero") || !strings.Contains(none.UnavailableReason, "no status.capacity") {
			t.Errorf("md-none reason %q", none.UnavailableReason)
		}
	})
	t.Run("a MachinePool lists its provider ids and placeholders", func(t *testing.T) {
		insts, err := w.provider.Instances(t.Context(), "MachinePool/capi/pool")
		if err != nil {
			t.Fatal(err)
		}
		if len(insts) != 3 || insts[0].ProviderID != "sim:///pool/0" || !insts[1].Placeholder || !insts[2].Placeholder {
			t.Fatalf("pool instances %+v", insts)
		}
	})
	var first string
	t.Run("placeholders go by lowering the MachinePool's replicas, never below its instances", func(t *testing.T) {
		const pool = "MachinePool/capi/pool"
		insts, err := w.provider.Instances(t.Context(), pool)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.provider.DeleteInstances(t.Context(), pool, []string{insts[2].ID}); err != nil {
			t.Fatal(err)
		}
		var se *cloudprovider.SizeError
		if err := w.provider.DecreaseTargetSize(t.Context(), pool, 2); !errors.As(err, &se) {
			t.Errorf("below the pool's one instance: %v, want a SizeError", err)
		}
		if err := w.provider.DecreaseTargetSize(t.Context(), pool, 1); err != nil {
			t.Fatal(err)
		}
		obj, err := w.dyn.Resource(clusterapitest.MachinePools).Namespace(ns).Get(t.Context(), "pool", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); n != 1 {
			t.Errorf("pool replicas %d, want 1", n)
		}
		if insts := w.poll(t, "the pool's placeholders gone", pool, func(is []cloudprovider.Instance) bool { return len(is) == 1 }); insts[0].Placeholder {
			t.Errorf("pool instances %+v", insts)
		}
	})
	t.Run("scaling up through the scale subresource boots machines into nodes", func(t *testing.T) {
		first = w.poll(t, "md-a's first machine running", "MachineDeployment/capi/md-a", func(is []cloudprovider.Instance) bool {
			return count(is, running) == 1 && len(is) == 1
		})[0].ID
		if err := w.provider.IncreaseSize(t.Context(), "MachineDeployment/capi/md-a", 1); err != nil {
			t.Fatal(err)
		}
		insts := w.poll(t, "two running md-a machines", "MachineDeployment/capi/md-a", func(is []cloudprovider.Instance) bool {
			return count(is, running) == 2 && len(is) == 2
		})
		for _, i := range insts {
			n, err := w.env.Client.CoreV1().Nodes().Get(t.Context(), strings.SplitN(i.ID, "/", 2)[1], metav1.GetOptions{})
			if err != nil || n.Spec.ProviderID != i.ProviderID {
				t.Fatalf("instance %+v: node %v, %v", i, n, err)
			}
		}
		tmpl := w.groups(t)["MachineDeployment/capi/md-a"].Template
		if len(tmpl.InstanceTypes) != 0 || !strings.Contains(tmpl.UnavailableReason, "cannot scale from zero") {
			t.Errorf("md-a has no capacity annotations: template %+v", tmpl)
		}
		if tmpl.Tags[cloudprovider.TagLabelPrefix+corev1.LabelInstanceTypeStable] != "sim.large" || tmpl.Zones[0] != "zone-b" {
			t.Errorf("md-a template does not carry its live node's type and zone: %+v", tmpl)
		}
	})
	t.Run("deleting a chosen machine removes exactly it", func(t *testing.T) {
		// The older machine: without the delete-machine annotation the
		// MachineSet would remove the newer one.
		victim := first
		if err := w.provider.DeleteInstances(t.Context(), "MachineDeployment/capi/md-a", []string{victim}); err != nil {
			t.Fatal(err)
		}
		left := w.poll(t, "md-a down to one machine", "MachineDeployment/capi/md-a", func(is []cloudprovider.Instance) bool { return len(is) == 1 })
		if left[0].ID == victim || !slices.Equal(w.sim.Deleted(), []string{victim}) {
			t.Errorf("kept %s, deleted %v; want %s deleted", left[0].ID, w.sim.Deleted(), victim)
		}
	})
	t.Run("failed machines are creation errors of their class", func(t *testing.T) {
		w.sim.Fail(ns+"/md-none", &machinesim.Failure{Reason: "InsufficientResources", Message: "no capacity in zone-b"})
		if err := w.provider.IncreaseSize(t.Context(), "MachineDeployment/capi/md-none", 1); err != nil {
			t.Fatal(err)
		}
		insts := w.poll(t, "a failed md-none machine", "MachineDeployment/capi/md-none", func(is []cloudprovider.Instance) bool {
			return len(is) == 1 && is[0].Error != nil
		})
		e := insts[0].Error
		if insts[0].State != cloudprovider.InstanceCreating || e.Class != cloudprovider.ErrorOutOfResources || e.Code != "InsufficientResources" || e.Message != "no capacity in zone-b" {
			t.Errorf("failed instance %+v error %+v", insts[0], e)
		}
		if err := w.provider.DeleteInstances(t.Context(), "MachineDeployment/capi/md-none", []string{insts[0].ID}); err != nil {
			t.Fatal(err)
		}
		w.poll(t, "the failed machine gone", "MachineDeployment/capi/md-none", func(is []cloudprovider.Instance) bool { return len(is) == 0 })
	})
	t.Run("an older MachineSet with replicas blocks scale-down", func(t *testing.T) {
		old := clusterapitest.Scalable{Kind: "MachineSet", Namespace: ns, Name: "md-a-old", Replicas: 0,
			Labels:      map[string]string{clusterapi.NamesFor(clusterapi.DefaultGroup).DeploymentName: "md-a"},
			Annotations: map[string]string{clusterapi.RevisionAnnotation: "0"}}.Object()
		old.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta2", Kind: "MachineDeployment", Name: "md-a", UID: "x"}})
		if err := unstructured.SetNestedField(old.Object, int64(1), "spec", "replicas"); err != nil {
			t.Fatal(err)
		}
		w.create(t, old)
		g := w.groups(t)["MachineDeployment/capi/md-a"]
		if !strings.Contains(g.ScaleDownBlocked, "rolling out") {
			t.Errorf("ScaleDownBlocked %q, want a rollout", g.ScaleDownBlocked)
		}
		if _, ok := w.groups(t)["MachineSet/capi/md-a-old"]; ok {
			t.Errorf("a MachineSet owned by a MachineDeployment must not be a group")
		}
	})
}

func TestDiscoverySpecsSelect(t *testing.T) {
	w := newWorld(t, "clusterapi:namespace="+ns+",clusterName=workload,team=a")
	a := md("md-team-a", 0, 0, 2, nil)
	a.SetLabels(map[string]string{"team": "a"})
	b := md("md-team-b", 0, 0, 2, nil)
	b.SetLabels(map[string]string{"team": "b"})
	w.create(t, a, b)
	gs := w.groups(t)
	if _, ok := gs["MachineDeployment/capi/md-team-a"]; !ok || len(gs) != 1 {
		t.Fatalf("%d groups %v, want md-team-a only", len(gs), gs)
	}
}
