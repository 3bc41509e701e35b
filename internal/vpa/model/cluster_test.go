package model

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

func sel(t *testing.T, s string) labels.Selector {
	t.Helper()
	x, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestLinksFollowSelectorsAndNamespaces(t *testing.T) {
	c := NewCluster(DefaultConfig())
	web := VPAID{Namespace: "a", Name: "web"}
	c.SetVPA(web, sel(t, "app=web"), true)
	c.SetPod(PodID{"a", "web-1"}, map[string]string{"app": "web", "pod-template-hash": "1"}, []string{"app", "proxy"}, false, t0)
	c.SetPod(PodID{"a", "web-2"}, map[string]string{"app": "web", "pod-template-hash": "2"}, []string{"app"}, false, t0)
	c.SetPod(PodID{"b", "web-1"}, map[string]string{"app": "web"}, []string{"app"}, false, t0)
	c.SetPod(PodID{"a", "db-1"}, map[string]string{"app": "db"}, []string{"app"}, false, t0)
	c.Container(PodID{"a", "web-1"}, "app").AddCPU(t0, 1)
	c.Container(PodID{"a", "web-2"}, "app").AddCPU(t0, 1)
	c.Container(PodID{"b", "web-1"}, "app").AddCPU(t0, 1)

	states := c.ContainerStates(web)
	if len(states) != 2 || states["app"].TotalSamplesCount != 2 || states["proxy"] == nil {
		t.Fatalf("states = %v, want app (2 samples, two label sets merged) and proxy", states)
	}
	if c.Container(PodID{"a", "web-1"}, "init") != nil {
		t.Fatal("an unknown container has state")
	}
	// A later VPA with a narrower selector links only the matching aggregate.
	narrow := VPAID{Namespace: "a", Name: "narrow"}
	c.SetVPA(narrow, sel(t, "pod-template-hash=2"), true)
	if got := c.ContainerStates(narrow)["app"].TotalSamplesCount; got != 1 {
		t.Fatalf("narrow VPA sees %d samples, want 1", got)
	}
	// Changing the selector relinks; a nil selector matches nothing.
	c.SetVPA(narrow, nil, false)
	if len(c.ContainerStates(narrow)) != 0 || c.MatchesLivePods(narrow) {
		t.Fatal("a VPA without selector still links aggregates")
	}
	if !c.MatchesLivePods(web) {
		t.Fatal("web matches no live pods")
	}
	c.DeletePod(PodID{"a", "web-1"})
	c.DeletePod(PodID{"a", "web-2"})
	if c.MatchesLivePods(web) {
		t.Fatal("web still matches live pods after they were deleted")
	}
	if got := c.ContainerStates(web)["app"].TotalSamplesCount; got != 2 {
		t.Fatalf("history lost with the pods: %d samples, want 2", got)
	}
}

func TestPodLabelChangeMovesContainers(t *testing.T) {
	c := NewCluster(DefaultConfig())
	id := PodID{"a", "p"}
	c.SetPod(id, map[string]string{"v": "1"}, []string{"app"}, false, t0)
	c.Container(id, "app").AddCPU(t0, 1)
	c.SetPod(id, map[string]string{"v": "2"}, []string{"app"}, false, t0)
	if c.Container(id, "app").Aggregate().TotalSamplesCount != 0 {
		t.Fatal("container kept the old label set's aggregate")
	}
	if c.NumAggregates() != 2 {
		t.Fatalf("NumAggregates = %d, want 2", c.NumAggregates())
	}
}

func TestGarbageCollect(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name        string
		setup       func(c *Cluster)
		at          time.Duration
		wantRemoved int
		wantLeft    int
	}{
		{name: "empty, pod gone, no VPA target: removed", at: time.Minute, wantRemoved: 1, wantLeft: 0, setup: func(c *Cluster) {
			c.SetPod(PodID{"a", "p"}, map[string]string{"app": "x"}, []string{"app"}, false, t0)
			c.DeletePod(PodID{"a", "p"})
		}},
		{name: "empty, pod finished, VPA target exists: kept", at: time.Minute, wantLeft: 1, setup: func(c *Cluster) {
			c.SetVPA(VPAID{"a", "v"}, labels.Everything(), true)
			c.SetPod(PodID{"a", "p"}, map[string]string{"app": "x"}, []string{"app"}, true, t0)
		}},
		{name: "empty, live pod: kept", at: time.Minute, wantLeft: 1, setup: func(c *Cluster) {
			c.SetPod(PodID{"a", "p"}, map[string]string{"app": "x"}, []string{"app"}, false, t0)
		}},
		{name: "with samples, pod gone: kept until 8 days after the last sample", at: 8*day - time.Minute, wantLeft: 1, setup: func(c *Cluster) {
			c.SetPod(PodID{"a", "p"}, map[string]string{"app": "x"}, []string{"app"}, false, t0)
			c.Container(PodID{"a", "p"}, "app").AddCPU(t0, 1)
			c.DeletePod(PodID{"a", "p"})
		}},
		{name: "last sample 8 days old: removed", at: 8 * day, wantRemoved: 1, setup: func(c *Cluster) {
			c.SetPod(PodID{"a", "p"}, map[string]string{"app": "x"}, []string{"app"}, false, t0)
			c.Container(PodID{"a", "p"}, "app").AddCPU(t0, 1)
			c.DeletePod(PodID{"a", "p"})
		}},
		{name: "expired but still fed: reset, not dropped", at: 8 * day, wantRemoved: 1, wantLeft: 1, setup: func(c *Cluster) {
			c.SetPod(PodID{"a", "p"}, map[string]string{"app": "x"}, []string{"app"}, false, t0)
			c.Container(PodID{"a", "p"}, "app").AddCPU(t0, 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCluster(DefaultConfig())
			tt.setup(c)
			if got := c.GarbageCollect(t0.Add(tt.at)); got != tt.wantRemoved {
				t.Fatalf("GarbageCollect removed %d, want %d", got, tt.wantRemoved)
			}
			if c.NumAggregates() != tt.wantLeft {
				t.Fatalf("%d aggregates left, want %d", c.NumAggregates(), tt.wantLeft)
			}
		})
	}
}
