package input

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// PodWatcher keeps a cache of non-Pending pods and collects OOM kills from
// their updates (and, when enabled, from kubelet eviction events).
type PodWatcher struct {
	factories []informers.SharedInformerFactory
	pods      corev1listers.PodLister
	synced    []cache.InformerSynced
	oom       OOMObserver
}

// NewPodWatcher returns a watcher over all namespaces; watchEvents adds
// the kubelet eviction events as an OOM source.
func NewPodWatcher(client kubernetes.Interface, watchEvents bool) (*PodWatcher, error) {
	w := &PodWatcher{}
	pf := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "status.phase!=" + string(corev1.PodPending)
	}))
	pi := pf.Core().V1().Pods()
	if _, err := pi.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(oldObj, newObj any) {
		oldPod, ok1 := oldObj.(*corev1.Pod)
		newPod, ok2 := newObj.(*corev1.Pod)
		if ok1 && ok2 {
			w.oom.OnPodUpdate(oldPod, newPod)
		}
	}}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	w.pods = pi.Lister()
	w.synced = append(w.synced, pi.Informer().HasSynced)
	w.factories = append(w.factories, pf)
	if watchEvents {
		ef := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = "reason=Evicted"
		}))
		ei := ef.Core().V1().Events()
		if _, err := ei.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			if ev, ok := obj.(*corev1.Event); ok {
				w.oom.OnEvent(ev)
			}
		}}); err != nil {
			return nil, fmt.Errorf("watching events: %w", err)
		}
		w.synced = append(w.synced, ei.Informer().HasSynced)
		w.factories = append(w.factories, ef)
	}
	return w, nil
}

// Start runs the informers until ctx ends; WaitForSync waits for their
// caches to fill.
func (w *PodWatcher) Start(ctx context.Context) {
	for _, f := range w.factories {
		f.Start(ctx.Done())
	}
}

// WaitForSync blocks until the caches are filled (true) or ctx ends
// (false).
func (w *PodWatcher) WaitForSync(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), w.synced...)
}

// Shutdown stops the informers and waits for them (after ctx ended).
func (w *PodWatcher) Shutdown() {
	for _, f := range w.factories {
		f.Shutdown()
	}
}

// List returns the cached pods.
func (w *PodWatcher) List() ([]*corev1.Pod, error) { return w.pods.List(labels.Everything()) }

// Drain returns and forgets the OOM kills collected so far.
func (w *PodWatcher) Drain() []OOM { return w.oom.Drain() }
