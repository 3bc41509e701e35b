package target

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CachedReader is a Reader that serves the well-known controllers (objects
// and metadata) from an informer cache and everything else, including the
// scale subresource and custom kinds, from the API server. With it, a
// resolution costs no API call for the usual targets.
type CachedReader struct {
	cache  client.Reader
	direct client.Client
}

// NewCachedReader returns a reader using cache for the well-known kinds
// (the cache must be started) and direct for the rest. The identity needs
// list and watch on the well-known kinds.
func NewCachedReader(cache client.Reader, direct client.Client) *CachedReader {
	return &CachedReader{cache: cache, direct: direct}
}

// Get reads from the cache for a well-known kind, else from the API server.
func (c *CachedReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if isWellKnown(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}) {
		return c.cache.Get(ctx, key, obj, opts...)
	}
	return c.direct.Get(ctx, key, obj, opts...)
}

// List lists from the API server.
func (c *CachedReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.direct.List(ctx, list, opts...)
}

// SubResource returns the API server's subresource client.
func (c *CachedReader) SubResource(subResource string) client.SubResourceClient {
	return c.direct.SubResource(subResource)
}
