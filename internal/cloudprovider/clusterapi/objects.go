package clusterapi

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// scalable is a scalable resource (MachineDeployment, MachineSet or
// MachinePool) read from an unstructured object.
type scalable struct {
	kind, namespace, name string
	gvr                   schema.GroupVersionResource
	clusterName           string
	labels, annotations   map[string]string
	replicas              int
	obj                   *unstructured.Unstructured
}

// id is upstream's node group id, <Kind>/<namespace>/<name>.
func (r *scalable) id() string { return r.kind + "/" + r.namespace + "/" + r.name }

// newResource reads the fields every scalable resource has.
func newResource(obj *unstructured.Unstructured, kind string, gvr schema.GroupVersionResource, n Names) (*scalable, error) {
	r := &scalable{kind: kind, namespace: obj.GetNamespace(), name: obj.GetName(), gvr: gvr,
		labels: obj.GetLabels(), annotations: obj.GetAnnotations(), obj: obj}
	r.clusterName, _, _ = unstructured.NestedString(obj.Object, "spec", "clusterName")
	if r.clusterName == "" {
		r.clusterName = r.labels[n.ClusterName]
	}
	replicas, found, err := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: spec.replicas: %w", r.id(), err)
	case !found:
		return nil, fmt.Errorf("%s: spec.replicas is not set", r.id())
	}
	r.replicas = int(replicas)
	return r, nil
}

// bounds parses the min/max size annotations: a missing min is 0, a
// missing max is 0 (the resource is not a node group then).
func (r *scalable) bounds(n Names) (minSize, maxSize int, err error) {
	parse := func(key string) (int, error) {
		v, ok := r.annotations[key]
		if !ok {
			return 0, nil
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return 0, fmt.Errorf("%s: annotation %s: %q is not a non-negative integer", r.id(), key, v)
		}
		return i, nil
	}
	if minSize, err = parse(n.MinSize); err != nil {
		return 0, 0, err
	}
	if maxSize, err = parse(n.MaxSize); err != nil {
		return 0, 0, err
	}
	if maxSize < minSize {
		return 0, 0, fmt.Errorf("%s: max size %d (%s) is below min size %d (%s)", r.id(), maxSize, n.MaxSize, minSize, n.MinSize)
	}
	return minSize, maxSize, nil
}

// selector is the resource's spec.selector; MachinePools have none.
func (r *scalable) selector() (labels.Selector, error) {
	raw, found, err := unstructured.NestedMap(r.obj.Object, "spec", "selector")
	if err != nil || !found {
		return nil, fmt.Errorf("%s: spec.selector is missing", r.id())
	}
	var ls metav1.LabelSelector
	if err := fromUnstructured(raw, &ls); err != nil {
		return nil, fmt.Errorf("%s: spec.selector: %w", r.id(), err)
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return nil, fmt.Errorf("%s: spec.selector: %w", r.id(), err)
	}
	return sel, nil
}

// ownedByDeployment reports whether a MachineSet belongs to a
// MachineDeployment (its group is the deployment then).
func ownedByDeployment(obj *unstructured.Unstructured) bool {
	for _, o := range obj.GetOwnerReferences() {
		if o.Kind == machineDeploymentK {
			return true
		}
	}
	return false
}

// machine is one Machine with the fields the provider reads.
type machine struct {
	namespace, name string
	clusterName     string
	labels          map[string]string
	providerID      string
	nodeName        string
	deleting        bool
	phase           string
	failureReason   string
	failureMessage  string
	conditions      []condition
}

// id is the instance id of the machine, <namespace>/<name>.
func (m *machine) id() string { return m.namespace + "/" + m.name }

// newMachine reads a Machine; the failure fields are read from the v1beta1
// location and from v1beta2's status.deprecated.v1beta1.
func newMachine(obj *unstructured.Unstructured, n Names) *machine {
	m := &machine{namespace: obj.GetNamespace(), name: obj.GetName(), labels: obj.GetLabels(),
		deleting: obj.GetDeletionTimestamp() != nil}
	m.clusterName, _, _ = unstructured.NestedString(obj.Object, "spec", "clusterName")
	if m.clusterName == "" {
		m.clusterName = m.labels[n.ClusterName]
	}
	m.providerID, _, _ = unstructured.NestedString(obj.Object, "spec", "providerID")
	m.nodeName, _, _ = unstructured.NestedString(obj.Object, "status", "nodeRef", "name")
	m.phase, _, _ = unstructured.NestedString(obj.Object, "status", "phase")
	for _, base := range [][]string{{"status"}, {"status", "deprecated", "v1beta1"}} {
		if v, _, _ := unstructured.NestedString(obj.Object, append(base, "failureReason")...); v != "" {
			m.failureReason = v
		}
		if v, _, _ := unstructured.NestedString(obj.Object, append(base, "failureMessage")...); v != "" {
			m.failureMessage = v
		}
	}
	m.conditions = readConditions(obj)
	return m
}
