package mcm_test

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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/mcm"
	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

const ns = "shoot--p--c"

// world is a control cluster with the real MCM CRDs and a separate
// target cluster, joined by the stand-in MCM; and the provider.
type world struct {
	control, target *testenv.Env
	dyn             dynamic.Interface
	sim             *machinesim.Simulator
	provider        *mcm.Provider
}

func newWorld(t *testing.T, groups ...string) *world {
	t.Helper()
	return newWorldWith(t, nil, groups...)
}

// newWorldWith is newWorld whose provider's client goes through wrap.
func newWorldWith(t *testing.T, wrap func(http.RoundTripper) http.RoundTripper, groups ...string) *world {
	t.Helper()
	w := &world{control: testenv.Start(t, testenv.Options{}), target: testenv.Start(t, testenv.Options{})}
	ctx := t.Context()
	if err := mcmtest.Install(ctx, w.control); err != nil {
		t.Fatal(err)
	}
	if _, err := w.control.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.dyn = dynamic.NewForConfigOrDie(w.control.Config)
	if err := mcmtest.CreateMCMDeployment(ctx, w.dyn, ns, 1); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(w.target.Client, 0)
	nodes := factory.Core().V1().Nodes().Lister()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	t.Cleanup(factory.Shutdown)
	parsed, err := mcm.ParseGroups(groups, ns)
	if err != nil {
		t.Fatal(err)
	}
	provCfg := rest.CopyConfig(w.control.Config)
	provCfg.Wrap(wrap)
	w.provider, err = mcm.New(mcm.Config{Client: dynamic.NewForConfigOrDie(provCfg), Discovery: discovery.NewDiscoveryClientForConfigOrDie(w.control.Config),
		Nodes: nodes, Namespace: ns, Groups: parsed})
	if err != nil {
		t.Fatal(err)
	}
	w.sim, err = machinesim.New(machinesim.Config{Management: w.dyn, Workload: w.target.Client,
		Flavor: mcmtest.Flavor{CreationTimeout: 3 * time.Second}, Timing: machinesim.Timing{BootTime: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
		Shapes: map[string]machinesim.Shape{ns + "/" + ns + "-a-z1": {Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"),
			corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}}}})
	if err != nil {
		t.Fatal(err)
	}
	simCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = w.sim.Run(simCtx); close(done) }()
	t.Cleanup(func() {
		stop()
		<-done
		if errs := w.sim.Errors(); len(errs) > 0 {
			t.Errorf("machine simulator errors: %v", errors.Join(errs...))
		}
	})
	return w
}

func (w *world) create(t *testing.T, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		gvr := mcm.MachineDeployments
		if o.GetKind() == "MachineClass" {
			gvr = mcm.MachineClasses
		}
		if _, err := w.dyn.Resource(gvr).Namespace(ns).Create(t.Context(), o, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

func (w *world) groups(t *testing.T) map[string]cloudprovider.NodeGroup {
	t.Helper()
	return machinesim.NodeGroups(t, w.provider)
}

func (w *world) poll(t *testing.T, what, group string, cond func([]cloudprovider.Instance) bool) []cloudprovider.Instance {
	t.Helper()
	return machinesim.PollInstances(t, w.provider, what, group, cond)
}

func (w *world) md(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	md, err := w.dyn.Resource(mcm.MachineDeployments).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return md
}

func (w *world) machine(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	m, err := w.dyn.Resource(mcm.Machines).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func running(is []cloudprovider.Instance) int {
	n := 0
	for _, i := range is {
		if i.State == cloudprovider.InstanceRunning && strings.HasPrefix(i.ProviderID, "sim:///") {
			n++
		}
	}
	return n
}

var capacity = map[string]string{"cpu": "4", "memory": "8Gi", "gpu": "0", "example.com/dongle": "2"}

func TestProviderAgainstRealCRDs(t *testing.T) {
	a, b, none := ns+"-a-z1", ns+"-a-z2", ns+"-none-z1"
	w := newWorld(t, "1:3:"+ns+"."+a, "0:2:"+ns+"."+b, "0:2:"+ns+"."+none, "0:0:"+ns+".hidden", "0:2:"+ns+".missing")
	pool := map[string]string{mcm.PoolLabel: "a", "topology.kubernetes.io/zone": "z1"}
	taint := corev1.Taint{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule}
	w.create(t,
		mcmtest.Class{Namespace: ns, Name: "class-a-z1", Capacity: capacity, InstanceType: "m5.xlarge", Region: "eu-1", Zone: "eu-1a", Arch: "arm64"}.Object(),
		mcmtest.Class{Namespace: ns, Name: "class-a-z2", Capacity: capacity, InstanceType: "m5.xlarge", Region: "eu-1", Zone: "eu-1b"}.Object(),
		mcmtest.Class{Namespace: ns, Name: "class-none", NoTemplate: true}.Object(),
		mcmtest.Deployment{Namespace: ns, Name: a, Class: "class-a-z1", Replicas: 1, NodeLabels: pool, Taints: []corev1.Taint{taint}}.Object(),
		mcmtest.Deployment{Namespace: ns, Name: b, Class: "class-a-z2", NodeLabels: pool}.Object(),
		mcmtest.Deployment{Namespace: ns, Name: none, Class: "class-none"}.Object(),
		mcmtest.Deployment{Namespace: ns, Name: "hidden", Class: "class-none"}.Object(),
	)

	t.Run("node groups are the --nodes MachineDeployments; max 0 and missing ones are left out", func(t *testing.T) {
		gs := w.groups(t)
		var ids []string
		for id := range gs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		if want := []string{a, b, none}; !slices.Equal(ids, want) {
			t.Fatalf("groups %v, want %v", ids, want)
		}
		if g := gs[a]; g.MinSize != 1 || g.MaxSize != 3 || g.TargetSize != 1 {
			t.Errorf("%s bounds %d..%d target %d", a, g.MinSize, g.MaxSize, g.TargetSize)
		}
	})
	t.Run("templates come from the MachineClass nodeTemplate and the node template", func(t *testing.T) {
		tmpl := w.groups(t)[a].Template
		if tmpl.UnavailableReason != "" || len(tmpl.InstanceTypes) != 1 {
			t.Fatalf("template %+v", tmpl)
		}
		it := tmpl.InstanceTypes[0]
		c := it.Capacity
		if it.Name != "m5.xlarge" || it.Architecture != "arm64" || c.Cpu().String() != "4" || c.Memory().String() != "8Gi" ||
			c.Pods().String() != "110" || c.Name("example.com/dongle", resource.DecimalSI).String() != "2" {
			t.Errorf("instance type %+v", it)
		}
		if _, ok := c["nvidia.com/gpu"]; ok {
			t.Errorf("a zero gpu must not become nvidia.com/gpu: %v", c)
		}
		if tmpl.Region != "eu-1" || !slices.Equal(tmpl.Zones, []string{"eu-1a"}) || tmpl.Tags[cloudprovider.TagLabelPrefix+mcm.PoolLabel] != "a" {
			t.Errorf("region %q zones %v tags %v", tmpl.Region, tmpl.Zones, tmpl.Tags)
		}
		if len(tmpl.Taints) != 1 || tmpl.Taints[0] != taint {
			t.Errorf("taints %v, want %v", tmpl.Taints, taint)
		}
		if r := w.groups(t)[none].Template.UnavailableReason; !strings.Contains(r, "has no nodeTemplate") {
			t.Errorf("reason without a nodeTemplate %q", r)
		}
	})
	var first string
	t.Run("scaling up raises replicas and machines boot into target nodes", func(t *testing.T) {
		first = w.poll(t, "the first machine running", a, func(is []cloudprovider.Instance) bool { return running(is) == 1 && len(is) == 1 })[0].ID
		// The next machine must be created in a later second, so MCM's
		// order (older first) tells the two apart.
		created := w.machine(t, first).GetCreationTimestamp().Add(time.Second)
		if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
			return time.Now().After(created), nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := w.provider.IncreaseSize(t.Context(), a, 1); err != nil {
			t.Fatal(err)
		}
		insts := w.poll(t, "two running machines", a, func(is []cloudprovider.Instance) bool { return running(is) == 2 && len(is) == 2 })
		for _, i := range insts {
			n, err := w.target.Client.CoreV1().Nodes().Get(t.Context(), i.ID, metav1.GetOptions{})
			if err != nil || n.Spec.ProviderID != i.ProviderID {
				t.Fatalf("instance %+v: node %v, %v", i, n, err)
			}
		}
	})
	t.Run("a scale-down removes exactly the chosen machine, not MCM's default", func(t *testing.T) {
		// MCM's default order removes the oldest Running machine; choose
		// the newest.
		insts, _ := w.provider.Instances(t.Context(), a)
		var victim string
		for _, i := range insts {
			if i.ID != first {
				victim = i.ID
			}
		}
		// The new machine's phase turns Running a pass after its node is
		// ready; until then MCM's order (Pending before Running) would pick it.
		if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return (mcmtest.Flavor{}).DeleteOrder(w.machine(t, first), w.machine(t, victim)) < 0, nil
		}); err != nil {
			t.Fatalf("MCM's default order must pick %s before %s for this test to mean anything: %v", first, victim, err)
		}
		if err := w.provider.DeleteInstances(t.Context(), a, []string{victim}); err != nil {
			t.Fatal(err)
		}
		// The stand-in removes the machine's finalizer a pass later, so it
		// is still readable here.
		if p := w.machine(t, victim).GetAnnotations()[mcm.PriorityAnnotation]; p != "1" {
			t.Errorf("victim's %s = %q, want 1", mcm.PriorityAnnotation, p)
		}
		md := w.md(t, a)
		if v := md.GetAnnotations()[mcm.TriggerDeletionAnnotation]; v != "" && !strings.HasPrefix(v, victim+"~") {
			t.Errorf("trigger-deletion annotation %q", v)
		}
		if md.GetAnnotations()[mcm.ReplicaChangeAnnotation] == "" {
			t.Errorf("no %s", mcm.ReplicaChangeAnnotation)
		}
		left := w.poll(t, "one machine left", a, func(is []cloudprovider.Instance) bool { return len(is) == 1 })
		if left[0].ID != first || !slices.Equal(w.sim.Deleted(), []string{ns + "/" + victim}) {
			t.Errorf("kept %s, deleted %v; want %s deleted", left[0].ID, w.sim.Deleted(), victim)
		}
	})
	t.Run("a stock-out is an out-of-resources creation error; failed machines are replaced", func(t *testing.T) {
		w.sim.Fail(ns+"/"+b, &machinesim.Failure{Reason: "ResourceExhausted", Message: "InsufficientInstanceCapacity in eu-1b"})
		if err := w.provider.IncreaseSize(t.Context(), b, 1); err != nil {
			t.Fatal(err)
		}
		insts := w.poll(t, "a failed machine", b, func(is []cloudprovider.Instance) bool { return len(is) == 1 && is[0].Error != nil })
		e := insts[0].Error
		if insts[0].State != cloudprovider.InstanceCreating || insts[0].ProviderID != mcm.RequestedPrefix+insts[0].ID ||
			e.Class != cloudprovider.ErrorOutOfResources || e.Code != "ResourceExhausted" || !strings.Contains(e.Message, "InsufficientInstanceCapacity") {
			t.Errorf("failed instance %+v error %+v", insts[0], e)
		}
		// After the creation timeout MCM fails the machine and its
		// MachineSet replaces it with a new one.
		w.poll(t, "a replacement machine", b, func(is []cloudprovider.Instance) bool {
			return len(is) == 1 && is[0].ID != insts[0].ID && is[0].Error != nil
		})
		cur, _ := w.provider.Instances(t.Context(), b)
		if err := w.provider.DeleteInstances(t.Context(), b, []string{cur[0].ID}); err != nil {
			t.Fatal(err)
		}
		w.poll(t, "no machine left", b, func(is []cloudprovider.Instance) bool { return len(is) == 0 })
		w.sim.Fail(ns+"/"+b, nil)
	})
	t.Run("a preserved machine and a rollout refuse scale-down; an offline MCM halts", func(t *testing.T) {
		m := w.machine(t, first)
		m.SetAnnotations(map[string]string{mcm.PreserveAnnotation: "now", mcm.PriorityAnnotation: "3"})
		if _, err := w.dyn.Resource(mcm.Machines).Namespace(ns).Update(t.Context(), m, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := w.provider.IncreaseSize(t.Context(), a, 1); err != nil {
			t.Fatal(err)
		}
		w.groups(t)
		if err := w.provider.DeleteInstances(t.Context(), a, []string{first}); err == nil || !strings.Contains(err.Error(), "preserved") {
			t.Errorf("deleting a preserved machine: %v", err)
		}
		md := w.md(t, a)
		_ = unstructured.SetNestedSlice(md.Object, []any{map[string]any{"type": "Progressing", "status": "True", "reason": "MachineSetUpdated"}}, "status", "conditions")
		if _, err := w.dyn.Resource(mcm.MachineDeployments).Namespace(ns).UpdateStatus(t.Context(), md, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		g := w.groups(t)[a]
		if !strings.Contains(g.ScaleDownBlocked, "rolling out") {
			t.Errorf("ScaleDownBlocked %q", g.ScaleDownBlocked)
		}
		if err := w.provider.DecreaseTargetSize(t.Context(), a, 1); err == nil {
			t.Errorf("DecreaseTargetSize during a rollout succeeded")
		}
		d, err := w.dyn.Resource(mcm.Deployments).Namespace(ns).Get(t.Context(), mcm.DeploymentName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := mcmtest.SetMCMAvailable(t.Context(), w.dyn, d, 0); err != nil {
			t.Fatal(err)
		}
		if err := w.provider.Refresh(t.Context()); !errors.Is(err, mcm.ErrMCMOffline) || !cloudprovider.IsAPIError(err) {
			t.Errorf("Refresh with MCM offline: %v", err)
		}
	})
}
