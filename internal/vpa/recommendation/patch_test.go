package recommendation

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestResourcePatch(t *testing.T) {
	want := corev1.ResourceList{
		corev1.ResourceMemory: resource.MustParse("256Mi"),
		corev1.ResourceCPU:    resource.MustParse("500m"),
		"example.com/a~b":     resource.MustParse("1"),
	}
	tests := []struct {
		name  string
		have  corev1.ResourceList
		want  corev1.ResourceList
		patch string
		names int
	}{
		{"nothing to set", corev1.ResourceList{}, nil, "null", 0},
		{"map exists", corev1.ResourceList{}, want,
			`[{"op":"add","path":"/spec/containers/1/resources/requests/cpu","value":"500m"},` +
				`{"op":"add","path":"/spec/containers/1/resources/requests/example.com~1a~0b","value":"1"},` +
				`{"op":"add","path":"/spec/containers/1/resources/requests/memory","value":"256Mi"}]`, 3},
		{"map created first", nil, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			`[{"op":"add","path":"/spec/containers/1/resources/requests","value":{}},` +
				`{"op":"add","path":"/spec/containers/1/resources/requests/cpu","value":"2"}]`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, names := ResourcePatch(1, "requests", tt.have, tt.want)
			raw, err := json.Marshal(ops)
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tt.patch || len(names) != tt.names {
				t.Errorf("ResourcePatch = %s %v\nwant %s with %d names", raw, names, tt.patch, tt.names)
			}
		})
	}
}
