package target

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxOwnerDepth bounds the owner-reference walk against reference cycles.
const maxOwnerDepth = 10

// Reader is what the Resolver needs from a Kubernetes client: plain reads
// and the scale subresource. A controller-runtime client.Client satisfies it.
type Reader interface {
	client.Reader
	// SubResource returns a client for the named subresource.
	SubResource(subResource string) client.SubResourceClient
}

// Target is a resolved VPA targetRef.
type Target struct {
	// Ref is the controller the VPA points at.
	Ref ObjectRef
	// Selector selects the controller's pods.
	Selector labels.Selector
}

// Resolver resolves targetRefs and pod owners. It is safe for concurrent use.
type Resolver struct {
	reader Reader
}

// NewResolver returns a Resolver reading through r.
func NewResolver(r Reader) *Resolver {
	return &Resolver{reader: r}
}

// Resolve follows vpa.spec.targetRef and returns the controller and its pod
// selector. Failures caused by the VPA or its target are *Error values;
// other errors (for example a transient API error) are returned wrapped.
func (r *Resolver) Resolve(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler) (*Target, error) {
	ref, version, err := refFromTargetRef(vpa.Namespace, vpa.Spec.TargetRef)
	if err != nil {
		return nil, err
	}
	gk := schema.GroupKind{Group: ref.Group, Kind: ref.Kind}
	obj, err := r.get(ctx, ref, version)
	switch {
	case err == nil:
		if err := r.checkTopLevel(ctx, ref, obj); err != nil {
			return nil, err
		}
	case !isWellKnown(gk) && apierrors.IsForbidden(err):
		// Without read access to a custom object, rely on its scale
		// subresource alone; the top-level check needs the object's owners.
	default:
		return nil, err
	}
	sel, err := r.selector(ctx, ref, version, obj)
	if err != nil {
		return nil, err
	}
	return &Target{Ref: ref, Selector: sel}, nil
}

// get reads the target object; a missing object or kind is ReasonNotFound.
func (r *Resolver) get(ctx context.Context, ref ObjectRef, version string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(schema.GroupVersionKind{Group: ref.Group, Version: version, Kind: ref.Kind})
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj)
	switch {
	case err == nil:
		return obj, nil
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return nil, &Error{Reason: ReasonNotFound, Message: fmt.Sprintf("spec.targetRef: %s does not exist", ref), Err: err}
	default:
		return nil, fmt.Errorf("reading target %s: %w", ref, err)
	}
}

// checkTopLevel fails when obj's controller is itself a well-known or
// scalable controller that exists.
func (r *Resolver) checkTopLevel(ctx context.Context, ref ObjectRef, obj metav1.Object) error {
	owner := metav1.GetControllerOf(obj)
	if owner == nil {
		return nil
	}
	ownerRef, ok, err := r.controllerOwner(ctx, ref.Namespace, owner)
	if err != nil || !ok {
		return err
	}
	return &Error{Reason: ReasonNotTopLevel,
		Message: fmt.Sprintf("spec.targetRef: %s is controlled by %s; point the VPA at the top-most controller", ref, ownerRef)}
}

// selector returns the pod selector of a well-known controller from its
// spec, or of any other kind from its scale subresource.
func (r *Resolver) selector(ctx context.Context, ref ObjectRef, version string, obj *unstructured.Unstructured) (labels.Selector, error) {
	gk := schema.GroupKind{Group: ref.Group, Kind: ref.Kind}
	if !isWellKnown(gk) {
		return r.scaleSelector(ctx, ref, version)
	}
	sel, err := specSelector(gk, obj.Object)
	if err != nil {
		return nil, &Error{Reason: ReasonNoSelector, Message: fmt.Sprintf("reading the selector of %s", ref), Err: err}
	}
	if sel == nil || sel.Empty() {
		return nil, &Error{Reason: ReasonNoSelector, Message: fmt.Sprintf("%s has no pod selector", ref)}
	}
	return sel, nil
}

// specSelector reads the pod selector of a well-known controller.
func specSelector(gk schema.GroupKind, obj map[string]any) (labels.Selector, error) {
	switch gk.Kind {
	case "ReplicationController":
		m, _, err := unstructured.NestedStringMap(obj, "spec", "selector")
		if err != nil {
			return nil, err
		}
		return labels.SelectorFromSet(m), nil
	case "CronJob":
		m, _, err := unstructured.NestedStringMap(obj, "spec", "jobTemplate", "spec", "template", "metadata", "labels")
		if err != nil {
			return nil, err
		}
		return labels.SelectorFromSet(m), nil
	}
	raw, found, err := unstructured.NestedMap(obj, "spec", "selector")
	if err != nil || !found {
		return nil, err
	}
	ls := &metav1.LabelSelector{}
	if err := runtimeFromUnstructured(raw, ls); err != nil {
		return nil, err
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// scaleSelector reads status.selector from the scale subresource.
func (r *Resolver) scaleSelector(ctx context.Context, ref ObjectRef, version string) (labels.Selector, error) {
	sel, ok, err := r.scale(ctx, ref, version)
	if err != nil {
		return nil, fmt.Errorf("reading the scale subresource of %s: %w", ref, err)
	}
	if !ok {
		return nil, &Error{Reason: ReasonNoSelector,
			Message: fmt.Sprintf("%s is neither a well-known controller nor has a scale subresource", ref)}
	}
	if sel == "" {
		return nil, &Error{Reason: ReasonNoSelector, Message: fmt.Sprintf("%s reports no selector in its scale subresource", ref)}
	}
	parsed, err := labels.Parse(sel)
	if err != nil {
		return nil, &Error{Reason: ReasonNoSelector, Message: fmt.Sprintf("parsing the scale selector of %s", ref), Err: err}
	}
	return parsed, nil
}

// scale reads the scale subresource; ok is false when the kind has none.
func (r *Resolver) scale(ctx context.Context, ref ObjectRef, version string) (selector string, ok bool, err error) {
	parent := &unstructured.Unstructured{}
	parent.SetGroupVersionKind(schema.GroupVersionKind{Group: ref.Group, Version: version, Kind: ref.Kind})
	parent.SetNamespace(ref.Namespace)
	parent.SetName(ref.Name)
	sc := &unstructured.Unstructured{}
	sc.SetGroupVersionKind(schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})
	err = r.reader.SubResource("scale").Get(ctx, parent, sc)
	switch {
	case err == nil:
		s, _, _ := unstructured.NestedString(sc.Object, "status", "selector")
		return s, true, nil
	case apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) || meta.IsNoMatchError(err):
		return "", false, nil
	default:
		return "", false, err
	}
}

// controllerOwner reports whether the owner exists and is a well-known or
// scalable controller, and returns its reference.
func (r *Resolver) controllerOwner(ctx context.Context, namespace string, owner *metav1.OwnerReference) (ObjectRef, bool, error) {
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return ObjectRef{}, false, nil
	}
	ref := ObjectRef{Group: gv.Group, Kind: owner.Kind, Namespace: namespace, Name: owner.Name}
	if isWellKnown(schema.GroupKind{Group: gv.Group, Kind: owner.Kind}) {
		exists, err := r.exists(ctx, ref, gv.Version)
		return ref, exists, err
	}
	_, scalable, err := r.scale(ctx, ref, gv.Version)
	if err != nil {
		return ObjectRef{}, false, fmt.Errorf("reading the scale subresource of %s: %w", ref, err)
	}
	return ref, scalable, nil
}

// exists reports whether the object exists, reading only its metadata.
func (r *Resolver) exists(ctx context.Context, ref ObjectRef, version string) (bool, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(schema.GroupVersionKind{Group: ref.Group, Version: version, Kind: ref.Kind})
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, m)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, fmt.Errorf("reading %s: %w", ref, err)
	}
}

// TopLevelController returns the top-most well-known or scalable controller
// of the pod, following controller owner references; nil when the pod has
// no such controller.
func (r *Resolver) TopLevelController(ctx context.Context, pod *corev1.Pod) (*ObjectRef, error) {
	var top *ObjectRef
	owner := metav1.GetControllerOf(pod)
	for depth := 0; owner != nil && depth < maxOwnerDepth; depth++ {
		ref, ok, err := r.controllerOwner(ctx, pod.Namespace, owner)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		top = &ref
		owner, err = r.ownerOf(ctx, ref, owner.APIVersion)
		if err != nil {
			return nil, err
		}
	}
	return top, nil
}

// ownerOf returns the controller owner reference of the object, if any.
func (r *Resolver) ownerOf(ctx context.Context, ref ObjectRef, apiVersion string) (*metav1.OwnerReference, error) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, ref.Kind))
	err := r.reader.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, m)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading %s: %w", ref, err)
	}
	return metav1.GetControllerOf(m), nil
}

// errNilSelector is returned when a selector field has an unexpected shape.
var errNilSelector = errors.New("selector is not an object")
