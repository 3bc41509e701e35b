package machineapi

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// PatchFresh reads an object (or one of its subresources) from the API
// server, lets change compute a JSON merge patch from it and applies the
// patch guarded by the resourceVersion it read; when a concurrent change
// makes it conflict, it starts over from a fresh read. An error from
// change stops it with nothing written.
func PatchFresh(ctx context.Context, r dynamic.ResourceInterface, name string,
	change func(*unstructured.Unstructured) (map[string]any, error), subresources ...string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := r.Get(ctx, name, metav1.GetOptions{}, subresources...)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		fields, err := change(obj)
		if err != nil {
			return err
		}
		return MergePatch(ctx, r, name, obj.GetResourceVersion(), fields, subresources...)
	})
}

// ReplicasOf reads spec.replicas of an object or scale subresource; an
// absent field is 0, as a Scale at zero omits it.
func ReplicasOf(obj *unstructured.Unstructured) (int, error) {
	n, _, err := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	if err != nil {
		return 0, fmt.Errorf("%s: spec.replicas: %w", obj.GetName(), err)
	}
	return int(n), nil
}

// Resize sets spec.replicas of an object (or its scale subresource) to
// next(current) with PatchFresh and returns the replicas written. An
// error from next (for example a *cloudprovider.SizeError) is returned as
// it is.
func Resize(ctx context.Context, r dynamic.ResourceInterface, name string, next func(current int) (int, error), subresources ...string) (int, error) {
	var target int
	err := PatchFresh(ctx, r, name, func(obj *unstructured.Unstructured) (map[string]any, error) {
		cur, err := ReplicasOf(obj)
		if err != nil {
			return nil, err
		}
		if target, err = next(cur); err != nil {
			return nil, err
		}
		return map[string]any{"spec": map[string]any{"replicas": target}}, nil
	}, subresources...)
	return target, err
}
