package machineapi

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/kscale/kscale/internal/cloudprovider"
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

// GrowBy is IncreaseSize's step for Resize: current plus delta, refused
// with a *cloudprovider.SizeError above the group's max size.
func GrowBy(ng *cloudprovider.NodeGroup, delta int) func(int) (int, error) {
	return func(cur int) (int, error) {
		if cur+delta > ng.MaxSize {
			return 0, &cloudprovider.SizeError{Group: ng.ID, Requested: cur + delta, Limit: ng.MaxSize, Bound: cloudprovider.BoundAboveMax}
		}
		return cur + delta, nil
	}
}

// ShrinkBy is DecreaseTargetSize's step for Resize: current minus delta,
// refused below exist, the machines that exist and are not being deleted.
func ShrinkBy(ng *cloudprovider.NodeGroup, delta, exist int) func(int) (int, error) {
	return func(cur int) (int, error) {
		if cur-delta < exist {
			return 0, &cloudprovider.SizeError{Group: ng.ID, Requested: cur - delta, Limit: exist, Bound: cloudprovider.BoundBelowInstances}
		}
		return cur - delta, nil
	}
}

// CheckDelta refuses a size change that is not positive; op names the
// call ("increasing", "decreasing").
func CheckDelta(op, groupID string, delta int) error {
	if delta <= 0 {
		return fmt.Errorf("%s node group %q: delta %d is not positive", op, groupID, delta)
	}
	return nil
}
