package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
)

// TestSchedulerConformance runs every case against the real kube-scheduler:
// it creates the case's objects, creates the incoming pod and reads where
// the scheduler binds it, or that it is Unschedulable. Cases run one after
// another and clean up after themselves; a tainted sentinel node and a
// probe pod make sure the scheduler has seen every node of a case before
// the incoming pod arrives.
func TestSchedulerConformance(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Scheduler: true})
	for i, c := range Cases() {
		t.Run(c.Name, func(t *testing.T) {
			r := &schedulerRun{t: t, ctx: t.Context(), cs: env.Client, env: env, c: &c, sentinel: fmt.Sprintf("sentinel-%d", i)}
			defer r.cleanup()
			got := r.run()
			if got != c.Want {
				t.Fatalf("kube-scheduler chose %q, the table says %q", got, c.Want)
			}
		})
	}
}

const sentinelLabel = "conformance.kscale.dev/sentinel"

type schedulerRun struct {
	t        *testing.T
	ctx      context.Context
	cs       kubernetes.Interface
	env      *testenv.Env
	c        *Case
	sentinel string
}

// run creates the case and returns the node the incoming pod is bound to,
// or "" when the scheduler reports it Unschedulable.
func (r *schedulerRun) run() string {
	r.createSupportObjects()
	for _, n := range r.c.Nodes {
		r.createNode(n)
	}
	r.syncScheduler()
	for _, p := range r.c.Existing {
		r.createExisting(p)
	}
	pod := r.c.Pod.DeepCopy()
	if _, err := r.cs.CoreV1().Pods(pod.Namespace).Create(r.ctx, pod, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
	return r.outcome(pod)
}

func (r *schedulerRun) createSupportObjects() {
	for _, ns := range r.c.Namespaces {
		_, err := r.cs.CoreV1().Namespaces().Create(r.ctx, ns.DeepCopy(), metav1.CreateOptions{})
		ignoreExists(r.t, err)
	}
	for _, rc := range r.c.RuntimeClasses {
		_, err := r.cs.NodeV1().RuntimeClasses().Create(r.ctx, rc.DeepCopy(), metav1.CreateOptions{})
		ignoreExists(r.t, err)
	}
	for _, pv := range r.c.PersistentVolumes {
		_, err := r.cs.CoreV1().PersistentVolumes().Create(r.ctx, pv.DeepCopy(), metav1.CreateOptions{})
		ignoreExists(r.t, err)
	}
	for _, pvc := range r.c.PersistentVolumeClaims {
		_, err := r.cs.CoreV1().PersistentVolumeClaims(pvc.Namespace).Create(r.ctx, pvc.DeepCopy(), metav1.CreateOptions{})
		ignoreExists(r.t, err)
	}
}

func ignoreExists(t *testing.T, err error) {
	t.Helper()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// syncScheduler creates a sentinel node (tainted, 1m CPU, no topology
// labels, so no case pod can use it or count it) after the case's nodes and
// waits until a probe pod is bound to it: the scheduler's node informer is
// ordered, so it has then seen every earlier node change.
func (r *schedulerRun) syncScheduler() {
	n := fixture.Node(r.sentinel, fixture.WithCapacity(corev1.ResourceCPU, "1m"),
		fixture.WithTaints(fixture.Taint(sentinelLabel, "", corev1.TaintEffectNoSchedule)))
	n.Labels = map[string]string{sentinelLabel: r.sentinel}
	r.createNode(n)
	probe := fixture.Pod("probe-"+r.sentinel, fixture.WithRequests(), fixture.WithNodeSelector(map[string]string{sentinelLabel: r.sentinel}),
		fixture.WithTolerations(corev1.Toleration{Key: sentinelLabel, Operator: corev1.TolerationOpExists}))
	pods := r.cs.CoreV1().Pods(probe.Namespace)
	if _, err := pods.Create(r.ctx, probe, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
	r.poll("probe pod bound to the sentinel", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, probe.Name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == r.sentinel, err
	})
	r.forceDelete(probe.Namespace, probe.Name)
}

// createNode creates the node and then sets its taints to the case's,
// dropping the node.kubernetes.io/not-ready taint that admission adds at
// creation and that the node lifecycle controller (not running here) would
// remove once the node reports Ready.
func (r *schedulerRun) createNode(n *corev1.Node) {
	created, err := r.env.CreateNode(r.ctx, n.DeepCopy())
	if err != nil {
		r.t.Fatal(err)
	}
	created.Spec.Taints = n.Spec.Taints
	if _, err := r.cs.CoreV1().Nodes().Update(r.ctx, created, metav1.UpdateOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *schedulerRun) createExisting(p *corev1.Pod) {
	obj := p.DeepCopy()
	obj.DeletionTimestamp = nil
	pods := r.cs.CoreV1().Pods(obj.Namespace)
	if _, err := pods.Create(r.ctx, obj, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
	if p.DeletionTimestamp == nil {
		return
	}
	// A bound pod without a kubelet stays terminating after a graceful delete.
	if err := pods.Delete(r.ctx, obj.Name, metav1.DeleteOptions{}); err != nil {
		r.t.Fatal(err)
	}
	r.poll("pod "+obj.Name+" terminating", func(ctx context.Context) (bool, error) {
		got, err := pods.Get(ctx, obj.Name, metav1.GetOptions{})
		return err == nil && got.DeletionTimestamp != nil, err
	})
}

// outcome waits for the pod to be bound or reported Unschedulable with
// every node of the case (plus the sentinel) considered, and then for the
// verdict to hold for a second.
func (r *schedulerRun) outcome(pod *corev1.Pod) string {
	pods := r.cs.CoreV1().Pods(pod.Namespace)
	total := fmt.Sprintf("0/%d nodes are available", len(r.c.Nodes)+1)
	var bound string
	r.poll("pod bound or unschedulable", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName != "" {
			bound = p.Spec.NodeName
			return true, nil
		}
		return unschedulable(p, total), nil
	})
	if bound != "" {
		return bound
	}
	stable := wait.PollUntilContextTimeout(r.ctx, 100*time.Millisecond, time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		bound = p.Spec.NodeName
		return bound != "", nil
	})
	if stable == nil {
		return bound
	}
	return ""
}

func unschedulable(p *corev1.Pod, total string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return strings.Contains(c.Message, total)
		}
	}
	return false
}

func (r *schedulerRun) poll(what string, cond wait.ConditionWithContextFunc) {
	r.t.Helper()
	if err := wait.PollUntilContextTimeout(r.ctx, 50*time.Millisecond, time.Minute, true, cond); err != nil {
		r.t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (r *schedulerRun) forceDelete(ns, name string) {
	zero := int64(0)
	err := r.cs.CoreV1().Pods(ns).Delete(r.ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		r.t.Fatal(err)
	}
}

// cleanup force-deletes the case's pods and deletes its nodes. Namespaces,
// volumes and runtime classes stay; every case uses its own names for them.
func (r *schedulerRun) cleanup() {
	namespaces := map[string]bool{fixture.DefaultNamespace: true}
	for _, ns := range r.c.Namespaces {
		namespaces[ns.Name] = true
	}
	for ns := range namespaces {
		list, err := r.cs.CoreV1().Pods(ns).List(r.ctx, metav1.ListOptions{})
		if err != nil {
			r.t.Fatal(err)
		}
		for _, p := range list.Items {
			r.forceDelete(ns, p.Name)
		}
	}
	names := []string{r.sentinel}
	for _, n := range r.c.Nodes {
		names = append(names, n.Name)
	}
	for _, name := range names {
		if err := r.cs.CoreV1().Nodes().Delete(r.ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			r.t.Fatal(err)
		}
	}
}
