package recommender_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	vpaclientset "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned"
	"k8s.io/client-go/kubernetes"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/cachesync"
	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/target"
)

// recommenderUser authenticates as the recommender's ServiceAccount.
var recommenderUser = testenv.User{
	Name:   "system:serviceaccount:kube-system:kscale-vpa-recommender",
	Token:  "kscale-vpa-recommender-test-token",
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"},
}

// applyManifest creates every object of a multi-document YAML file.
func applyManifest(t *testing.T, c client.Client, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for doc := range strings.SplitSeq(string(raw), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("%s: creating %s %s: %v", path, obj.GetKind(), obj.GetName(), err)
		}
	}
}

// testDeployedRBAC runs a full loop, checkpoints and leader election as
// the ServiceAccount bound by the shipped manifests.
func testDeployedRBAC(t *testing.T, h *harness) {
	ctx := t.Context()
	admin, err := client.New(h.env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	applyManifest(t, admin, "../../../deploy/vpa/recommender/serviceaccount.yaml")
	applyManifest(t, admin, "../../../deploy/vpa/recommender/rbac.yaml")

	cfg := h.env.UserConfig(recommenderUser)
	kube := kubernetes.NewForConfigOrDie(cfg)
	cr, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	informers, err := cache.New(cfg, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := input.NewPodWatcher(kube, true)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer func() { cancel(); w.Shutdown() }()
	w.Start(wctx)
	if err := cachesync.Wait(wctx, "pods and events", time.Minute, "test", w.WaitForSync); err != nil {
		t.Fatalf("pod watcher as the ServiceAccount: %v", err)
	}
	go func() { _ = informers.Start(wctx) }()
	if !informers.WaitForCacheSync(wctx) {
		t.Fatal("controller cache never synced")
	}
	deps := recommender.Deps{
		VPAs: vpaclientset.NewForConfigOrDie(cfg).AutoscalingV1(), Pods: w, OOMs: w,
		Usage:   input.NewMetricsSource(metricsclientset.NewForConfigOrDie(cfg).MetricsV1beta1()),
		Targets: target.NewResolver(target.NewCachedReader(informers, cr)), Clock: h.clock, Registerer: prometheus.NewRegistry(),
	}
	r, err := recommender.New(recommender.DefaultConfig(), deps)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.LoadHistory(ctx); err != nil {
		t.Fatalf("LoadHistory as the ServiceAccount: %v", err)
	}
	h.clock.Step(time.Minute)
	h.usage.setTime(h.clock.Now())
	if err := r.RunOnce(ctx); err != nil {
		t.Fatalf("RunOnce as the ServiceAccount: %v", err)
	}
	le := leaderelection.Config{Enabled: true, Identity: "rbac-test", Name: "vpa-recommender-lease"}
	if err := le.Default(); err != nil {
		t.Fatal(err)
	}
	lctx, lcancel := context.WithCancel(ctx)
	defer lcancel()
	led := false
	if err := leaderelection.Run(lctx, kube, le, func(context.Context) { led = true; lcancel() }); err != nil {
		t.Fatalf("leader election as the ServiceAccount: %v", err)
	}
	if !led {
		t.Fatal("never became leader on kube-system/vpa-recommender-lease")
	}
	if _, err := kube.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatal("the ServiceAccount can list secrets; RBAC is too broad")
	}
}
