package live_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// loopCloud has a "big" group for pods selecting pool=big and a "spare"
// group with one registered, empty node.
func loopCloud(t *testing.T, clk *clocktesting.FakeClock) *inmemory.Cloud {
	t.Helper()
	cloud := inmemory.New(clk)
	it, err := inmemory.LookupInstanceType("m5.2xlarge")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"big", "spare"} {
		err := cloud.AddGroup(inmemory.GroupConfig{ID: g, MaxSize: 3, Capacity: inmemory.Unlimited, BootTime: time.Hour,
			Template: cloudprovider.Template{InstanceTypes: []cloudprovider.InstanceType{it},
				Tags: map[string]string{cloudprovider.TagLabelPrefix + "pool": g}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := cloud.AddInstance("spare", "i-spare", true, 0); err != nil {
		t.Fatal(err)
	}
	return cloud
}

// The real loop, recorder, runner and status writer on the control plane:
// the pods that caused a scale-up, the pod nothing helps, the empty node
// scale-down removes and the status ConfigMap's scaleDown sections.
func TestLoopEventsAndStatusReachTheAPI(t *testing.T) {
	ctx := t.Context()
	const ns = "loopev"
	createNamespace(t, ns)
	big := fixture.WithNodeSelector(map[string]string{"pool": "big"})
	web0 := unschedulable(t, ns, "web-0", big, fixture.WithRequests("cpu", "1"))
	web1 := unschedulable(t, ns, "web-1", big, fixture.WithRequests("cpu", "1"))
	huge := unschedulable(t, ns, "huge", fixture.WithRequests("memory", "1Ti"))
	spare := fixture.Node("i-spare", fixture.WithProviderID(inmemory.ProviderID("spare", "i-spare")),
		fixture.WithNodeLabels(map[string]string{"pool": "spare"}))
	created, err := env.CreateNode(ctx, spare)
	if err != nil {
		t.Fatal(err)
	}
	// No node lifecycle controller here lifts the not-ready taint that
	// admission put on the new node; do it, so the node counts as ready.
	created.Spec.Taints = nil
	if _, err := env.Client.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c, _ := startCluster(t)
	waitForView(t, c, func(v *nodeautoscaler.View) bool {
		for _, n := range v.Nodes {
			if n.Name == "i-spare" && len(n.Spec.Taints) == 0 {
				return hasPod(v, ns, "huge")
			}
		}
		return false
	})
	clk := clocktesting.NewFakeClock(time.Now())
	b, events := live.NewEventBroadcasterWith(ctx, env.Client, live.EventOptions{StatusNamespace: ns, Clock: clk})
	t.Cleanup(b.Shutdown)
	rec, err := live.NewRecorder(live.RecorderConfig{Events: events, Cluster: c, Namespace: ns, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	o := options.Default()
	o.ScaleDown.UnneededTime, o.ScaleDown.DelayAfterAdd = time.Minute, -1
	loop, err := nodeautoscaler.New(nodeautoscaler.Config{Options: o, Provider: loopCloud(t, clk), Cluster: c, Recorder: rec,
		Clock: clk, Rand: rand.New(rand.NewPCG(1, 1)), ScaleDown: actuation.NewKube(env.Client)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := live.NewRunner(live.RunnerConfig{Loop: loop, Cluster: c, Clock: clk, ScanInterval: 10 * time.Second,
		Health: live.NewHealth(clk, live.HealthTimers{MaxInactivity: time.Minute, MaxFailing: time.Minute}), Status: live.NewStatusWriter(env.Client, ns)})
	if err != nil {
		t.Fatal(err)
	}
	r.Once(ctx)
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := cm.Data[live.StatusConfigMapKey]
	if strings.Count(status, "status: CandidatesPresent") != 2 || strings.Count(status, "status: NoCandidates") != 1 {
		t.Errorf("status after the first loop: want the cluster and spare with candidates, big without:\n%s", status)
	}
	clk.Step(2 * time.Minute)
	r.Once(ctx)
	// i-spare was marked; it goes at the first loop after
	// --node-delete-delay-after-taint.
	clk.Step(10 * time.Second)
	r.Once(ctx)
	rec.Record(ctx, nodeautoscaler.Event{Type: nodeautoscaler.EventBackoffCleared, Group: "sentinel"})
	got := eventsOn(t, ns, string(nodeautoscaler.EventBackoffCleared))
	triggered := "TriggeredScaleUp: pod triggered scale-up: [{big 0->1 (max: 3)}]"
	for _, want := range []string{
		"Pod/" + web0.Name + " " + triggered,
		"Pod/" + web1.Name + " " + triggered,
		"Pod/" + huge.Name + " NotTriggerScaleUp: pod didn't trigger scale-up: 2 Insufficient memory",
		"ConfigMap/" + live.StatusConfigMapName + " ScaledUpGroup: Scale-up: setting group big size to 1 instead of 0 (max: 3)",
		"ConfigMap/" + live.StatusConfigMapName + ` ScaleDownEmpty: Scale-down: removing empty node "i-spare"`,
		"ConfigMap/" + live.StatusConfigMapName + " ScaleDownEmpty: Scale-down: empty node i-spare removed",
	} {
		if got[want] != 1 {
			t.Errorf("%q recorded %d times, want once; events %v", want, got[want], got)
		}
	}
	nodeEvents := map[string]bool{}
	list, err := env.Client.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=i-spare"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range list.Items {
		nodeEvents[ev.Reason+": "+ev.Message] = ev.InvolvedObject.Kind == "Node" && ev.Type == corev1.EventTypeNormal
	}
	for _, want := range []string{"ScaleDown: marked the node as toBeDeleted/unschedulable", "ScaleDown: nodes removed by cluster autoscaler"} {
		if !nodeEvents[want] {
			t.Errorf("node i-spare lacks the event %q; has %v", want, nodeEvents)
		}
	}
}
