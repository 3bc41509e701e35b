package clusterapi

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// infraTemplates reads infrastructure machine templates for one Refresh:
// each kind is listed once, on first use, in the provider's namespace, so
// a loop costs one request per kind instead of one per node group.
type infraTemplates struct {
	client    dynamic.Interface
	namespace string
	kinds     map[schema.GroupVersionResource]*infraKind
}

type infraKind struct {
	objs map[string]*unstructured.Unstructured
	err  error
}

// get returns the template namespace/name of resource gvr.
func (t *infraTemplates) get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	if t.kinds == nil {
		t.kinds = map[schema.GroupVersionResource]*infraKind{}
	}
	k, ok := t.kinds[gvr]
	if !ok {
		k = &infraKind{objs: map[string]*unstructured.Unstructured{}}
		list, err := t.client.Resource(gvr).Namespace(t.namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			k.err = fmt.Errorf("listing %s: %w", gvr.Resource, err)
		} else {
			for i := range list.Items {
				o := &list.Items[i]
				k.objs[o.GetNamespace()+"/"+o.GetName()] = o
			}
		}
		t.kinds[gvr] = k
	}
	if k.err != nil {
		return nil, k.err
	}
	obj, ok := k.objs[namespace+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return obj, nil
}
