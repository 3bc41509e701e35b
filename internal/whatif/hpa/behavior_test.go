package hpa

import (
	"testing"
	"time"
)

func TestNormalizeWithBehavior(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	def := DefaultBehavior(5 * time.Minute)
	tests := []struct {
		name       string
		b          Behavior
		steps      []int32 // proposals, 15s apart, starting from current 4
		want       []int32
		minR, maxR int32
	}{
		{"scale-up limited to +4 pods or 100% per 15s", def, []int32{20, 20, 20}, []int32{8, 16, 20}, 1, 30},
		{"scale-down waits for the 5m window", def, []int32{1, 1}, []int32{4, 4}, 1, 30},
		{"max clamps", def, []int32{50}, []int32{6}, 1, 6},
		{"select Min takes the smaller step", Behavior{Up: Rules{Select: SelectMin, Policies: []Policy{{PodsPolicy, 1, 15 * time.Second}, {PercentPolicy, 100, 15 * time.Second}}}, Down: def.Down}, []int32{20, 20}, []int32{5, 6}, 1, 30},
		{"disabled scale-up", Behavior{Up: Rules{Select: SelectOff}, Down: def.Down}, []int32{9}, []int32{4}, 1, 10},
		{"scale-down by 1 pod per 15s, no window", Behavior{Up: def.Up, Down: Rules{Select: SelectMax, Policies: []Policy{{PodsPolicy, 1, 15 * time.Second}}}}, []int32{1, 1, 1}, []int32{3, 2, 1}, 1, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s State
			cur := int32(4)
			for i, p := range tc.steps {
				cur = s.Normalize(t0.Add(time.Duration(i)*15*time.Second), cur, p, tc.minR, tc.maxR, &tc.b, 0)
				if cur != tc.want[i] {
					t.Fatalf("step %d: got %d, want %d", i, cur, tc.want[i])
				}
			}
		})
	}
}

func TestNormalizeLegacy(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s State
	// up to max(2×current, 4); scale-down waits for the window's maximum
	if got := s.Normalize(t0, 2, 20, 1, 30, nil, 5*time.Minute); got != 4 {
		t.Fatalf("got %d, want 4", got)
	}
	if got := s.Normalize(t0.Add(time.Minute), 4, 1, 1, 30, nil, 5*time.Minute); got != 8 { // the window holds 20, clamped to 2×4
		t.Fatalf("got %d, want 8", got)
	}
	if got := s.Normalize(t0.Add(10*time.Minute), 4, 1, 1, 30, nil, 5*time.Minute); got != 1 {
		t.Fatalf("after the window: got %d, want 1", got)
	}
}
