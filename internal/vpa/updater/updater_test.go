package updater_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/admission/admissiontest"
	"github.com/kscale/kscale/internal/vpa/target"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// harness is the shared control plane, clients and webhook.
type harness struct {
	env      *testenv.Env
	c        client.Client
	scheme   *runtime.Scheme
	recorder events.EventRecorder
}

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func start(t *testing.T) *harness {
	t.Helper()
	env := testenv.Start(t, testenv.Options{
		Scheduler: true, ControllerManager: true,
		// Without kubelets the node lifecycle controller would mark the
		// node NotReady mid-test and change the pods' readiness.
		Controllers: []string{"*", "-node-lifecycle-controller"},
	})
	ctx := t.Context()
	if err := crds.Install(ctx, env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := vpav1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	node := fixture.Node("node-1", fixture.WithCapacity(corev1.ResourceCPU, "64"), fixture.WithCapacity(corev1.ResourceMemory, "256Gi"))
	if _, err := env.CreateNode(ctx, node); err != nil {
		t.Fatal(err)
	}
	// The API server taints new nodes not-ready; the (disabled) node
	// lifecycle controller would lift it once the node reports Ready.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: node.Name}, n); err != nil {
			return err
		}
		n.Spec.Taints = nil
		return c.Update(ctx, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	admissiontest.Start(t, c, "default")
	kube := kubernetes.NewForConfigOrDie(env.Config)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: kube.EventsV1()})
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := broadcaster.StartRecordingToSinkWithContext(bctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); broadcaster.Shutdown() })
	return &harness{env: env, c: c, scheme: scheme, recorder: broadcaster.NewRecorder(scheme, "kscale-vpa-updater")}
}

// newUpdater returns an updater restricted to ns, with the webhook's Lease
// in the default namespace, changed by mutate.
func (h *harness) newUpdater(t *testing.T, ns string, mutate func(*updater.Config)) (*updater.Updater, *prometheus.Registry) {
	t.Helper()
	return h.newUpdaterWithClock(t, ns, clock.RealClock{}, mutate)
}

// newUpdaterWithClock is newUpdater on the given clock.
func (h *harness) newUpdaterWithClock(t *testing.T, ns string, clk clock.WithTicker, mutate func(*updater.Config)) (*updater.Updater, *prometheus.Registry) {
	t.Helper()
	cfg := updater.DefaultConfig()
	cfg.VPAObjectNamespace, cfg.StatusNamespace = ns, "default"
	if mutate != nil {
		mutate(&cfg)
	}
	reg := prometheus.NewRegistry()
	u, err := updater.New(cfg, updater.Deps{Client: h.c, Resolver: target.NewResolver(h.c), Recorder: h.recorder, Registerer: reg, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return u, reg
}

// workload creates namespace ns (if needed) and a Deployment of replicas
// pods requesting 100m/128Mi, and marks its pods Running and Ready once
// they are scheduled, as a kubelet would.
func (h *harness) workload(t *testing.T, ns, name string, replicas int32) {
	h.workloadOn(t, ns, name, replicas, true)
}

// workloadOn is workload; resizeCapable false plays a kubelet that does not
// report container resources, so the API server refuses in-place resizes.
func (h *harness) workloadOn(t *testing.T, ns, name string, replicas int32, resizeCapable bool) {
	t.Helper()
	if err := h.c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	d := fixture.Deployment(name, replicas)
	d.Namespace = ns
	if err := h.c.Create(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	pods := h.waitPods(t, ns, name, int(replicas), func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	for i := range pods {
		h.markRunning(t, &pods[i], resizeCapable)
	}
}

func (h *harness) markRunning(t *testing.T, pod *corev1.Pod, resizeCapable bool) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p := &corev1.Pod{}
		if err := h.c.Get(t.Context(), client.ObjectKeyFromObject(pod), p); err != nil {
			return err
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &now
		p.Status.Conditions = append(p.Status.Conditions,
			corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now})
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: fixture.PauseImage, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
		if resizeCapable {
			// A kubelet that supports in-place resize reports the
			// resources it applied.
			p.Status.ContainerStatuses[0].Resources = p.Spec.Containers[0].Resources.DeepCopy()
		}
		return h.c.Status().Update(t.Context(), p)
	})
	if err != nil {
		t.Fatalf("marking pod %s running: %v", pod.Name, err)
	}
}

// waitPods waits until at least n pods of app name satisfy ok.
func (h *harness) waitPods(t *testing.T, ns, name string, n int, ok func(*corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	var match []corev1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var list corev1.PodList
		if err := h.c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{"app": name}); err != nil {
			return false, err
		}
		match = match[:0]
		for i := range list.Items {
			if ok(&list.Items[i]) {
				match = append(match, list.Items[i])
			}
		}
		return len(match) >= n, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d pods of %s/%s: %v (have %d)", n, ns, name, err, len(match))
	}
	return match
}

// terminating counts the pods of app name that were evicted.
func (h *harness) terminating(t *testing.T, ns, name string) []corev1.Pod {
	t.Helper()
	var list corev1.PodList
	if err := h.c.List(t.Context(), &list, client.InNamespace(ns), client.MatchingLabels{"app": name}); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil {
			out = append(out, p)
		}
	}
	return out
}

// outsideRange creates a VPA for Deployment targetName whose recommendation
// puts the 100m pods below the lower bound.
func (h *harness) outsideRange(t *testing.T, ns, name string, mode vpav1.UpdateMode, targetKind, targetName string) {
	t.Helper()
	vpa := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:    &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: targetKind, Name: targetName},
			UpdatePolicy: &vpav1.PodUpdatePolicy{UpdateMode: &mode},
		},
	}
	if err := h.c.Create(t.Context(), vpa); err != nil {
		t.Fatal(err)
	}
	vpa.Status.Recommendation = &vpav1.RecommendedPodResources{ContainerRecommendations: []vpav1.RecommendedContainerResources{{
		ContainerName: "app",
		Target:        rl("cpu", "500m", "memory", "128Mi"),
		LowerBound:    rl("cpu", "400m", "memory", "100Mi"),
		UpperBound:    rl("cpu", "1", "memory", "1Gi"),
	}}}
	if err := h.c.Status().Update(t.Context(), vpa); err != nil {
		t.Fatal(err)
	}
}

func counter(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func requestIs(cpu string) func(*corev1.Pod) bool {
	want := resource.MustParse(cpu)
	return func(p *corev1.Pod) bool {
		q := p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
		return p.DeletionTimestamp == nil && q.Cmp(want) == 0
	}
}

func TestUpdaterAgainstControlPlane(t *testing.T) {
	h := start(t)

	t.Run("evicts within the budget; the webhook sizes the replacements", func(t *testing.T) {
		h.workload(t, "budget", "web", 4)
		h.outsideRange(t, "budget", "web", vpav1.UpdateModeRecreate, "Deployment", "web")
		u, reg := h.newUpdater(t, "budget", nil)
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		evicted := h.terminating(t, "budget", "web")
		if len(evicted) != 2 {
			t.Fatalf("evicted %d pods, want 2 (tolerance 0.5 of 4)", len(evicted))
		}
		if got := counter(t, reg, "kscale_vpa_updater_evictions_total", "OutsideRecommendedRange"); got != 2 {
			t.Errorf("evictions_total{reason=OutsideRecommendedRange} = %v, want 2", got)
		}
		h.waitPods(t, "budget", "web", 2, requestIs("500m"))
		h.expectEvent(t, "budget", evicted[0].Name, "EvictedByVPA")
		// The next loop must not evict more: two of four are not running yet.
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "budget", "web")); n != 2 {
			t.Errorf("after a second loop %d pods are evicted, want still 2", n)
		}
	})

	t.Run("never evicts beyond a PodDisruptionBudget", func(t *testing.T) {
		h.workload(t, "pdb", "web", 4)
		pdb := fixture.PDB("web", "web", fixture.MaxUnavailable(intstr.FromInt32(1)))
		pdb.Namespace = "pdb"
		if err := h.c.Create(t.Context(), pdb); err != nil {
			t.Fatal(err)
		}
		h.waitPDB(t, pdb, 1)
		h.outsideRange(t, "pdb", "web", vpav1.UpdateModeRecreate, "Deployment", "web")
		u, reg := h.newUpdater(t, "pdb", nil)
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "pdb", "web")); n != 1 {
			t.Errorf("evicted %d pods, want 1 (the PDB allows one disruption)", n)
		}
		if got := counter(t, reg, "kscale_vpa_updater_eviction_failures_total", "DisruptionBudget"); got < 1 {
			t.Errorf("eviction_failures_total{cause=DisruptionBudget} = %v, want at least 1", got)
		}
	})

	t.Run("modes Off and Initial never evict", func(t *testing.T) {
		for _, mode := range []vpav1.UpdateMode{vpav1.UpdateModeOff, vpav1.UpdateModeInitial} {
			name := "mode-" + map[vpav1.UpdateMode]string{vpav1.UpdateModeOff: "off", vpav1.UpdateModeInitial: "initial"}[mode]
			h.workload(t, "modes", name, 4)
			h.outsideRange(t, "modes", name, mode, "Deployment", name)
		}
		u, reg := h.newUpdater(t, "modes", nil)
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"mode-off", "mode-initial"} {
			if n := len(h.terminating(t, "modes", name)); n != 0 {
				t.Errorf("%s: evicted %d pods, want 0", name, n)
			}
		}
		if got := counter(t, reg, "kscale_vpa_updater_loops_total", "Completed"); got != 1 {
			t.Errorf("loops_total{result=Completed} = %v, want 1", got)
		}
	})

	t.Run("VPAs pointing at nothing or below the top-level controller evict nothing", func(t *testing.T) {
		h.workload(t, "bad", "web", 4)
		h.outsideRange(t, "bad", "ghost", vpav1.UpdateModeRecreate, "Deployment", "nothing")
		var rsList appsv1.ReplicaSetList
		if err := h.c.List(t.Context(), &rsList, client.InNamespace("bad")); err != nil || len(rsList.Items) != 1 {
			t.Fatalf("listing the ReplicaSet: %v (%d)", err, len(rsList.Items))
		}
		h.outsideRange(t, "bad", "rs", vpav1.UpdateModeRecreate, "ReplicaSet", rsList.Items[0].Name)
		u, _ := h.newUpdater(t, "bad", nil)
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "bad", "web")); n != 0 {
			t.Errorf("evicted %d pods, want 0", n)
		}
	})

	t.Run("a stale admission Lease stops every eviction", func(t *testing.T) {
		h.workload(t, "stale", "web", 4)
		h.outsideRange(t, "stale", "web", vpav1.UpdateModeRecreate, "Deployment", "web")
		old := metav1.NewMicroTime(time.Now().Add(-2 * time.Minute))
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: updater.AdmissionStatusLeaseName, Namespace: "stale"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("gone"), RenewTime: &old}}
		if err := h.c.Create(t.Context(), lease); err != nil {
			t.Fatal(err)
		}
		u, reg := h.newUpdater(t, "stale", func(c *updater.Config) { c.StatusNamespace = "stale" })
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "stale", "web")); n != 0 {
			t.Errorf("evicted %d pods with a stale Lease, want 0", n)
		}
		if got := counter(t, reg, "kscale_vpa_updater_loops_total", "SkippedAdmissionNotReady"); got != 1 {
			t.Errorf("loops_total{result=SkippedAdmissionNotReady} = %v, want 1", got)
		}
		fresh, _ := h.newUpdater(t, "stale", nil)
		if err := fresh.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "stale", "web")); n != 2 {
			t.Errorf("with the live webhook's Lease, evicted %d pods, want 2", n)
		}
	})

	t.Run("the rate limit spaces evictions", func(t *testing.T) {
		h.workload(t, "rate", "web", 4)
		h.outsideRange(t, "rate", "web", vpav1.UpdateModeRecreate, "Deployment", "web")
		clk := clocktesting.NewFakeClock(time.Now())
		u, _ := h.newUpdaterWithClock(t, "rate", clk, func(c *updater.Config) { c.EvictionRateLimit, c.EvictionRateBurst = 0.2, 1 })
		done := make(chan error, 1)
		go func() { done <- u.RunOnce(t.Context()) }()
		// The first eviction uses the burst; the second waits for the clock.
		h.waitFor(t, func() bool { return len(h.terminating(t, "rate", "web")) == 1 && clk.HasWaiters() })
		clk.Step(4900 * time.Millisecond)
		if n := len(h.terminating(t, "rate", "web")); n != 1 || !clk.HasWaiters() {
			t.Fatalf("4.9s after the first eviction: %d evicted, limiter waiting %v; want 1 and true", n, clk.HasWaiters())
		}
		clk.Step(100 * time.Millisecond)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "rate", "web")); n != 2 {
			t.Errorf("after 5s: %d evicted, want 2", n)
		}
	})

	t.Run("InPlaceOrRecreate resizes through pods/resize without evicting", func(t *testing.T) {
		h.expectResizeSubresource(t)
		h.workload(t, "inplace", "web", 2)
		h.outsideRange(t, "inplace", "web", vpav1.UpdateModeInPlaceOrRecreate, "Deployment", "web")
		u, reg := h.newUpdater(t, "inplace", nil)
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "inplace", "web")); n != 0 {
			t.Errorf("evicted %d pods, want 0", n)
		}
		resized := h.waitPods(t, "inplace", "web", 1, requestIs("500m"))
		if resized[0].Annotations[updater.InPlaceUpdatedAnnotation] != "true" {
			t.Errorf("resized pod annotations = %v, want %s", resized[0].Annotations, updater.InPlaceUpdatedAnnotation)
		}
		if got := counter(t, reg, "kscale_vpa_updater_in_place_updates_total", "Applied"); got != 1 {
			t.Errorf("in_place_updates_total{result=Applied} = %v, want 1 (budget: 1 of 2)", got)
		}
		h.expectEvent(t, "inplace", resized[0].Name, "InPlaceResizedByVPA")
	})

	t.Run("InPlaceOrRecreate evicts when the node cannot resize", func(t *testing.T) {
		h.workloadOn(t, "fallback", "web", 2, false)
		h.outsideRange(t, "fallback", "web", vpav1.UpdateModeInPlaceOrRecreate, "Deployment", "web")
		u, reg := h.newUpdater(t, "fallback", nil)
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "fallback", "web")); n != 1 {
			t.Errorf("evicted %d pods, want 1", n)
		}
		if got := counter(t, reg, "kscale_vpa_updater_evictions_total", "ResizeFallback"); got != 1 {
			t.Errorf("evictions_total{reason=ResizeFallback} = %v, want 1", got)
		}
	})
}

// waitFor polls cond until it holds, at most a minute.
func (h *harness) waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting: %v", err)
	}
}

func (h *harness) waitPDB(t *testing.T, pdb *policyv1.PodDisruptionBudget, allowed int32) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got := &policyv1.PodDisruptionBudget{}
		if err := h.c.Get(ctx, client.ObjectKeyFromObject(pdb), got); err != nil {
			return false, err
		}
		return got.Status.ObservedGeneration == got.Generation && got.Status.DisruptionsAllowed == allowed, nil
	})
	if err != nil {
		t.Fatalf("waiting for PDB %s to allow %d disruptions: %v", pdb.Name, allowed, err)
	}
}

func (h *harness) expectEvent(t *testing.T, ns, pod, reason string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var list eventsv1.EventList
		if err := h.c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == pod && e.Reason == reason {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("waiting for event %s on pod %s/%s: %v", reason, ns, pod, err)
	}
}

// expectResizeSubresource checks that kube-apiserver serves pods/resize.
func (h *harness) expectResizeSubresource(t *testing.T) {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(h.env.Config)
	list, err := kube.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == "pods/resize" {
			return
		}
	}
	t.Fatal(fmt.Errorf("kube-apiserver does not serve pods/resize"))
}
