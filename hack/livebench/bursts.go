package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// PodTimes is what the harness saw of one pending pod, all on its own clock.
type PodTimes struct {
	// Name is the pod's name; Burst its burst; Kind the burst's kind.
	Name  string `json:"name"`
	Burst int    `json:"burst"`
	Kind  string `json:"kind"`
	// Created is taken just before the create request is sent.
	Created time.Time `json:"created"`
	// Unschedulable is when the watch delivered the pod with PodScheduled
	// False/Unschedulable for the first time, or, when the watch missed
	// it, when kube-scheduler's mark reached the API server (zero if
	// never marked).
	Unschedulable time.Time `json:"unschedulable,omitzero"`
	// Increase is the provider's increase call that covers the pod (zero
	// when none did).
	Increase time.Time `json:"increase,omitzero"`
}

// tracker records the burst pods' times from a watch.
type tracker struct {
	mu   sync.Mutex
	pods map[string]*PodTimes
}

func newTracker() *tracker { return &tracker{pods: map[string]*PodTimes{}} }

// created records a pod about to be created.
func (t *tracker) created(name string, burst int, kind string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.get(name)
	p.Burst, p.Kind, p.Created = burst, kind, at
}

func (t *tracker) get(name string) *PodTimes {
	p, ok := t.pods[name]
	if !ok {
		p = &PodTimes{Name: name}
		t.pods[name] = p
	}
	return p
}

// observe records the first time a pod is seen unschedulable.
func (t *tracker) observe(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || !unschedulable(pod) {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.get(pod.Name); p.Unschedulable.IsZero() {
		p.Unschedulable = now
	}
}

func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// Pods returns a copy of every tracked pod that was created by a burst.
func (t *tracker) Pods() []PodTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]PodTimes, 0, len(t.pods))
	for _, p := range t.pods {
		if !p.Created.IsZero() {
			out = append(out, *p)
		}
	}
	return out
}

// watchCluster starts the watches of the burst pods (for the tracker) and
// of the nodes (for the node keeper); it returns once both caches synced.
func watchCluster(ctx context.Context, c kubernetes.Interface, t *tracker, k *nodeKeeper) error {
	pods := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace(Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = LabelBurst }))
	_, err := pods.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: t.observe, UpdateFunc: func(_, obj any) { t.observe(obj) }})
	if err != nil {
		return fmt.Errorf("watching pods: %w", err)
	}
	nodes := informers.NewSharedInformerFactory(c, 0)
	_, err = nodes.Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { k.observe(ctx, obj) }, UpdateFunc: func(_, obj any) { k.observe(ctx, obj) }})
	if err != nil {
		return fmt.Errorf("watching nodes: %w", err)
	}
	pods.Start(ctx.Done())
	nodes.Start(ctx.Done())
	for _, synced := range []map[any]bool{toAny(pods.WaitForCacheSync(ctx.Done())), toAny(nodes.WaitForCacheSync(ctx.Done()))} {
		for typ, ok := range synced {
			if !ok {
				return fmt.Errorf("watching %v: cache did not sync", typ)
			}
		}
	}
	return nil
}

func toAny[K comparable](m map[K]bool) map[any]bool {
	out := make(map[any]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nodeKeeper plays the part of the kubelet and of the node lifecycle
// controller, neither of which runs here, for the nodes the autoscaler
// adds: a node without any Ready condition (upstream's kwok provider leaves
// node status to a kwok controller) is written Ready with the standard
// shape, and a Ready node loses the not-ready taint that kube-apiserver's
// TaintNodesByCondition admission puts on every new node.
type nodeKeeper struct {
	client kubernetes.Interface
	mu     sync.Mutex
	busy   map[string]bool
}

func newNodeKeeper(c kubernetes.Interface) *nodeKeeper {
	return &nodeKeeper{client: c, busy: map[string]bool{}}
}

func (k *nodeKeeper) observe(ctx context.Context, obj any) {
	n, ok := obj.(*corev1.Node)
	if !ok || !needsKeeping(n) {
		return
	}
	k.mu.Lock()
	if k.busy[n.Name] {
		k.mu.Unlock()
		return
	}
	k.busy[n.Name] = true
	k.mu.Unlock()
	go func() {
		defer func() {
			k.mu.Lock()
			delete(k.busy, n.Name)
			k.mu.Unlock()
		}()
		latest := n.DeepCopy()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			err := readyNode(ctx, k.client, latest)
			if apierrors.IsConflict(err) {
				if got, getErr := k.client.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{}); getErr == nil {
					latest = got
				}
			}
			return err
		})
		if err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Info("Making a new node Ready failed", "node", n.Name, "err", err.Error())
		}
	}()
}

// readyNode writes a node Ready (when it has no Ready condition) and
// removes the not-ready taint (when it is Ready).
func readyNode(ctx context.Context, c kubernetes.Interface, n *corev1.Node) error {
	var err error
	if !hasReadyCondition(n) {
		n.Status = readyStatus(time.Now())
		if n, err = c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	if !isReady(n) || !hasNotReadyTaint(n) {
		return nil
	}
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, isNotReadyTaint)
	_, err = c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	return err
}

// needsKeeping: the node has no Ready condition yet, or is Ready and
// still carries the not-ready taint.
func needsKeeping(n *corev1.Node) bool {
	return !hasReadyCondition(n) || (isReady(n) && hasNotReadyTaint(n))
}

// hasReadyCondition: a node whose Ready condition exists (even False) has
// its status written by its provider; only its taint is the keeper's.
func hasReadyCondition(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return true
		}
	}
	return false
}

func isNotReadyTaint(t corev1.Taint) bool {
	return t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule
}

func hasNotReadyTaint(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Spec.Taints, isNotReadyTaint)
}

// sendBurst creates burst b's ReplicaSets and pending pods in parallel,
// recording each pod's creation time just before its request.
func sendBurst(ctx context.Context, c kubernetes.Interface, cfg *Config, t *tracker, b int) error {
	kind := cfg.Mix[b%len(cfg.Mix)]
	perOwner := (cfg.BurstSize + cfg.Owners - 1) / cfg.Owners
	owners := make([]*appsv1.ReplicaSet, cfg.Owners)
	for i := range owners {
		rs, err := c.AppsV1().ReplicaSets(Namespace).Create(ctx, replicaSet(fmt.Sprintf("burst-%d-%d", b, i), perOwner), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating ReplicaSet of burst %d: %w", b, err)
		}
		owners[i] = rs
	}
	return parallel(ctx, "burst "+strconv.Itoa(b), cfg.Workers, cfg.BurstSize, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("burst-%d-%04d", b, i)
		p := burstPod(name, b, kind, owners[i%len(owners)])
		t.created(name, b, kind, time.Now())
		_, err := c.CoreV1().Pods(Namespace).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
}
