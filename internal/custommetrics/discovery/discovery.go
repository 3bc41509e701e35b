package discovery

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Config configures a Discovery.
type Config struct {
	// Client reads pods.
	Client kubernetes.Interface
	// Selector selects kube-apiserver pods; default app=kubernetes,role=apiserver.
	Selector labels.Selector
	// NamespacePattern must match a pod's namespace; default ^shoot-.
	NamespacePattern *regexp.Regexp
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Selector == nil {
		c.Selector = labels.SelectorFromSet(labels.Set{"app": "kubernetes", "role": "apiserver"})
	}
	if c.NamespacePattern == nil {
		c.NamespacePattern = regexp.MustCompile(`^shoot-`)
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	if c.Client == nil {
		return errors.New("client: required")
	}
	if c.Selector.Empty() {
		return errors.New("selector: must not select every pod")
	}
	return nil
}

// Discovery keeps the current set of targets.
type Discovery struct {
	cfg     Config
	factory informers.SharedInformerFactory
	synced  cache.InformerSynced

	mu      sync.RWMutex
	targets map[types.NamespacedName]Target
	changed chan struct{}
}

// New returns a Discovery; call Run to start it.
func New(cfg Config) (*Discovery, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating discovery config: %w", err)
	}
	d := &Discovery{cfg: cfg, targets: map[types.NamespacedName]Target{}, changed: make(chan struct{}, 1)}
	selector := cfg.Selector.String()
	d.factory = informers.NewSharedInformerFactoryWithOptions(cfg.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	inf := d.factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    d.onPod,
		UpdateFunc: func(_, obj any) { d.onPod(obj) },
		DeleteFunc: d.onDelete,
	}); err != nil {
		return nil, fmt.Errorf("adding pod event handler: %w", err)
	}
	d.synced = inf.HasSynced
	return d, nil
}

// Run watches pods until ctx ends.
func (d *Discovery) Run(ctx context.Context) {
	d.factory.Start(ctx.Done())
	<-ctx.Done()
	d.factory.Shutdown()
}

// HasSynced blocks until the initial pod list is processed (true) or ctx
// ends (false).
func (d *Discovery) HasSynced(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), d.synced)
}

// Changed is signalled (coalesced) whenever the target set changes.
func (d *Discovery) Changed() <-chan struct{} { return d.changed }

// Targets returns every target, sorted by key.
func (d *Discovery) Targets() []Target {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]Target, 0, len(d.targets))
	for _, t := range d.targets {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Target) int {
		return strings.Compare(a.Key.String(), b.Key.String())
	})
	return out
}

// InNamespace returns the targets of one namespace, in no particular order.
func (d *Discovery) InNamespace(namespace string) []Target {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []Target
	for k, t := range d.targets {
		if k.Namespace == namespace {
			out = append(out, t)
		}
	}
	return out
}

// Get returns the target of one pod.
func (d *Discovery) Get(key types.NamespacedName) (Target, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	t, ok := d.targets[key]
	return t, ok
}

// Len returns the number of targets.
func (d *Discovery) Len() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.targets)
}

func (d *Discovery) onPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	t, keep := targetFor(pod)
	keep = keep && d.cfg.NamespacePattern.MatchString(pod.Namespace) && d.cfg.Selector.Matches(labels.Set(pod.Labels))
	d.mu.Lock()
	old, had := d.targets[key]
	switch {
	case keep && (!had || !old.equal(t)):
		d.targets[key] = t
	case !keep && had:
		delete(d.targets, key)
	default:
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	d.notify()
}

func (d *Discovery) onDelete(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	d.mu.Lock()
	_, had := d.targets[key]
	delete(d.targets, key)
	d.mu.Unlock()
	if had {
		d.notify()
	}
}

func (d *Discovery) notify() {
	select {
	case d.changed <- struct{}{}:
	default:
	}
}
