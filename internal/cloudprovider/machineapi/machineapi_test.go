package machineapi

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPlaceholders(t *testing.T) {
	got := Placeholders("mcm:///", "g", 3, 1)
	if len(got) != 2 || got[0].ID != "mcm:///placeholder/g/1" || got[1].ProviderID != "mcm:///placeholder/g/2" || !got[0].Placeholder {
		t.Fatalf("placeholders %+v", got)
	}
	if !IsPlaceholder("mcm:///", got[0].ID) || IsPlaceholder("clusterapi:///", got[0].ID) || IsPlaceholder("mcm:///", "machine-1") {
		t.Errorf("IsPlaceholder tells the wrong ids apart")
	}
	if n := len(Placeholders("p", "g", 1, 2)); n != 0 {
		t.Errorf("%d placeholders with more machines than replicas", n)
	}
}

func TestTaints(t *testing.T) {
	tests := []struct {
		raw  []any
		want []corev1.Taint
		err  string
	}{
		{raw: []any{map[string]any{"key": "a", "value": "b", "effect": "NoSchedule", "timeAdded": "x"}},
			want: []corev1.Taint{{Key: "a", Value: "b", Effect: corev1.TaintEffectNoSchedule}}},
		{raw: []any{"a=b:NoSchedule"}, err: "f[0]: not an object"},
		{raw: []any{map[string]any{"key": 1}}, err: "f[0]"},
	}
	for _, tt := range tests {
		got, err := Taints(tt.raw, "f")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Taints(%v) error %v, want %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) || got[0] != tt.want[0] {
			t.Errorf("Taints(%v) = %v, %v", tt.raw, got, err)
		}
		if !ContainsTaint(got, corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoSchedule}) || ContainsTaint(got, corev1.Taint{Key: "a", Effect: corev1.TaintEffectNoExecute}) {
			t.Errorf("ContainsTaint matches by key and effect")
		}
	}
}
