package discovery_test

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/testenv"
)

// TestDiscovery is scenario 8 against a real API server.
func TestDiscovery(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	c := env.Client
	for _, ns := range []string{"shoot--p--a", "garden", "shoot--p--b"} {
		testkube.Namespace(t, ctx, c, ns)
	}
	api := testkube.APIServerLabels()
	kapi1 := testkube.Pod(t, ctx, c, "shoot--p--a", "kapi-1", "10.1.0.1", api)
	kapi2 := testkube.Pod(t, ctx, c, "shoot--p--a", "kapi-2", "10.1.0.2", api)
	testkube.Pod(t, ctx, c, "shoot--p--a", "kapi-noip", "", api)
	testkube.Pod(t, ctx, c, "garden", "kapi-garden", "10.1.0.3", api)
	testkube.Pod(t, ctx, c, "shoot--p--b", "etcd", "10.1.0.4", map[string]string{"app": "kubernetes", "role": "etcd"})

	d, err := discovery.New(discovery.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go d.Run(dctx)
	if !d.HasSynced(ctx) {
		t.Fatal("cache did not sync")
	}
	expectTargets(t, d, "only kapi-1 and kapi-2", map[string]string{"kapi-1": "10.1.0.1", "kapi-2": "10.1.0.2"})

	// A changed IP changes the scrape address.
	testkube.SetPodIP(t, ctx, c, kapi1, "10.1.0.9")
	expectTargets(t, d, "kapi-1 at its new IP", map[string]string{"kapi-1": "10.1.0.9", "kapi-2": "10.1.0.2"})

	// A pod that gets its IP later becomes a target then.
	noip, err := c.CoreV1().Pods("shoot--p--a").Get(ctx, "kapi-noip", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testkube.SetPodIP(t, ctx, c, noip, "10.1.0.5")
	expectTargets(t, d, "kapi-noip once it has an IP", map[string]string{"kapi-1": "10.1.0.9", "kapi-2": "10.1.0.2", "kapi-noip": "10.1.0.5"})

	// Removing the role label drops kapi-2.
	kapi2, err = c.CoreV1().Pods("shoot--p--a").Get(ctx, kapi2.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(kapi2.Labels, "role")
	if _, err := c.CoreV1().Pods("shoot--p--a").Update(ctx, kapi2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectTargets(t, d, "kapi-2 gone without its role label", map[string]string{"kapi-1": "10.1.0.9", "kapi-noip": "10.1.0.5"})

	// A pod being deleted (deletionTimestamp set, held by a finalizer) is dropped at once.
	held := testkube.Pod(t, ctx, c, "shoot--p--a", "kapi-held", "10.1.0.6", api)
	held.Finalizers = []string{"kscale.io/test"}
	if _, err := c.CoreV1().Pods("shoot--p--a").Update(ctx, held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectTargets(t, d, "kapi-held present", map[string]string{"kapi-1": "10.1.0.9", "kapi-noip": "10.1.0.5", "kapi-held": "10.1.0.6"})
	if err := c.CoreV1().Pods("shoot--p--a").Delete(ctx, "kapi-held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectTargets(t, d, "kapi-held dropped while terminating", map[string]string{"kapi-1": "10.1.0.9", "kapi-noip": "10.1.0.5"})
	t.Cleanup(func() {
		p, err := c.CoreV1().Pods("shoot--p--a").Get(context.WithoutCancel(ctx), "kapi-held", metav1.GetOptions{})
		if err == nil {
			p.Finalizers = nil
			_, _ = c.CoreV1().Pods("shoot--p--a").Update(context.WithoutCancel(ctx), p, metav1.UpdateOptions{})
		}
	})

	// A recreated pod (same name, new UID) is followed.
	if err := c.CoreV1().Pods("shoot--p--a").Delete(ctx, "kapi-noip", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	expectTargets(t, d, "kapi-noip deleted", map[string]string{"kapi-1": "10.1.0.9"})
	re := testkube.Pod(t, ctx, c, "shoot--p--a", "kapi-noip", "10.1.0.7", api)
	expectTargets(t, d, "kapi-noip recreated", map[string]string{"kapi-1": "10.1.0.9", "kapi-noip": "10.1.0.7"})
	if got, _ := d.Get(types.NamespacedName{Namespace: "shoot--p--a", Name: "kapi-noip"}); got.UID != re.UID {
		t.Fatalf("recreated pod UID = %s, want %s", got.UID, re.UID)
	}
	if got := d.InNamespace("shoot--p--a"); len(got) != 2 || !slices.ContainsFunc(got, func(t discovery.Target) bool { return t.Labels["role"] == "apiserver" }) {
		t.Fatalf("InNamespace() = %+v", got)
	}
}

func expectTargets(t *testing.T, d *discovery.Discovery, what string, want map[string]string) {
	t.Helper()
	testkube.Poll(t, t.Context(), 10*time.Second, what, func(context.Context) (bool, error) {
		got := d.Targets()
		if len(got) != len(want) {
			return false, nil
		}
		for _, tg := range got {
			if tg.Key.Namespace != "shoot--p--a" || want[tg.Key.Name] != tg.IP {
				return false, nil
			}
		}
		return true, nil
	})
}
