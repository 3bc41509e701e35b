package updater

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/target"
)

// cachedKinds are the controllers whose reads TargetReader serves from the
// typed cache: the well-known pod owners and VPA targets.
var cachedKinds = map[schema.GroupVersionKind]bool{
	{Group: "apps", Version: "v1", Kind: "Deployment"}:        true,
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"}:        true,
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}:       true,
	{Group: "apps", Version: "v1", Kind: "DaemonSet"}:         true,
	{Group: "batch", Version: "v1", Kind: "Job"}:              true,
	{Group: "batch", Version: "v1", Kind: "CronJob"}:          true,
	{Group: "", Version: "v1", Kind: "ReplicationController"}: true,
}

// TargetReader is a target.Reader for the updater's loop: reads of the
// well-known controllers (as unstructured objects or metadata) come from
// the typed cache, which the updater's informers keep, so resolving every
// VPA and pod owner once per loop costs no API requests. Other kinds and
// the scale subresource are read directly.
type TargetReader struct {
	cache  client.Reader
	direct target.Reader
	scheme *runtime.Scheme
}

// NewTargetReader returns a TargetReader reading cached objects from cache
// (typed, registered in scheme) and everything else from direct.
func NewTargetReader(cache client.Reader, direct target.Reader, scheme *runtime.Scheme) *TargetReader {
	return &TargetReader{cache: cache, direct: direct, scheme: scheme}
}

// Get reads one object.
func (r *TargetReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		if cachedKinds[gvk] {
			return r.getUnstructured(ctx, key, gvk, o)
		}
	case *metav1.PartialObjectMetadata:
		if cachedKinds[gvk] {
			return r.getMetadata(ctx, key, gvk, o)
		}
	}
	return r.direct.Get(ctx, key, obj, opts...)
}

// List lists objects directly.
func (r *TargetReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.direct.List(ctx, list, opts...)
}

// SubResource returns the direct client for a subresource.
func (r *TargetReader) SubResource(subResource string) client.SubResourceClient {
	return r.direct.SubResource(subResource)
}

func (r *TargetReader) typed(ctx context.Context, key client.ObjectKey, gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := r.scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", gvk, err)
	}
	typed, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", gvk)
	}
	if err := r.cache.Get(ctx, key, typed); err != nil {
		return nil, err
	}
	return typed, nil
}

func (r *TargetReader) getUnstructured(ctx context.Context, key client.ObjectKey, gvk schema.GroupVersionKind, out *unstructured.Unstructured) error {
	typed, err := r.typed(ctx, key, gvk)
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return fmt.Errorf("converting %s %s: %w", gvk.Kind, key, err)
	}
	out.SetUnstructuredContent(m)
	out.SetGroupVersionKind(gvk)
	return nil
}

func (r *TargetReader) getMetadata(ctx context.Context, key client.ObjectKey, gvk schema.GroupVersionKind, out *metav1.PartialObjectMetadata) error {
	u := &unstructured.Unstructured{}
	if err := r.getUnstructured(ctx, key, gvk, u); err != nil {
		return err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"metadata": u.Object["metadata"]}, out); err != nil {
		return fmt.Errorf("converting the metadata of %s %s: %w", gvk.Kind, key, err)
	}
	out.SetGroupVersionKind(gvk)
	return nil
}
