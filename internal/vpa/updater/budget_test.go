package updater

import "testing"

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
