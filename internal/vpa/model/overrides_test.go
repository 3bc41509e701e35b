package model

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// TestVPAOverrides checks that per-VPA settings steer the OOM bump, the
// memory peak window and garbage collection of the aggregates the VPA
// links, and only those.
func TestVPAOverrides(t *testing.T) {
	day := 24 * time.Hour
	vpa, pod := VPAID{"a", "v"}, PodID{"a", "p"}
	tests := []struct {
		name      string
		overrides map[string]Overrides
		container string
		// wantOOM is the memory fed at an OOM of 1000 MiB in use.
		wantOOM float64
		// wantWindowEnd is the end of the first memory window.
		wantWindowEnd time.Duration
		// keptAt is a time before which an aggregate without pods stays and
		// at which it goes.
		keptAt time.Duration
	}{
		{name: "no overrides: 1.2, 100 MiB, 24h × 8", container: "app", wantOOM: 1200 * mib, wantWindowEnd: day, keptAt: 8 * day},
		{name: "ratio 2", overrides: map[string]Overrides{"app": {OOMBumpUpRatio: 2}}, container: "app", wantOOM: 2000 * mib, wantWindowEnd: day, keptAt: 8 * day},
		{name: "min bump 500 MiB beats the ratio", overrides: map[string]Overrides{"app": {OOMMinBumpUpBytes: 500 * mib, HasOOMMinBumpUp: true}}, container: "app",
			wantOOM: 1500 * mib, wantWindowEnd: day, keptAt: 8 * day},
		{name: "ratio 1 and min bump 0: no bump", overrides: map[string]Overrides{"app": {OOMBumpUpRatio: 1, HasOOMMinBumpUp: true}}, container: "app",
			wantOOM: 1000 * mib, wantWindowEnd: day, keptAt: 8 * day},
		{name: "interval 1h × 2", overrides: map[string]Overrides{"app": {MemoryAggregationInterval: time.Hour, MemoryAggregationIntervalCount: 2}}, container: "app",
			wantOOM: 1200 * mib, wantWindowEnd: time.Hour, keptAt: 2 * time.Hour},
		{name: "wildcard applies to other containers", overrides: map[string]Overrides{"*": {OOMBumpUpRatio: 3}}, container: "side", wantOOM: 3000 * mib, wantWindowEnd: day, keptAt: 8 * day},
		{name: "a container's own policy beats the wildcard", overrides: map[string]Overrides{"*": {OOMBumpUpRatio: 3}, "app": {OOMBumpUpRatio: 1.5}}, container: "app",
			wantOOM: 1500 * mib, wantWindowEnd: day, keptAt: 8 * day},
		{name: "another container's policy does not apply", overrides: map[string]Overrides{"app": {OOMBumpUpRatio: 3}}, container: "side", wantOOM: 1200 * mib, wantWindowEnd: day, keptAt: 8 * day},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, vpaFirst := range []bool{true, false} {
				c := NewCluster(DefaultConfig())
				setVPA := func() {
					c.SetVPA(vpa, labels.Everything(), false)
					c.SetVPAOverrides(vpa, tc.overrides)
				}
				if vpaFirst {
					setVPA()
				}
				c.SetPod(pod, map[string]string{"app": "x"}, []string{tc.container}, false, t0)
				if !vpaFirst {
					setVPA()
				}
				cs := c.Container(pod, tc.container)
				cs.RecordOOM(t0, 1000*mib)
				agg := cs.Aggregate()
				if got := agg.Memory.Options().FindBucket(tc.wantOOM); agg.Memory.MaxBucket() != got {
					t.Errorf("vpaFirst %v: OOM peak in bucket %d, want %d (%v MiB)", vpaFirst, agg.Memory.MaxBucket(), got, tc.wantOOM/mib)
				}
				if want := t0.Add(tc.wantWindowEnd); !cs.WindowEnd().Equal(want) {
					t.Errorf("vpaFirst %v: window end %v, want %v", vpaFirst, cs.WindowEnd(), want)
				}
				cs.AddCPU(t0, 1)
				c.DeletePod(pod)
				if n := c.GarbageCollect(t0.Add(tc.keptAt - time.Minute)); n != 0 {
					t.Errorf("vpaFirst %v: collected %d aggregates a minute before the history length", vpaFirst, n)
				}
				if n := c.GarbageCollect(t0.Add(tc.keptAt)); n != 1 {
					t.Errorf("vpaFirst %v: collected %d aggregates at the history length, want 1", vpaFirst, n)
				}
			}
		})
	}
}

func TestVPAOverridesFollowChangesAndUnlinks(t *testing.T) {
	c := NewCluster(DefaultConfig())
	vpa, pod := VPAID{"a", "v"}, PodID{"a", "p"}
	c.SetPod(pod, map[string]string{"app": "x"}, []string{"app"}, false, t0)
	c.SetVPA(vpa, labels.Everything(), true)
	cs := c.Container(pod, "app")
	ratio := func() float64 { return cs.cfg.OOMBumpUpRatio }
	c.SetVPAOverrides(vpa, map[string]Overrides{"app": {OOMBumpUpRatio: 2}})
	if ratio() != 2 {
		t.Fatalf("ratio after the override = %v, want 2", ratio())
	}
	c.SetVPAOverrides(vpa, nil)
	if ratio() != 1.2 {
		t.Fatalf("ratio after clearing the override = %v, want 1.2", ratio())
	}
	c.SetVPAOverrides(vpa, map[string]Overrides{"app": {OOMBumpUpRatio: 2}})
	c.SetVPA(vpa, sel(t, "app=other"), true)
	if ratio() != 1.2 {
		t.Fatalf("ratio after the VPA stopped selecting the pod = %v, want 1.2", ratio())
	}
	c.SetVPA(vpa, labels.Everything(), true)
	if ratio() != 2 {
		t.Fatalf("ratio after the VPA selects the pod again = %v, want 2", ratio())
	}
	c.DeleteVPA(vpa)
	if ratio() != 1.2 {
		t.Fatalf("ratio after the VPA was deleted = %v, want 1.2", ratio())
	}
}
