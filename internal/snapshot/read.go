package snapshot

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
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
// exists. It needs get on that ConfigMap and list on nodes, pods and
// poddisruptionbudgets.
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
	if c.Controllers, err = readControllers(ctx, client, o.PageSize); err != nil {
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

// readControllers lists the controllers whose existence the drain rules
// check (ReplicaSets, StatefulSets, Jobs, ReplicationControllers).
func readControllers(ctx context.Context, client kubernetes.Interface, pageSize int64) (map[string]bool, error) {
	out := map[string]bool{}
	add := func(kind string, metas []metav1.ObjectMeta) {
		for _, m := range metas {
			out[ControllerKey(m.Namespace, kind, m.Name, m.UID)] = true
		}
	}
	rs, err := listAll(ctx, "replicasets", pageSize, client.AppsV1().ReplicaSets(metav1.NamespaceAll).List,
		func(l *appsv1.ReplicaSetList) ([]metav1.ObjectMeta, string) {
			return metasOf(l.Items, func(o appsv1.ReplicaSet) metav1.ObjectMeta { return o.ObjectMeta }), l.Continue
		})
	if err != nil {
		return nil, err
	}
	add("ReplicaSet", rs)
	ss, err := listAll(ctx, "statefulsets", pageSize, client.AppsV1().StatefulSets(metav1.NamespaceAll).List,
		func(l *appsv1.StatefulSetList) ([]metav1.ObjectMeta, string) {
			return metasOf(l.Items, func(o appsv1.StatefulSet) metav1.ObjectMeta { return o.ObjectMeta }), l.Continue
		})
	if err != nil {
		return nil, err
	}
	add("StatefulSet", ss)
	jobs, err := listAll(ctx, "jobs", pageSize, client.BatchV1().Jobs(metav1.NamespaceAll).List,
		func(l *batchv1.JobList) ([]metav1.ObjectMeta, string) {
			return metasOf(l.Items, func(o batchv1.Job) metav1.ObjectMeta { return o.ObjectMeta }), l.Continue
		})
	if err != nil {
		return nil, err
	}
	add("Job", jobs)
	rcs, err := listAll(ctx, "replicationcontrollers", pageSize, client.CoreV1().ReplicationControllers(metav1.NamespaceAll).List,
		func(l *corev1.ReplicationControllerList) ([]metav1.ObjectMeta, string) {
			return metasOf(l.Items, func(o corev1.ReplicationController) metav1.ObjectMeta { return o.ObjectMeta }), l.Continue
		})
	if err != nil {
		return nil, err
	}
	add("ReplicationController", rcs)
	return out, nil
}

func metasOf[T any](items []T, meta func(T) metav1.ObjectMeta) []metav1.ObjectMeta {
	out := make([]metav1.ObjectMeta, len(items))
	for i, o := range items {
		out[i] = meta(o)
	}
	return out
}
