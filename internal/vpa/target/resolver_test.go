package target_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpaclientset "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/target"
)

func vpaFor(name, apiVersion, kind, targetName string) *vpav1.VerticalPodAutoscaler {
	return &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: fixture.DefaultNamespace},
		Spec: vpav1.VerticalPodAutoscalerSpec{TargetRef: &autoscalingv1.CrossVersionObjectReference{
			APIVersion: apiVersion, Kind: kind, Name: targetName,
		}},
	}
}

func TestResolverAgainstControlPlane(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	if err := crds.Install(ctx, env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	createWidgetCRD(t, env)
	objs := seed(t, env, c)
	r := target.NewResolver(c)
	informers, err := cache.New(env.Config, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = informers.Start(ctx) }()
	if !informers.WaitForCacheSync(ctx) {
		t.Fatal("cache never synced")
	}
	cached := target.NewResolver(target.NewCachedReader(informers, c))

	t.Run("the VPA CRD accepts a VPA", func(t *testing.T) {
		vc := vpaclientset.NewForConfigOrDie(env.Config)
		v := vpaFor("web", "apps/v1", "Deployment", "web")
		if _, err := vc.AutoscalingV1().VerticalPodAutoscalers("default").Create(ctx, v, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	tests := []struct {
		name     string
		vpa      *vpav1.VerticalPodAutoscaler
		wantRef  target.ObjectRef
		wantSel  string
		wantFail func(error) bool
	}{
		{name: "deployment", vpa: vpaFor("a", "apps/v1", "Deployment", "web"),
			wantRef: target.ObjectRef{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "web"}, wantSel: "app=web"},
		{name: "deployment without apiVersion", vpa: vpaFor("a", "", "Deployment", "web"),
			wantRef: target.ObjectRef{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "web"}, wantSel: "app=web"},
		{name: "custom kind through scale", vpa: vpaFor("a", "test.kscale.io/v1", "Widget", "w1"),
			wantRef: target.ObjectRef{Group: "test.kscale.io", Kind: "Widget", Namespace: "default", Name: "w1"}, wantSel: "app=widget"},
		{name: "replicaset owned by a deployment", vpa: vpaFor("a", "apps/v1", "ReplicaSet", "web-1"), wantFail: target.IsNotTopLevel},
		{name: "missing deployment", vpa: vpaFor("a", "apps/v1", "Deployment", "nothing"), wantFail: target.IsNotFound},
		{name: "unknown kind", vpa: vpaFor("a", "example.com/v1", "Nothing", "x"), wantFail: target.IsNotFound},
		{name: "no targetRef", vpa: &vpav1.VerticalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}}, wantFail: target.IsInvalid},
		{name: "custom kind without apiVersion", vpa: vpaFor("a", "", "Widget", "w1"), wantFail: target.IsInvalid},
		{name: "configmap has no selector", vpa: vpaFor("a", "v1", "ConfigMap", "cm"), wantFail: target.IsNoSelector},
	}
	for _, tt := range tests {
		for _, res := range []struct {
			name string
			r    *target.Resolver
		}{{"direct", r}, {"cached", cached}} {
			t.Run(res.name+": "+tt.name, func(t *testing.T) {
				expectResolve(t, res.r, tt.vpa, tt.wantRef, tt.wantSel, tt.wantFail)
			})
		}
	}

	t.Run("top-level controller of a pod", func(t *testing.T) {
		for _, res := range []*target.Resolver{r, cached} {
			top, err := res.TopLevelController(ctx, objs.pod)
			if err != nil {
				t.Fatal(err)
			}
			want := target.ObjectRef{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "web"}
			if top == nil || *top != want {
				t.Fatalf("TopLevelController = %v, want %v", top, want)
			}
			orphan := fixture.Pod("orphan")
			if top, err := res.TopLevelController(ctx, orphan); err != nil || top != nil {
				t.Fatalf("TopLevelController(orphan) = %v, %v; want nil, nil", top, err)
			}
		}
	})
}

// expectResolve checks one Resolve call.
func expectResolve(t *testing.T, r *target.Resolver, vpa *vpav1.VerticalPodAutoscaler, wantRef target.ObjectRef, wantSel string, wantFail func(error) bool) {
	t.Helper()
	got, err := r.Resolve(t.Context(), vpa)
	if wantFail != nil {
		if err == nil || !wantFail(err) {
			t.Fatalf("Resolve error = %v (reason %q), want the expected reason", err, target.ReasonOf(err))
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got.Ref != wantRef || got.Selector.String() != wantSel {
		t.Fatalf("Resolve = %v %q, want %v %q", got.Ref, got.Selector, wantRef, wantSel)
	}
}

type seeded struct {
	pod *corev1.Pod
}

// seed creates a Deployment, a ReplicaSet it owns, a pod of that ReplicaSet,
// a ConfigMap and a Widget with a scale subresource.
func seed(t *testing.T, env *testenv.Env, c client.Client) seeded {
	t.Helper()
	ctx := t.Context()
	dep, err := env.Client.AppsV1().Deployments("default").Create(ctx, fixture.Deployment("web", 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := fixture.ReplicaSet("web-1", 2, fixture.WithLabels(map[string]string{"app": "web"}))
	rs.Spec.Selector = dep.Spec.Selector
	rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(dep, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	rs, err = env.Client.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := fixture.Pod("web-1-abc", fixture.WithLabels(map[string]string{"app": "web"}),
		fixture.WithOwner(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), rs.Name, rs.UID))
	pod, err = env.Client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}}
	if _, err := env.Client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(schema.GroupVersionKind{Group: "test.kscale.io", Version: "v1", Kind: "Widget"})
	w.SetNamespace("default")
	w.SetName("w1")
	_ = unstructured.SetNestedField(w.Object, int64(1), "spec", "replicas")
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(w.Object, "app=widget", "status", "selector")
	_ = unstructured.SetNestedField(w.Object, int64(1), "status", "replicas")
	if err := c.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	return seeded{pod: pod}
}

// createWidgetCRD installs a namespaced CRD with a scale subresource.
func createWidgetCRD(t *testing.T, env *testenv.Env) {
	t.Helper()
	cs := apiextensionsclient.NewForConfigOrDie(env.Config)
	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.test.kscale.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "test.kscale.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale: &apiextensionsv1.CustomResourceSubresourceScale{
						SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas",
						LabelSelectorPath: ptrTo(".status.selector"),
					},
				},
			}},
		},
	}
	ctx := t.Context()
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitEstablished(t, cs, crd.Name)
}

func ptrTo[T any](v T) *T { return &v }

func TestControllingOldestWins(t *testing.T) {
	owner := &target.ObjectRef{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "web"}
	other := target.ObjectRef{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "api"}
	sel := labels.SelectorFromSet(labels.Set{"app": "web"})
	mk := func(name string, created time.Time, ns string) *vpav1.VerticalPodAutoscaler {
		v := vpaFor(name, "apps/v1", "Deployment", "web")
		v.Namespace = ns
		v.CreationTimestamp = metav1.NewTime(created)
		return v
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := fixture.Pod("p", fixture.WithLabels(map[string]string{"app": "web"}))
	tests := []struct {
		name  string
		owner *target.ObjectRef
		cands []target.Candidate
		want  string
	}{
		{name: "oldest of two", owner: owner, want: "old", cands: []target.Candidate{
			{VPA: mk("new", t0.Add(time.Hour), "default"), Target: &target.Target{Ref: *owner, Selector: sel}},
			{VPA: mk("old", t0, "default"), Target: &target.Target{Ref: *owner, Selector: sel}},
		}},
		{name: "same age: lowest name", owner: owner, want: "a", cands: []target.Candidate{
			{VPA: mk("b", t0, "default"), Target: &target.Target{Ref: *owner, Selector: sel}},
			{VPA: mk("a", t0, "default"), Target: &target.Target{Ref: *owner, Selector: sel}},
		}},
		{name: "other target is ignored", owner: owner, want: "mine", cands: []target.Candidate{
			{VPA: mk("theirs", t0, "default"), Target: &target.Target{Ref: other, Selector: sel}},
			{VPA: mk("mine", t0.Add(time.Hour), "default"), Target: &target.Target{Ref: *owner, Selector: sel}},
		}},
		{name: "other namespace is ignored", owner: owner, want: "", cands: []target.Candidate{
			{VPA: mk("x", t0, "kube-system"), Target: &target.Target{Ref: *owner, Selector: sel}},
		}},
		{name: "selector must match", owner: owner, want: "", cands: []target.Candidate{
			{VPA: mk("x", t0, "default"), Target: &target.Target{Ref: *owner, Selector: labels.SelectorFromSet(labels.Set{"app": "api"})}},
		}},
		{name: "unresolved target is ignored", owner: owner, want: "", cands: []target.Candidate{{VPA: mk("x", t0, "default")}}},
		{name: "pod without controller", owner: nil, want: "", cands: []target.Candidate{
			{VPA: mk("x", t0, "default"), Target: &target.Target{Ref: *owner, Selector: sel}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := target.Controlling(pod, tt.owner, tt.cands)
			name := ""
			if got != nil {
				name = got.Name
			}
			if name != tt.want {
				t.Fatalf("Controlling = %q, want %q", name, tt.want)
			}
		})
	}
}
