package clusterstate

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/fixture"
)

func TestCheckClusterHealth(t *testing.T) {
	rules := ReadinessRules{MaxNodeStartupTime: 15 * time.Minute}
	now := t0.Add(time.Hour)
	wasReady := func(i int) *corev1.Node {
		n := readyNode(fmt.Sprintf("unready-%d", i), t0)
		n.Status.Conditions[0].Status = corev1.ConditionFalse
		n.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-time.Minute))
		return n
	}
	starting := func(i int, age time.Duration) *corev1.Node {
		n := readyNode(fmt.Sprintf("starting-%d", i), now.Add(-age))
		n.Status.Conditions[0].Status = corev1.ConditionFalse
		return n
	}
	nodes := func(ready, unready, young, old, deleted int) []*corev1.Node {
		var out []*corev1.Node
		for i := range ready {
			out = append(out, readyNode(fmt.Sprintf("ready-%d", i), t0))
		}
		for i := range unready {
			out = append(out, wasReady(i))
		}
		for i := range young {
			out = append(out, starting(i, time.Minute))
		}
		for i := range old {
			out = append(out, starting(100+i, 20*time.Minute))
		}
		for i := range deleted {
			n := wasReady(200 + i)
			n.Spec.Taints = append(n.Spec.Taints, fixture.Taint(BeingDeletedTaint, "", corev1.TaintEffectNoSchedule))
			out = append(out, n)
		}
		return out
	}
	upstream := HealthLimits{MaxTotalUnreadyPercentage: 45, OkTotalUnreadyCount: 3}
	tests := []struct {
		name        string
		nodes       []*corev1.Node
		limits      HealthLimits
		wantHealthy bool
		wantUnready int
	}{
		{"empty cluster", nil, upstream, true, 0},
		{"all ready", nodes(10, 0, 0, 0, 0), upstream, true, 0},
		{"within the ok count", nodes(0, 3, 0, 0, 0), upstream, true, 3},
		{"above the count, below the share", nodes(10, 4, 0, 0, 0), upstream, true, 4},
		{"above both", nodes(4, 4, 0, 0, 0), upstream, false, 4},
		{"exactly the share is healthy", nodes(11, 9, 0, 0, 0), upstream, true, 9},
		{"just above the share", nodes(10, 9, 0, 0, 0), upstream, false, 9},
		{"young starting nodes do not count", nodes(1, 0, 10, 0, 0), upstream, true, 0},
		{"long not started nodes count", nodes(1, 0, 0, 4, 0), upstream, false, 4},
		{"nodes being deleted do not count", nodes(1, 0, 0, 0, 10), upstream, true, 0},
		{"100% never halts", nodes(0, 50, 0, 0, 0), HealthLimits{MaxTotalUnreadyPercentage: 100, OkTotalUnreadyCount: 3}, true, 50},
		{"0% and 0 halt at the first", nodes(9, 1, 0, 0, 0), HealthLimits{}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckClusterHealth(tt.nodes, func(*corev1.Node) bool { return true }, rules, tt.limits, now)
			if got.Healthy != tt.wantHealthy || got.Unready != tt.wantUnready || got.Total != len(tt.nodes) {
				t.Fatalf("CheckClusterHealth = %+v, want healthy %v, %d unready of %d", got, tt.wantHealthy, tt.wantUnready, len(tt.nodes))
			}
		})
	}
}

// TestStartupTaintPrefix checks --startup-taint-prefix entries (keys
// ending in the wildcard, from Options.AllStartupTaints): a key with the
// prefix marks a starting node, others do not.
func TestStartupTaintPrefix(t *testing.T) {
	rules := ReadinessRules{StartupTaints: []string{"example.com/exact", "example.com/boot-" + "*"}, MaxNodeStartupTime: 15 * time.Minute}
	tests := []struct {
		key  string
		want bool
	}{
		{"example.com/exact", true},
		{"example.com/exactly", false},
		{"example.com/boot-network", true},
		{"example.com/boot", false},
		{StartupTaintPrefix + "x", true},
	}
	for _, tt := range tests {
		if got := rules.IsStartupTaint(tt.key); got != tt.want {
			t.Errorf("IsStartupTaint(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}
