package live

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/nodeautoscaler"
)

// podChanges queues the pod informer's events between two loops: the
// latest object of each changed pod (nil once deleted), in the order the
// pods first changed. Many events of one pod cost one index update.
type podChanges struct {
	mu     sync.Mutex
	order  []types.NamespacedName
	latest map[types.NamespacedName]*corev1.Pod
}

func newPodChanges() podChanges {
	return podChanges{latest: map[types.NamespacedName]*corev1.Pod{}}
}

// handler returns the informer event handler that queues every change.
func (q *podChanges) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { q.set(obj) },
		UpdateFunc: func(_, obj any) { q.set(obj) },
		DeleteFunc: q.remove,
	}
}

func (q *podChanges) set(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.touch(k)
	q.latest[k] = p
}

func (q *podChanges) remove(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k := types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.touch(k)
	q.latest[k] = nil
}

// touch queues k in order when it is not queued yet; q.mu is held.
func (q *podChanges) touch(k types.NamespacedName) {
	if _, queued := q.latest[k]; !queued {
		q.order = append(q.order, k)
	}
}

// applyTo takes the queued changes and applies them to x in order.
func (q *podChanges) applyTo(x *nodeautoscaler.PodIndex) {
	q.mu.Lock()
	order, latest := q.order, q.latest
	q.order, q.latest = nil, make(map[types.NamespacedName]*corev1.Pod, len(latest)/2)
	q.mu.Unlock()
	for _, k := range order {
		if p := latest[k]; p != nil {
			x.Set(p)
		} else {
			x.Delete(k.Namespace, k.Name)
		}
	}
}
