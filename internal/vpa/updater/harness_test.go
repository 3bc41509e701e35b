package updater_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/admission"
	"github.com/kscale/kscale/internal/vpa/admission/admissiontest"
	"github.com/kscale/kscale/internal/vpa/target"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// harness is the shared control plane, clients and webhook.
type harness struct {
	env      *testenv.Env
	c        client.Client
	targets  *updater.TargetReader
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
	// Register the node as a kubelet would, retrying conflicts with the
	// controllers that annotate new nodes, and lift the not-ready taint the
	// API server puts on new nodes (the node lifecycle controller is off).
	status := node.Status
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: node.Name}, n); err != nil {
			return err
		}
		n.Status = status
		if err := c.Status().Update(ctx, n); err != nil {
			return err
		}
		n.Spec.Taints = nil
		return c.Update(ctx, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The webhook accepts update mode InPlace and applies startup boosts, as
	// with --feature-gates=InPlace=true,CPUStartupBoost=true.
	admissiontest.StartWith(t, c, "default", func(cfg *admission.Config) {
		cfg.Features.InPlace, cfg.Features.CPUStartupBoost = true, true
	})
	kube := kubernetes.NewForConfigOrDie(env.Config)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: kube.EventsV1()})
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := broadcaster.StartRecordingToSinkWithContext(bctx); err != nil {
		t.Fatal(err)
	}
	// Targets are resolved through the cache, as `kscale vpa-updater` does.
	informers, err := cache.New(env.Config, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	informersDone := make(chan error, 1)
	go func() { informersDone <- informers.Start(bctx) }()
	t.Cleanup(func() {
		cancel()
		broadcaster.Shutdown()
		if err := <-informersDone; err != nil {
			t.Errorf("informers: %v", err)
		}
	})
	return &harness{env: env, c: c, scheme: scheme, targets: updater.NewTargetReader(informers, c, scheme),
		recorder: broadcaster.NewRecorder(scheme, "kscale-vpa-updater")}
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
	u, err := updater.New(cfg, updater.Deps{Client: h.c, Resolver: target.NewResolver(h.targets), Recorder: h.recorder, Registerer: reg, Clock: clk})
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

// series returns the value of the gauge or counter name with exactly the
// given labels, and whether it exists.
func series(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
					continue metrics
				}
			}
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue(), true
			}
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

// expectSeries fails t unless the series exists with value want.
func expectSeries(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string, want float64) {
	t.Helper()
	if got, ok := series(t, reg, name, labels); !ok || got != want {
		t.Errorf("%s%v = %v (exists %v), want %v", name, labels, got, ok, want)
	}
}
