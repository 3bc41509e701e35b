package target

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectRef names one object by API group, kind, namespace and name.
type ObjectRef struct {
	// Group is the API group, "" for the core group.
	Group string
	// Kind is the object's kind, for example Deployment.
	Kind string
	// Namespace is the object's namespace.
	Namespace string
	// Name is the object's name.
	Name string
}

// String returns "kind.group/namespace/name".
func (r ObjectRef) String() string {
	gk := schema.GroupKind{Group: r.Group, Kind: r.Kind}
	return fmt.Sprintf("%s/%s/%s", gk.String(), r.Namespace, r.Name)
}

// wellKnown maps the controllers whose selector is read from their spec to
// their preferred version.
var wellKnown = map[schema.GroupKind]string{
	{Group: "apps", Kind: "Deployment"}:        "v1",
	{Group: "apps", Kind: "ReplicaSet"}:        "v1",
	{Group: "apps", Kind: "StatefulSet"}:       "v1",
	{Group: "apps", Kind: "DaemonSet"}:         "v1",
	{Group: "batch", Kind: "Job"}:              "v1",
	{Group: "batch", Kind: "CronJob"}:          "v1",
	{Group: "", Kind: "ReplicationController"}: "v1",
}

// isWellKnown reports whether gk is one of the well-known controllers.
func isWellKnown(gk schema.GroupKind) bool {
	_, ok := wellKnown[gk]
	return ok
}

// refFromTargetRef turns a VPA targetRef into an ObjectRef and the version to
// read it with. An empty apiVersion is accepted for the well-known kinds.
func refFromTargetRef(namespace string, tr *autoscalingv1.CrossVersionObjectReference) (ObjectRef, string, error) {
	if tr == nil {
		return ObjectRef{}, "", &Error{Reason: ReasonInvalid, Message: "spec.targetRef is required"}
	}
	if tr.Kind == "" || tr.Name == "" {
		return ObjectRef{}, "", &Error{Reason: ReasonInvalid, Message: "spec.targetRef: kind and name are required"}
	}
	if tr.APIVersion == "" {
		for gk, v := range wellKnown {
			if gk.Kind == tr.Kind {
				return ObjectRef{Group: gk.Group, Kind: tr.Kind, Namespace: namespace, Name: tr.Name}, v, nil
			}
		}
		return ObjectRef{}, "", &Error{Reason: ReasonInvalid,
			Message: fmt.Sprintf("spec.targetRef.apiVersion is required for kind %q", tr.Kind)}
	}
	gv, err := schema.ParseGroupVersion(tr.APIVersion)
	if err != nil {
		return ObjectRef{}, "", &Error{Reason: ReasonInvalid,
			Message: fmt.Sprintf("spec.targetRef.apiVersion %q: %v", tr.APIVersion, err)}
	}
	return ObjectRef{Group: gv.Group, Kind: tr.Kind, Namespace: namespace, Name: tr.Name}, gv.Version, nil
}
