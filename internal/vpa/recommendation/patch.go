package recommendation

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PatchOp is one JSON patch (RFC 6902) operation.
type PatchOp struct {
	// Op is the operation, for example "add".
	Op string `json:"op"`
	// Path is the JSON pointer of the target.
	Path string `json:"path"`
	// Value is the value to add or replace.
	Value any `json:"value,omitempty"`
}

// EscapePointer escapes a JSON pointer reference token (RFC 6901).
func EscapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// ResourcePatch returns the operations that set every value of want under
// the resources.<kind> ("requests" or "limits") of the container at index,
// creating the map first when the container has none (have is nil), and
// the names of the resources set, sorted. The webhook patches pods at
// creation with it, and the updater patches the pods/resize subresource.
func ResourcePatch(index int, kind string, have, want corev1.ResourceList) ([]PatchOp, []string) {
	if len(want) == 0 {
		return nil, nil
	}
	base := fmt.Sprintf("/spec/containers/%d/resources/%s", index, kind)
	var ops []PatchOp
	if have == nil {
		ops = append(ops, PatchOp{Op: "add", Path: base, Value: map[string]string{}})
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, string(name))
	}
	slices.Sort(names)
	for _, name := range names {
		q := want[corev1.ResourceName(name)]
		ops = append(ops, PatchOp{Op: "add", Path: base + "/" + EscapePointer(name), Value: q.String()})
	}
	return ops, names
}
