package machineapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// PlaceholderID is the id (and provider id) of a group's i-th
// placeholder: prefix, "placeholder/", the group id and the index. No node
// ever carries it.
func PlaceholderID(prefix, groupID string, i int) string {
	return fmt.Sprintf("%splaceholder/%s/%d", prefix, groupID, i)
}

// IsPlaceholder reports whether id was made by PlaceholderID with prefix.
func IsPlaceholder(prefix, id string) bool { return strings.HasPrefix(id, prefix+"placeholder/") }

// Placeholders returns one placeholder per replica beyond live, the
// machines that exist and are not being deleted.
func Placeholders(prefix, groupID string, replicas, live int) []cloudprovider.Instance {
	var out []cloudprovider.Instance
	for i := live; i < replicas; i++ {
		id := PlaceholderID(prefix, groupID, i)
		out = append(out, cloudprovider.Instance{ID: id, ProviderID: id, State: cloudprovider.InstanceCreating, Placeholder: true})
	}
	return out
}

// FromUnstructured converts an unstructured map into a typed value.
func FromUnstructured(raw map[string]any, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(raw, into)
}

// Taints decodes a list of taints read from an unstructured object (key,
// value and effect of each item; other fields are ignored). field names
// the list in errors.
func Taints(raw []any, field string) ([]corev1.Taint, error) {
	var out []corev1.Taint
	for i, item := range raw {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: not an object", field, i)
		}
		var t corev1.Taint
		if err := FromUnstructured(map[string]any{"key": m["key"], "value": m["value"], "effect": m["effect"]}, &t); err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// ContainsTaint reports whether ts holds a taint with t's key and effect.
func ContainsTaint(ts []corev1.Taint, t corev1.Taint) bool {
	for i := range ts {
		if ts[i].MatchTaint(&t) {
			return true
		}
	}
	return false
}

// MergePatch applies a JSON merge patch of fields to an object (or one of
// its subresources). With a resourceVersion the patch fails with a
// conflict when the object changed since it was read.
func MergePatch(ctx context.Context, r dynamic.ResourceInterface, name, resourceVersion string, fields map[string]any, subresources ...string) error {
	if resourceVersion != "" {
		meta, _ := fields["metadata"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["resourceVersion"] = resourceVersion
		fields["metadata"] = meta
	}
	patch, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encoding the patch of %s: %w", name, err)
	}
	if _, err := r.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, subresources...); err != nil {
		return fmt.Errorf("patching %s: %w", name, err)
	}
	return nil
}
