package updater_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/vpa/target"
	"github.com/kscale/kscale/internal/vpa/updater"
)

func TestUpdaterAgainstControlPlane(t *testing.T) {
	h := start(t)

	t.Run("the cached target reader resolves like direct reads", func(t *testing.T) {
		h.workload(t, "reader", "web", 2)
		h.outsideRange(t, "reader", "web", vpav1.UpdateModeRecreate, "Deployment", "web")
		h.outsideRange(t, "reader", "ghost", vpav1.UpdateModeRecreate, "Deployment", "nothing")
		pods := h.waitPods(t, "reader", "web", 2, func(*corev1.Pod) bool { return true })
		direct, cached := target.NewResolver(h.c), target.NewResolver(h.targets)
		for _, name := range []string{"web", "ghost"} {
			vpa := &vpav1.VerticalPodAutoscaler{}
			if err := h.c.Get(t.Context(), client.ObjectKey{Namespace: "reader", Name: name}, vpa); err != nil {
				t.Fatal(err)
			}
			want, wantErr := direct.Resolve(t.Context(), vpa)
			got, gotErr := cached.Resolve(t.Context(), vpa)
			if target.ReasonOf(gotErr) != target.ReasonOf(wantErr) || (want == nil) != (got == nil) ||
				(want != nil && (want.Ref != got.Ref || want.Selector.String() != got.Selector.String())) {
				t.Errorf("%s: cached Resolve = %+v, %v; direct = %+v, %v", name, got, gotErr, want, wantErr)
			}
		}
		want, err := direct.TopLevelController(t.Context(), &pods[0])
		if err != nil || want == nil || want.Kind != "Deployment" {
			t.Fatalf("direct TopLevelController = %v, %v; want the Deployment", want, err)
		}
		if got, err := cached.TopLevelController(t.Context(), &pods[0]); err != nil || got == nil || *got != *want {
			t.Errorf("cached TopLevelController = %v, %v; want %v", got, err, *want)
		}
	})

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
		// Upstream's families: all 4 pods were evictable before the loop
		// spent the budget, 2 were evicted, one VPA of 4 pods (log2 2).
		sized := map[string]string{"vpa_size_log2": "2", "update_mode": "Recreate"}
		expectSeries(t, reg, "vpa_updater_evictable_pods_total", sized, 4)
		expectSeries(t, reg, "vpa_updater_vpas_with_evictable_pods_total", sized, 1)
		expectSeries(t, reg, "vpa_updater_vpas_with_evicted_pods_total", sized, 1)
		expectSeries(t, reg, "vpa_updater_controlled_pods_total", sized, 4)
		expectSeries(t, reg, "vpa_updater_evicted_pods_total",
			map[string]string{"vpa_size_log2": "2", "update_mode": "Recreate", "vpa_name": "web", "vpa_namespace": "budget"}, 2)
		expectSeries(t, reg, "vpa_updater_in_place_updated_pods_total", map[string]string{"vpa_size_log2": "2", "vpa_name": "web", "vpa_namespace": "budget"}, 0)
		expectSeries(t, reg, "vpa_updater_in_place_updatable_pods_total", map[string]string{"vpa_size_log2": "2"}, 0)
		h.waitPods(t, "budget", "web", 2, requestIs("500m"))
		h.expectEvent(t, "budget", evicted[0].Name, "EvictedByVPA")
		h.expectEvent(t, "budget", "web", "EvictedPod")
		// The next loop must not evict more: two of four are not running yet.
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "budget", "web")); n != 2 {
			t.Errorf("after a second loop %d pods are evicted, want still 2", n)
		}
		// No eviction this loop: upstream's per-loop gauge has no series.
		if v, ok := series(t, reg, "vpa_updater_vpas_with_evicted_pods_total", sized); ok {
			t.Errorf("vpas_with_evicted_pods_total = %v after a loop without evictions, want no series", v)
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
		expectSeries(t, reg, "vpa_updater_admission_controller_status_invalid_total", map[string]string{"reason": "invalid"}, 1)
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
		expectSeries(t, reg, "vpa_updater_in_place_updated_pods_total", map[string]string{"vpa_size_log2": "1", "vpa_name": "web", "vpa_namespace": "inplace"}, 1)
		expectSeries(t, reg, "vpa_updater_in_place_updatable_pods_total", map[string]string{"vpa_size_log2": "1"}, 2)
		expectSeries(t, reg, "vpa_updater_vpas_with_in_place_updatable_pods_total", map[string]string{"vpa_size_log2": "1"}, 1)
		expectSeries(t, reg, "vpa_updater_vpas_with_in_place_updated_pods_total", map[string]string{"vpa_size_log2": "1"}, 1)
		if v, ok := series(t, reg, "vpa_updater_evictable_pods_total", map[string]string{"vpa_size_log2": "1", "update_mode": "InPlaceOrRecreate"}); ok {
			t.Errorf("evictable_pods_total for an in-place VPA = %v, want no series", v)
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
		expectSeries(t, reg, "vpa_updater_evicted_pods_total",
			map[string]string{"vpa_size_log2": "1", "update_mode": "InPlaceOrRecreate", "vpa_name": "web", "vpa_namespace": "fallback"}, 1)
		expectSeries(t, reg, "vpa_updater_vpas_with_evicted_pods_total", map[string]string{"vpa_size_log2": "1", "update_mode": "InPlaceOrRecreate"}, 1)
		expectSeries(t, reg, "vpa_updater_failed_in_place_update_attempts_total",
			map[string]string{"vpa_size_log2": "1", "reason": "InPlaceUpdateError", "vpa_name": "web", "vpa_namespace": "fallback"}, 1)
	})

	t.Run("InPlace resizes in place and never evicts; without its gate it does nothing", func(t *testing.T) {
		h.expectResizeSubresource(t)
		h.workload(t, "inplaceonly", "web", 2)
		h.outsideRange(t, "inplaceonly", "web", vpav1.UpdateModeInPlace, "Deployment", "web")
		off, offReg := h.newUpdater(t, "inplaceonly", nil)
		if err := off.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := counter(t, offReg, "kscale_vpa_updater_in_place_updates_total", "Applied"); got != 0 {
			t.Errorf("gate off: in_place_updates_total{result=Applied} = %v, want 0", got)
		}
		u, reg := h.newUpdater(t, "inplaceonly", func(c *updater.Config) { c.Features.InPlace = true })
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "inplaceonly", "web")); n != 0 {
			t.Errorf("evicted %d pods, want 0", n)
		}
		resized := h.waitPods(t, "inplaceonly", "web", 1, requestIs("500m"))
		if resized[0].Annotations[updater.InPlaceUpdatedAnnotation] != "true" {
			t.Errorf("resized pod annotations = %v, want %s", resized[0].Annotations, updater.InPlaceUpdatedAnnotation)
		}
		if got := counter(t, reg, "kscale_vpa_updater_in_place_updates_total", "Applied"); got != 1 {
			t.Errorf("in_place_updates_total{result=Applied} = %v, want 1 (budget: 1 of 2)", got)
		}
	})

	t.Run("InPlace does not evict when the node cannot resize", func(t *testing.T) {
		h.workloadOn(t, "inplacenofallback", "web", 2, false)
		h.outsideRange(t, "inplacenofallback", "web", vpav1.UpdateModeInPlace, "Deployment", "web")
		u, reg := h.newUpdater(t, "inplacenofallback", func(c *updater.Config) { c.Features.InPlace = true })
		if err := u.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(h.terminating(t, "inplacenofallback", "web")); n != 0 {
			t.Errorf("evicted %d pods, want 0 (mode InPlace never evicts)", n)
		}
		if got := counter(t, reg, "kscale_vpa_updater_in_place_updates_total", "Error"); got < 1 {
			t.Errorf("in_place_updates_total{result=Error} = %v, want at least 1", got)
		}
	})

	t.Run("a CPU startup boost is applied at creation and undone in place", func(t *testing.T) { testStartupBoost(t, h) })
}
