package snapshot

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// DefaultPageSize is how many objects Read asks for per List call.
const DefaultPageSize = 500

// ReadOptions configure Read.
type ReadOptions struct {
	// Namespace holds the priority expander ConfigMap (the autoscaler's
	// namespace).
	Namespace string
	// ConfigMapName is the priority expander ConfigMap's name.
	ConfigMapName string
	// PageSize is the Limit of each List call; default DefaultPageSize.
	PageSize int64
}

// Read lists what a snapshot needs from the cluster: nodes, pods and
// PodDisruptionBudgets of all namespaces, page by page (each list is one
// consistent resource version), and the priority expander ConfigMap when it
// exists. It needs get on that ConfigMap and list on nodes, pods,
// poddisruptionbudgets, daemonsets, the controllers readControllers lists,
// persistentvolumeclaims, persistentvolumes and storageclasses.
func Read(ctx context.Context, client kubernetes.Interface, o ReadOptions) (*Cluster, error) {
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	c := &Cluster{}
	var err error
	c.Nodes, err = listAll(ctx, "nodes", o.PageSize, client.CoreV1().Nodes().List,
		func(l *corev1.NodeList) ([]corev1.Node, string) { return l.Items, l.Continue })
	if err != nil {
		return nil, err
	}
	c.Pods, err = listAll(ctx, "pods", o.PageSize, client.CoreV1().Pods(metav1.NamespaceAll).List,
		func(l *corev1.PodList) ([]corev1.Pod, string) { return l.Items, l.Continue })
	if err != nil {
		return nil, err
	}
	c.PDBs, err = listAll(ctx, "poddisruptionbudgets", o.PageSize, client.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List,
		func(l *policyv1.PodDisruptionBudgetList) ([]policyv1.PodDisruptionBudget, string) {
			return l.Items, l.Continue
		})
	if err != nil {
		return nil, err
	}
	c.DaemonSets, err = listAll(ctx, "daemonsets", o.PageSize, client.AppsV1().DaemonSets(metav1.NamespaceAll).List,
		func(l *appsv1.DaemonSetList) ([]appsv1.DaemonSet, string) { return l.Items, l.Continue })
	if err != nil {
		return nil, err
	}
	if c.Controllers, c.Desired, err = readControllers(ctx, client, o.PageSize); err != nil {
		return nil, err
	}
	if err := readStorage(ctx, client, o.PageSize, c); err != nil {
		return nil, err
	}
	cm, err := client.CoreV1().ConfigMaps(o.Namespace).Get(ctx, o.ConfigMapName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", o.Namespace, o.ConfigMapName, err)
	default:
		c.Priorities = cm
	}
	return c, nil
}

// readStorage lists the claims of all namespaces, the volumes and the
// storage classes.
func readStorage(ctx context.Context, client kubernetes.Interface, pageSize int64, c *Cluster) error {
	var err error
	c.PersistentVolumeClaims, err = listAll(ctx, "persistentvolumeclaims", pageSize, client.CoreV1().PersistentVolumeClaims(metav1.NamespaceAll).List,
		func(l *corev1.PersistentVolumeClaimList) ([]corev1.PersistentVolumeClaim, string) {
			return l.Items, l.Continue
		})
	if err != nil {
		return err
	}
	c.PersistentVolumes, err = listAll(ctx, "persistentvolumes", pageSize, client.CoreV1().PersistentVolumes().List,
		func(l *corev1.PersistentVolumeList) ([]corev1.PersistentVolume, string) { return l.Items, l.Continue })
	if err != nil {
		return err
	}
	c.StorageClasses, err = listAll(ctx, "storageclasses", pageSize, client.StorageV1().StorageClasses().List,
		func(l *storagev1.StorageClassList) ([]storagev1.StorageClass, string) { return l.Items, l.Continue })
	return err
}

// listAll follows the continue tokens of a paginated List.
func listAll[L any, T any](ctx context.Context, what string, pageSize int64,
	list func(context.Context, metav1.ListOptions) (L, error), page func(L) ([]T, string)) ([]T, error) {
	var out []T
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		l, err := list(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", what, err)
		}
		items, next := page(l)
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		opts.Continue = next
	}
}

// controllerObject is what a snapshot keeps of a controller: its metadata
// and desired replicas (nil for a Job, which has no scale).
type controllerObject struct {
	meta     metav1.ObjectMeta
	replicas *int32
}

// readControllers lists the controllers whose existence the drain rules
// check (ReplicaSets, StatefulSets, Jobs, ReplicationControllers) and
// returns them by ControllerKey, with the desired replicas of the ones
// the disruption controller scales a budget by.
func readControllers(ctx context.Context, client kubernetes.Interface, pageSize int64) (map[string]bool, map[string]int32, error) {
	exists, desired := map[string]bool{}, map[string]int32{}
	add := func(kind string, objs []controllerObject) {
		for _, o := range objs {
			key := ControllerKey(o.meta.Namespace, kind, o.meta.Name, o.meta.UID)
			exists[key] = true
			if o.replicas != nil {
				desired[key] = *o.replicas
			}
		}
	}
	rs, err := listAll(ctx, "replicasets", pageSize, client.AppsV1().ReplicaSets(metav1.NamespaceAll).List,
		func(l *appsv1.ReplicaSetList) ([]controllerObject, string) {
			return objectsOf(l.Items, func(o appsv1.ReplicaSet) controllerObject {
				return controllerObject{o.ObjectMeta, replicasOrOne(o.Spec.Replicas)}
			}), l.Continue
		})
	if err != nil {
		return nil, nil, err
	}
	add("ReplicaSet", rs)
	ss, err := listAll(ctx, "statefulsets", pageSize, client.AppsV1().StatefulSets(metav1.NamespaceAll).List,
		func(l *appsv1.StatefulSetList) ([]controllerObject, string) {
			return objectsOf(l.Items, func(o appsv1.StatefulSet) controllerObject {
				return controllerObject{o.ObjectMeta, replicasOrOne(o.Spec.Replicas)}
			}), l.Continue
		})
	if err != nil {
		return nil, nil, err
	}
	add("StatefulSet", ss)
	jobs, err := listAll(ctx, "jobs", pageSize, client.BatchV1().Jobs(metav1.NamespaceAll).List,
		func(l *batchv1.JobList) ([]controllerObject, string) {
			return objectsOf(l.Items, func(o batchv1.Job) controllerObject { return controllerObject{meta: o.ObjectMeta} }), l.Continue
		})
	if err != nil {
		return nil, nil, err
	}
	add("Job", jobs)
	rcs, err := listAll(ctx, "replicationcontrollers", pageSize, client.CoreV1().ReplicationControllers(metav1.NamespaceAll).List,
		func(l *corev1.ReplicationControllerList) ([]controllerObject, string) {
			return objectsOf(l.Items, func(o corev1.ReplicationController) controllerObject {
				return controllerObject{o.ObjectMeta, replicasOrOne(o.Spec.Replicas)}
			}), l.Continue
		})
	if err != nil {
		return nil, nil, err
	}
	add("ReplicationController", rcs)
	return exists, desired, nil
}

// replicasOrOne is a spec.replicas with the API's default of 1.
func replicasOrOne(r *int32) *int32 {
	if r == nil {
		one := int32(1)
		return &one
	}
	return r
}

func objectsOf[T any](items []T, meta func(T) controllerObject) []controllerObject {
	out := make([]controllerObject, len(items))
	for i, o := range items {
		out[i] = meta(o)
	}
	return out
}
