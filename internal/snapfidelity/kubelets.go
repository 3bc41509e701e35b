package snapfidelity

// The harness's stand-ins for the components a test control plane lacks
// (kubelets, the node lifecycle controller), its waits for the ones it
// runs (kube-scheduler, the ReplicaSet and disruption controllers), and
// its clean-up between clusters.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

// settle alternates kube-scheduler and the kubelets until nothing
// changes: a pod that finishes frees room the scheduler may then use, and
// the pod it binds must run before the cluster is read. It returns the
// running pods per namespace.
func (h *Harness) settle(ctx context.Context) (map[string][]corev1.Pod, error) {
	for {
		if err := h.waitScheduled(ctx); err != nil {
			return nil, err
		}
		ready, started, err := h.runBoundPods(ctx)
		if err != nil || started == 0 {
			return ready, err
		}
	}
}

// runBoundPods plays the kubelets: every bound pod that is still Pending
// runs and is Ready (or has succeeded, or runs but is not Ready, when the
// generator says so). It returns the running, Ready pods per namespace and
// how many pods it started.
func (h *Harness) runBoundPods(ctx context.Context) (ready map[string][]corev1.Pod, started int, err error) {
	ready = map[string][]corev1.Pod{}
	now := metav1.NewTime(h.now())
	for _, ns := range Namespaces {
		pods, err := h.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, 0, fmt.Errorf("listing pods: %w", err)
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
				continue
			}
			if p.Status.Phase == corev1.PodPending {
				started++
				got, err := h.runPod(ctx, p, now)
				if err != nil {
					return nil, 0, fmt.Errorf("running pod %s/%s: %w", ns, p.Name, err)
				}
				p = got
			}
			if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && p.Annotations[annotationNotReady] != "true" {
				ready[ns] = append(ready[ns], *p)
			}
		}
	}
	return ready, started, nil
}

// runPod writes a bound pod's status as its kubelet does once it runs;
// a conflict (the scheduler preempting it, say) retries on the latest pod.
func (h *Harness) runPod(ctx context.Context, p *corev1.Pod, now metav1.Time) (*corev1.Pod, error) {
	var got *corev1.Pod
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p.Status.Phase, p.Status.StartTime = corev1.PodRunning, &now
		ready := corev1.ConditionTrue
		switch {
		case p.Annotations[annotationFinished] == "true":
			p.Status.Phase, ready = corev1.PodSucceeded, corev1.ConditionFalse
		case p.Annotations[annotationNotReady] == "true":
			ready = corev1.ConditionFalse
		}
		p.Status.Conditions = append(slices.DeleteFunc(p.Status.Conditions, func(c corev1.PodCondition) bool {
			return c.Type == corev1.PodScheduled || c.Type == corev1.PodReady || c.Type == corev1.ContainersReady
		}), corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			corev1.PodCondition{Type: corev1.PodReady, Status: ready, LastTransitionTime: now},
			corev1.PodCondition{Type: corev1.ContainersReady, Status: ready, LastTransitionTime: now})
		var err error
		if got, err = h.Client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err == nil {
			return nil
		}
		if fresh, getErr := h.Client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{}); getErr == nil {
			p = fresh
		}
		return err
	})
	return got, err
}

// liftNotReadyTaints removes the node.kubernetes.io/not-ready taint the
// API server's TaintNodesByCondition admission puts on every new node, as
// kube-controller-manager's node lifecycle controller does once the node
// is Ready (the harness runs no controller manager: it would also mark the
// kubelet-less nodes unreachable).
func (h *Harness) liftNotReadyTaints(ctx context.Context) error {
	nodes, err := h.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		kept := slices.DeleteFunc(slices.Clone(n.Spec.Taints), func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
		if len(kept) == len(n.Spec.Taints) {
			continue
		}
		n.Spec.Taints = kept
		if _, err := h.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("lifting the not-ready taint of node %s: %w", n.Name, err)
		}
	}
	return nil
}

// createOtherNode registers a Ready node of no node group, as a
// control-plane or hand-made node is: 4 CPUs, 8Gi, a provider id outside
// the kwok cloud.
func (h *Harness) createOtherNode(ctx context.Context, n Node) error {
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods: resource.MustParse("110")}
	now := metav1.NewTime(h.now())
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{corev1.LabelHostname: n.Name}},
		Spec: corev1.NodeSpec{ProviderID: "external:///" + n.Name},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity, Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: now, LastTransitionTime: now, Reason: "KubeletReady"}}}}
	created, err := h.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating node %s: %w", n.Name, err)
	}
	created.Status = node.Status
	if _, err := h.Client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the status of node %s: %w", n.Name, err)
	}
	return nil
}

// failKubelets makes the NotReady nodes' kubelets report Ready=False
// since the node registered (the transition time is the node's creation,
// however late this write comes), with the not-ready taint the node
// lifecycle controller then puts on. Such a node has never been Ready,
// which is what a scenario's notReady node is; a transition stamped with
// the time of this write made it a node that was Ready and failed
// whenever the write came more than a second after the node's creation
// (a loaded machine), which the live loop counts as unready rather than
// starting.
func (h *Harness) failKubelets(ctx context.Context, c *Cluster) error {
	for _, n := range c.Nodes {
		if !n.NotReady {
			continue
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			node, err := h.Client.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for i := range node.Status.Conditions {
				if node.Status.Conditions[i].Type == corev1.NodeReady {
					node.Status.Conditions[i].Status, node.Status.Conditions[i].LastTransitionTime = corev1.ConditionFalse, node.CreationTimestamp
				}
			}
			if node, err = h.Client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
				return err
			}
			node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
			_, err = h.Client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return fmt.Errorf("failing the kubelet of node %s: %w", n.Name, err)
		}
	}
	return nil
}

// waitScheduled waits until kube-scheduler bound every pending pod or
// marked it unschedulable.
func (h *Harness) waitScheduled(ctx context.Context) error {
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if h.provisions {
			if err := h.provision(ctx); err != nil {
				return false, err
			}
		}
		for _, ns := range Namespaces {
			pods, err := h.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for i := range pods.Items {
				if !decided(&pods.Items[i]) {
					return false, nil
				}
			}
			if ok, err := h.replicated(ctx, ns, pods.Items); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for kube-scheduler and the ReplicaSet controller: %w", err)
	}
	return nil
}

// replicated reports whether every ReplicaSet of the namespace has its
// replicas in pods that are not being deleted (the ReplicaSet controller
// replaced the preemption victims) and its status counts them and their
// readiness: the controller has nothing left to write.
func (h *Harness) replicated(ctx context.Context, ns string, pods []corev1.Pod) (bool, error) {
	sets, err := h.Client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	active, ready := map[types.UID]int32{}, map[types.UID]int32{}
	for i := range pods {
		if ref := metav1.GetControllerOf(&pods[i]); ref != nil && pods[i].DeletionTimestamp == nil {
			active[ref.UID]++
			if podReady(&pods[i]) {
				ready[ref.UID]++
			}
		}
	}
	for i := range sets.Items {
		rs := &sets.Items[i]
		want := ptr.Deref(rs.Spec.Replicas, 1)
		if rs.Status.ObservedGeneration != rs.Generation || active[rs.UID] != want || rs.Status.Replicas != want ||
			rs.Status.ReadyReplicas != ready[rs.UID] {
			return false, nil
		}
	}
	return true, nil
}

// podReady reports whether the pod runs and is Ready.
func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func decided(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" {
		return true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// clean deletes c's objects and nodes and the kwok cloud's state, and
// waits until they are gone.
func (h *Harness) clean(ctx context.Context, c *Cluster) error {
	// Background propagation: no orphan finalizer waits for the garbage
	// collector, which does not run.
	now := metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0)), PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
	var errs []error
	// Controllers first, so the ReplicaSet controller replaces no pod.
	for _, ns := range Namespaces {
		errs = append(errs, h.Client.AppsV1().ReplicaSets(ns).DeleteCollection(ctx, now, metav1.ListOptions{}),
			h.Client.AppsV1().StatefulSets(ns).DeleteCollection(ctx, now, metav1.ListOptions{}),
			h.Client.CoreV1().ReplicationControllers(ns).DeleteCollection(ctx, now, metav1.ListOptions{}),
			h.Client.BatchV1().Jobs(ns).DeleteCollection(ctx, now, metav1.ListOptions{}),
			h.Client.AppsV1().DaemonSets(ns).DeleteCollection(ctx, now, metav1.ListOptions{}),
			h.Client.PolicyV1().PodDisruptionBudgets(ns).DeleteCollection(ctx, now, metav1.ListOptions{}))
	}
	errs = append(errs, h.Client.CoreV1().Nodes().DeleteCollection(ctx, now, metav1.ListOptions{}))
	storage := hasClaims(c)
	if storage {
		errs = append(errs, h.cleanStorage(ctx))
	}
	if err := h.Client.CoreV1().ConfigMaps(metav1.NamespaceSystem).Delete(ctx, kwok.StateConfigMapName, now); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("removing cluster %d: %w", c.Seed, err)
	}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, ns := range Namespaces {
			// Again each time: a pod the ReplicaSet controller made
			// before it saw its ReplicaSet go.
			if err := h.Client.CoreV1().Pods(ns).DeleteCollection(ctx, now, metav1.ListOptions{}); err != nil {
				return false, err
			}
		}
		nodes, err := h.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) > 0 {
			return false, err
		}
		if storage {
			if gone, err := h.storageGone(ctx); !gone || err != nil {
				return false, err
			}
		}
		pods, err := h.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 0, err
	})
	if err != nil {
		return fmt.Errorf("waiting for cluster %d to be removed: %w", c.Seed, err)
	}
	return nil
}
