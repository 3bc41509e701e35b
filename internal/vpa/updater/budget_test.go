package updater

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestScenario8Budget checks the evictions allowed within one loop for the
// groups of vpa-hpa.md §8 scenario 8; every pod is eligible.
func TestScenario8Budget(t *testing.T) {
	tests := []struct {
		name                   string
		configured, live, pend int
		tolerance              float64
		minReplicas            int
		wantRunning            int
		wantPending            int
	}{
		{name: "RS 1/1", configured: 1, live: 1, tolerance: 0.5, minReplicas: 2, wantRunning: 0},
		{name: "RS 1/1 with min-replicas 1", configured: 1, live: 1, tolerance: 0.5, minReplicas: 1, wantRunning: 1},
		{name: "RS 2/2", configured: 2, live: 2, tolerance: 0.5, minReplicas: 2, wantRunning: 1},
		{name: "RS 3/3", configured: 3, live: 3, tolerance: 0.5, minReplicas: 2, wantRunning: 1},
		{name: "RS 4/4", configured: 4, live: 4, tolerance: 0.5, minReplicas: 2, wantRunning: 2},
		{name: "RS 10/10", configured: 10, live: 10, tolerance: 0.5, minReplicas: 2, wantRunning: 5},
		{name: "RS 10/10, tolerance 0.1", configured: 10, live: 10, tolerance: 0.1, minReplicas: 2, wantRunning: 1},
		{name: "RS 10/10, tolerance 0.05", configured: 10, live: 10, tolerance: 0.05, minReplicas: 2, wantRunning: 1},
		{name: "3 configured, 1 Pending", configured: 3, live: 3, pend: 1, tolerance: 0.5, minReplicas: 2, wantRunning: 0, wantPending: 1},
		{name: "5 configured, 4 live", configured: 5, live: 4, tolerance: 0.5, minReplicas: 2, wantRunning: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !EnoughReplicas(tc.live, tc.minReplicas) {
				if tc.wantRunning != 0 || tc.wantPending != 0 {
					t.Fatalf("group skipped for minReplicas, want %d evictions", tc.wantRunning)
				}
				return
			}
			b := NewBudget(tc.configured, tc.live, tc.pend, tc.tolerance)
			gotPending, gotRunning := 0, 0
			// Every pod tries once, pending ones first, as the loop would
			// in any order: the result must not depend on it.
			for i := range tc.live {
				pending := i < tc.pend
				if b.CanDisrupt(pending) {
					b.Disrupted(pending)
					if pending {
						gotPending++
					} else {
						gotRunning++
					}
				}
			}
			if gotRunning != tc.wantRunning || gotPending != tc.wantPending {
				t.Errorf("evicted %d running and %d pending, want %d and %d", gotRunning, gotPending, tc.wantRunning, tc.wantPending)
			}
		})
	}
}

// TestBudgetBelowMinReplicas checks a group let through below minReplicas
// for in-place work only: it may be resized within the budget, but its
// running pods are never evicted (pending ones still are).
func TestBudgetBelowMinReplicas(t *testing.T) {
	tests := []struct {
		name                   string
		belowMin, pending      bool
		wantDisrupt, wantEvict bool
	}{
		{name: "normal group, running pod", wantDisrupt: true, wantEvict: true},
		{name: "below minReplicas, running pod", belowMin: true, wantDisrupt: true},
		{name: "below minReplicas, pending pod", belowMin: true, pending: true, wantDisrupt: true, wantEvict: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBudget(1, 1, 0, 0.5)
			b.belowMin = tc.belowMin
			if got := b.CanDisrupt(tc.pending); got != tc.wantDisrupt {
				t.Errorf("CanDisrupt = %v, want %v", got, tc.wantDisrupt)
			}
			if got := b.CanEvict(tc.pending); got != tc.wantEvict {
				t.Errorf("CanEvict = %v, want %v", got, tc.wantEvict)
			}
		})
	}
}

// TestConfiguredReplicas pins the replica count the budget starts from, as
// upstream's PodsRestrictionFactory.getReplicaCount reads it: a controller
// without replicas (unset or 0) is skipped, so a ReplicaSet scaled to zero
// whose pods still run keeps them. The VPA oracle (hack/vpafidelity,
// TestBudgetFidelity) found kscale evicting them.
func TestConfiguredReplicas(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	tests := []struct {
		kind    string
		want    *int32
		live    int
		out     int
		wantErr bool
	}{
		{"ReplicaSet", n(3), 5, 3, false},
		{"ReplicaSet", n(0), 2, 0, true},
		{"ReplicaSet", nil, 2, 0, true},
		{"StatefulSet", n(0), 1, 0, true},
		{"ReplicationController", n(2), 1, 2, false},
		{"DaemonSet", n(4), 4, 4, false},
		{"DaemonSet", n(0), 1, 0, true},
		{"Job", nil, 3, 3, false},
		{"CronJob", n(1), 1, 0, true},
	}
	for _, tc := range tests {
		got, err := ConfiguredReplicas(metav1.OwnerReference{Kind: tc.kind, Name: "c"}, tc.want, tc.live)
		if (err != nil) != tc.wantErr || got != tc.out {
			t.Errorf("%s %v live %d: got %d, %v; want %d, error %v", tc.kind, tc.want, tc.live, got, err, tc.out, tc.wantErr)
		}
	}
}
