package snapfidelity

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// world is the resource version of every object of the kinds the live
// loop and the snapshot read (and the cluster's components write), by
// kind, namespace and name. Two equal worlds taken before the live loop
// and after the snapshot prove both read the same cluster: any write in
// between changes an object's resource version, adds or removes one.
type world map[string]string

// maxCompareAttempts bounds how often a cluster that moved while it was
// compared is settled and compared again.
const maxCompareAttempts = 5

// readWorld lists the nodes, the persistent volumes and the generated
// namespaces' objects (claims included: the harness's provisioner binds
// them).
func (h *Harness) readWorld(ctx context.Context) (world, error) {
	opts := metav1.ListOptions{}
	w := world{}
	nodes, err := h.Client.CoreV1().Nodes().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	if err := w.add("Node", nodes); err != nil {
		return nil, err
	}
	volumes, err := h.Client.CoreV1().PersistentVolumes().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing persistent volumes: %w", err)
	}
	if err := w.add("PersistentVolume", volumes); err != nil {
		return nil, err
	}
	for _, ns := range Namespaces {
		lists := map[string]func() (runtime.Object, error){
			"Pod":                   func() (runtime.Object, error) { return h.Client.CoreV1().Pods(ns).List(ctx, opts) },
			"PodDisruptionBudget":   func() (runtime.Object, error) { return h.Client.PolicyV1().PodDisruptionBudgets(ns).List(ctx, opts) },
			"ReplicaSet":            func() (runtime.Object, error) { return h.Client.AppsV1().ReplicaSets(ns).List(ctx, opts) },
			"StatefulSet":           func() (runtime.Object, error) { return h.Client.AppsV1().StatefulSets(ns).List(ctx, opts) },
			"ReplicationController": func() (runtime.Object, error) { return h.Client.CoreV1().ReplicationControllers(ns).List(ctx, opts) },
			"DaemonSet":             func() (runtime.Object, error) { return h.Client.AppsV1().DaemonSets(ns).List(ctx, opts) },
			"Job":                   func() (runtime.Object, error) { return h.Client.BatchV1().Jobs(ns).List(ctx, opts) },
			"PersistentVolumeClaim": func() (runtime.Object, error) {
				return h.Client.CoreV1().PersistentVolumeClaims(ns).List(ctx, opts)
			},
		}
		for _, kind := range slices.Sorted(maps.Keys(lists)) {
			list, err := lists[kind]()
			if err != nil {
				return nil, fmt.Errorf("listing %ss of namespace %s: %w", kind, ns, err)
			}
			if err := w.add(kind, list); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// add records the list's objects.
func (w world) add(kind string, list runtime.Object) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return fmt.Errorf("reading the %s list: %w", kind, err)
	}
	for _, item := range items {
		o, err := meta.Accessor(item)
		if err != nil {
			return fmt.Errorf("reading a %s: %w", kind, err)
		}
		w[kind+" "+o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	return nil
}

// changes lists the objects that differ between w and later, sorted.
func (w world) changes(later world) []string {
	var out []string
	for k, rv := range w {
		if later[k] != rv {
			out = append(out, k)
		}
	}
	for k := range later {
		if _, ok := w[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
