package admission_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/admission/admissiontest"
)

func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, env *testenv.Env) client.Client {
	t.Helper()
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
	return c
}

// vpaFor returns a VPA targeting Deployment name in mode, with policy.
func vpaFor(ns, name string, mode vpav1.UpdateMode, policy *vpav1.PodResourcePolicy) *vpav1.VerticalPodAutoscaler {
	return &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:      &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			UpdatePolicy:   &vpav1.PodUpdatePolicy{UpdateMode: &mode},
			ResourcePolicy: policy,
		},
	}
}

// scenario6Status is the recommender's output of vpa-hpa.md §8 scenario 6.
func scenario6Status() vpav1.VerticalPodAutoscalerStatus {
	target := rl("cpu", "500m", "memory", "380258472")
	return vpav1.VerticalPodAutoscalerStatus{Recommendation: &vpav1.RecommendedPodResources{
		ContainerRecommendations: []vpav1.RecommendedContainerResources{{
			ContainerName: "app", Target: target, LowerBound: target, UpperBound: target,
			UncappedTarget: rl("cpu", "587m", "memory", "380258472"),
		}},
	}}
}

// createVPA creates the VPA and then writes its status, as the recommender would.
func createVPA(t *testing.T, c client.Client, vpa *vpav1.VerticalPodAutoscaler, status *vpav1.VerticalPodAutoscalerStatus) {
	t.Helper()
	if err := c.Create(t.Context(), vpa); err != nil {
		t.Fatalf("creating VPA %s: %v", vpa.Name, err)
	}
	if status != nil {
		vpa.Status = *status
		if err := c.Status().Update(t.Context(), vpa); err != nil {
			t.Fatalf("writing VPA %s status: %v", vpa.Name, err)
		}
	}
}

// scenario6Deployment runs 2 pods requesting 100m/128Mi with limits 200m/256Mi.
func scenario6Deployment(ns, name string) *appsv1.Deployment {
	d := fixture.Deployment(name, 2, fixture.WithRequests("cpu", "100m", "memory", "128Mi"), fixture.WithLimits("cpu", "200m", "memory", "256Mi"))
	d.Namespace = ns
	return d
}

// podsOf waits for n pods with label app=name and returns them.
func podsOf(t *testing.T, c client.Client, ns, name string, n int) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"app": name}); err != nil {
			return false, err
		}
		return len(pods.Items) >= n, nil
	})
	if err != nil {
		t.Fatalf("waiting for %d pods of %s/%s: %v (have %d)", n, ns, name, err, len(pods.Items))
	}
	return pods.Items
}

func expectResources(t *testing.T, pod corev1.Pod, requests, limits corev1.ResourceList) {
	t.Helper()
	got := pod.Spec.Containers[0].Resources
	for label, pair := range map[string][2]corev1.ResourceList{"requests": {got.Requests, requests}, "limits": {got.Limits, limits}} {
		if len(pair[0]) != len(pair[1]) {
			t.Errorf("pod %s %s = %v, want %v", pod.Name, label, pair[0], pair[1])
			continue
		}
		for name, want := range pair[1] {
			if have := pair[0][name]; have.Cmp(want) != 0 {
				t.Errorf("pod %s %s %s = %s, want %s", pod.Name, label, name, have.String(), want.String())
			}
		}
	}
}

func TestWebhookAgainstControlPlane(t *testing.T) {
	env := testenv.Start(t, testenv.Options{ControllerManager: true})
	if err := crds.Install(t.Context(), env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, env)
	wh := admissiontest.Start(t, c, "default")
	ns := "default"
	capCPU := &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{ContainerName: "app", MaxAllowed: rl("cpu", "500m")}}}
	origRequests, origLimits := rl("cpu", "100m", "memory", "128Mi"), rl("cpu", "200m", "memory", "256Mi")

	t.Run("scenario 6: RequestsAndLimits sets requests and scales limits", func(t *testing.T) {
		st := scenario6Status()
		createVPA(t, c, vpaFor(ns, "web", vpav1.UpdateModeRecreate, capCPU), &st)
		if err := c.Create(t.Context(), scenario6Deployment(ns, "web")); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, ns, "web", 2) {
			expectResources(t, p, rl("cpu", "500m", "memory", "380258472"), rl("cpu", "1000m", "memory", "760516944"))
			if got := p.Annotations["vpaObservedContainers"]; got != "app" {
				t.Errorf("vpaObservedContainers = %q, want app", got)
			}
			want := "Pod resources updated by web: container 0: cpu request, memory request, cpu limit, memory limit"
			if got := p.Annotations["vpaUpdates"]; got != want {
				t.Errorf("vpaUpdates = %q, want %q", got, want)
			}
		}
	})

	t.Run("scenario 6: RequestsOnly caps requests at the limits and keeps limits", func(t *testing.T) {
		st := scenario6Status()
		policy := &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
			ContainerName: "*", ControlledValues: ptr(vpav1.ContainerControlledValuesRequestsOnly)}}}
		createVPA(t, c, vpaFor(ns, "ro", vpav1.UpdateModeRecreate, policy), &st)
		if err := c.Create(t.Context(), scenario6Deployment(ns, "ro")); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, ns, "ro", 2) {
			expectResources(t, p, rl("cpu", "200m", "memory", "268435456"), origLimits)
		}
	})

	t.Run("scenario 6: mode Off patches nothing", func(t *testing.T) {
		st := scenario6Status()
		createVPA(t, c, vpaFor(ns, "off", vpav1.UpdateModeOff, capCPU), &st)
		if err := c.Create(t.Context(), scenario6Deployment(ns, "off")); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, ns, "off", 2) {
			expectResources(t, p, origRequests, origLimits)
			if _, ok := p.Annotations["vpaObservedContainers"]; ok {
				t.Errorf("pod %s of an Off VPA was annotated: %v", p.Name, p.Annotations)
			}
		}
	})

	t.Run("scenario 6: mode Initial patches like Recreate", func(t *testing.T) {
		st := scenario6Status()
		createVPA(t, c, vpaFor(ns, "initial", vpav1.UpdateModeInitial, capCPU), &st)
		if err := c.Create(t.Context(), scenario6Deployment(ns, "initial")); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, ns, "initial", 2) {
			expectResources(t, p, rl("cpu", "500m", "memory", "380258472"), rl("cpu", "1000m", "memory", "760516944"))
		}
	})

	t.Run("a container LimitRange caps the request through the limit ratio", func(t *testing.T) {
		lrNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "limited"}}
		if err := c.Create(t.Context(), lrNS); err != nil {
			t.Fatal(err)
		}
		lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "max", Namespace: "limited"},
			Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: rl("cpu", "800m", "memory", "1Gi")}}}}
		if err := c.Create(t.Context(), lr); err != nil {
			t.Fatal(err)
		}
		st := scenario6Status()
		createVPA(t, c, vpaFor("limited", "web", vpav1.UpdateModeRecreate, nil), &st)
		if err := c.Create(t.Context(), scenario6Deployment("limited", "web")); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, "limited", "web", 2) {
			// cpu 500m × 2 = 1000m > 800m, so the request is 400m; memory
			// 380258472 × 2 fits under 1Gi.
			expectResources(t, p, rl("cpu", "400m", "memory", "380258472"), rl("cpu", "800m", "memory", "760516944"))
		}
	})

	t.Run("a VPA without a recommendation only annotates", func(t *testing.T) {
		createVPA(t, c, vpaFor(ns, "fresh", vpav1.UpdateModeRecreate, nil), nil)
		if err := c.Create(t.Context(), scenario6Deployment(ns, "fresh")); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, ns, "fresh", 2) {
			expectResources(t, p, origRequests, origLimits)
			if got := p.Annotations["vpaObservedContainers"]; got != "app" {
				t.Errorf("vpaObservedContainers = %q, want app", got)
			}
			if _, ok := p.Annotations["vpaUpdates"]; ok {
				t.Errorf("vpaUpdates set without a recommendation: %v", p.Annotations)
			}
		}
	})

	t.Run("a VPA pointing at nothing changes no pod, and bare pods are admitted unchanged", func(t *testing.T) {
		st := scenario6Status()
		ghost := vpaFor(ns, "ghost", vpav1.UpdateModeRecreate, nil)
		createVPA(t, c, ghost, &st)
		bare := fixture.Pod("bare", fixture.WithLabels(map[string]string{"app": "ghost"}))
		if err := c.Create(t.Context(), bare); err != nil {
			t.Fatal(err)
		}
		expectResources(t, *bare, origRequests, nil)
		if len(bare.Annotations) != 0 {
			t.Errorf("bare pod annotated: %v", bare.Annotations)
		}
	})

	t.Run("a VPA pointing below the top-level controller changes no pod", func(t *testing.T) {
		d := scenario6Deployment(ns, "below")
		d.Spec.Replicas = ptr(int32(1))
		if err := c.Create(t.Context(), d); err != nil {
			t.Fatal(err)
		}
		podsOf(t, c, ns, "below", 1)
		var rsList appsv1.ReplicaSetList
		if err := c.List(t.Context(), &rsList, client.InNamespace(ns), client.MatchingLabels{"app": "below"}); err != nil || len(rsList.Items) != 1 {
			t.Fatalf("listing the ReplicaSet: %v (%d)", err, len(rsList.Items))
		}
		v := vpaFor(ns, "below", vpav1.UpdateModeRecreate, nil)
		v.Spec.TargetRef.Kind, v.Spec.TargetRef.Name = "ReplicaSet", rsList.Items[0].Name
		st := scenario6Status()
		createVPA(t, c, v, &st)
		// Scale up so that a pod is created while the VPA exists. A merge
		// patch of the replicas alone does not conflict with the
		// deployment controller's status writes.
		scale := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":2}}`))
		if err := c.Patch(t.Context(), d, scale); err != nil {
			t.Fatal(err)
		}
		for _, p := range podsOf(t, c, ns, "below", 2) {
			expectResources(t, p, origRequests, origLimits)
			if _, ok := p.Annotations["vpaObservedContainers"]; ok {
				t.Errorf("pod %s matched a VPA that targets its ReplicaSet: %v", p.Name, p.Annotations)
			}
		}
	})

	t.Run("invalid VPAs are rejected with a message naming the field", func(t *testing.T) {
		testInvalidVPAs(t, c)
	})

	t.Run("a VPA without updatePolicy is defaulted to Recreate", func(t *testing.T) {
		v := vpaFor(ns, "defaulted", vpav1.UpdateModeRecreate, nil)
		v.Spec.UpdatePolicy = nil
		if err := c.Create(t.Context(), v); err != nil {
			t.Fatal(err)
		}
		if v.Spec.UpdatePolicy == nil || v.Spec.UpdatePolicy.UpdateMode == nil || *v.Spec.UpdatePolicy.UpdateMode != vpav1.UpdateModeRecreate {
			t.Errorf("updatePolicy = %+v, want updateMode Recreate", v.Spec.UpdatePolicy)
		}
	})

	t.Run("the status Lease is renewed", func(t *testing.T) {
		lease := &coordinationv1.Lease{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "vpa-admission-controller"}, lease); err != nil {
			t.Fatal(err)
		}
		if lease.Spec.RenewTime == nil || time.Since(lease.Spec.RenewTime.Time) > time.Minute {
			t.Errorf("lease renew time = %v, want within the last minute", lease.Spec.RenewTime)
		}
	})

	t.Run("registering twice keeps one configuration", func(t *testing.T) { testRegisterTwice(t, c) })

	t.Run("metrics count the reviewed pods", func(t *testing.T) {
		families, err := wh.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]float64{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				counts[f.GetName()+"/"+m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
			}
		}
		if got := counts["kscale_vpa_admission_pods_total/updated"]; got < 8 {
			t.Errorf("pods updated = %v, want at least 8 (%v)", got, counts)
		}
		if got := counts["kscale_vpa_admission_vpas_total/rejected"]; got < 1 {
			t.Errorf("VPAs rejected = %v, want at least 1", got)
		}
	})
}
