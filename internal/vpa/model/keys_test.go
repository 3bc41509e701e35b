package model

import "testing"

func TestLabelsKey(t *testing.T) {
	tests := []struct {
		set  map[string]string
		key  string
		same map[string]string
		diff []map[string]string
	}{
		{set: nil, key: "", same: map[string]string{}, diff: []map[string]string{{"a": "1"}}},
		{set: map[string]string{"b": "2", "a": "1"}, key: "a=1,b=2", same: map[string]string{"a": "1", "b": "2"},
			diff: []map[string]string{{"a": "1"}, {"a": "1", "b": "3"}, {"a": "1", "b": "2", "c": "3"}, {"a": "1", "c": "2"}}},
	}
	for _, tt := range tests {
		if got := LabelsKey(tt.set); got != tt.key {
			t.Fatalf("LabelsKey(%v) = %q, want %q", tt.set, got, tt.key)
		}
		if got := labelsFromKey(tt.key); len(got) != len(tt.set) {
			t.Fatalf("labelsFromKey(%q) = %v, want %v", tt.key, got, tt.set)
		}
		if !labelsMatchKey(tt.same, tt.key) {
			t.Fatalf("labelsMatchKey(%v, %q) = false", tt.same, tt.key)
		}
		for _, d := range tt.diff {
			if labelsMatchKey(d, tt.key) {
				t.Fatalf("labelsMatchKey(%v, %q) = true", d, tt.key)
			}
		}
	}
}
