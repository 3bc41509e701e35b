package kwok

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Annotations a pod may carry to shape its simulated life.
const (
	// AnnotationStartTime is how long after binding the pod becomes Running
	// and Ready (a Go duration, default KubeletConfig.DefaultStartTime).
	AnnotationStartTime = "kwok.kscale.dev/start-time"
	// AnnotationRunTime is how long the pod runs before it succeeds (a Go
	// duration); without it the pod runs until deleted.
	AnnotationRunTime = "kwok.kscale.dev/run-time"
)

// KubeletConfig configures a Kubelet.
type KubeletConfig struct {
	// Client talks to the API server.
	Client kubernetes.Interface
	// Clock drives start times, run times and lease renewals.
	Clock clock.WithTicker
	// ProviderIDPrefix selects the managed nodes: those whose
	// spec.providerID starts with it.
	ProviderIDPrefix string
	// DefaultStartTime applies to pods without AnnotationStartTime; default 0.
	DefaultStartTime time.Duration
	// LeaseDuration is the node leases' leaseDurationSeconds; default 40s.
	LeaseDuration time.Duration
	// RenewInterval is how often node leases are renewed; default 10s.
	RenewInterval time.Duration
	// Workers is the number of pods handled in parallel; default 4.
	Workers int
}

// Default fills unset fields.
func (c *KubeletConfig) Default() {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = 40 * time.Second
	}
	if c.RenewInterval == 0 {
		c.RenewInterval = 10 * time.Second
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
}

// Validate reports the first invalid field.
func (c *KubeletConfig) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("client: required")
	case c.ProviderIDPrefix == "":
		return errors.New("providerIDPrefix: required, or the kubelet would take over every node")
	case c.DefaultStartTime < 0:
		return errors.New("defaultStartTime: must not be negative")
	case c.RenewInterval <= 0 || c.LeaseDuration < c.RenewInterval:
		return errors.New("renewInterval: must be positive and not longer than leaseDuration")
	case c.Workers < 1:
		return errors.New("workers: must be at least 1")
	}
	return nil
}

// Kubelet plays the kubelet for every managed node.
type Kubelet struct {
	cfg        KubeletConfig
	nodes      corelisters.NodeLister
	pods       corelisters.PodLister
	queue      workqueue.TypedDelayingInterface[cache.ObjectName]
	synced     []cache.InformerSynced
	factory    informers.SharedInformerFactory
	podFactory informers.SharedInformerFactory

	mu        sync.Mutex
	firstSeen map[types.UID]time.Time // when each bound pod was first seen
}

// NewKubelet validates cfg and builds a Kubelet; Run starts it.
func NewKubelet(cfg KubeletConfig) (*Kubelet, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring stand-in kubelet: %w", err)
	}
	factory := informers.NewSharedInformerFactory(cfg.Client, 0)
	podFactory := informers.NewSharedInformerFactoryWithOptions(cfg.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
		}))
	k := &Kubelet{
		cfg: cfg,
		queue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[cache.ObjectName]{
			Name: "kwok-kubelet", Clock: cfg.Clock,
		}),
		factory:    factory,
		podFactory: podFactory,
		firstSeen:  map[types.UID]time.Time{},
	}
	nodeInformer := factory.Core().V1().Nodes()
	podInformer := podFactory.Core().V1().Pods()
	k.nodes, k.pods = nodeInformer.Lister(), podInformer.Lister()
	enqueue := func(obj any) {
		if name, err := cache.DeletionHandlingObjectToName(obj); err == nil {
			k.queue.Add(name)
		}
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: k.forget,
	}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	k.synced = []cache.InformerSynced{nodeInformer.Informer().HasSynced, podInformer.Informer().HasSynced}
	return k, nil
}

// Run starts the informers, the pod workers and the lease renewals, and
// blocks until ctx ends.
func (k *Kubelet) Run(ctx context.Context) error {
	defer utilruntime.HandleCrash()
	defer k.queue.ShutDown()
	logger := klog.FromContext(ctx).WithName("kwok-kubelet")
	ctx = klog.NewContext(ctx, logger)
	k.factory.Start(ctx.Done())
	k.podFactory.Start(ctx.Done())
	defer k.factory.Shutdown()
	defer k.podFactory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), k.synced...) {
		return fmt.Errorf("waiting for informer caches: %w", ctx.Err())
	}
	logger.Info("Stand-in kubelet started", "providerIDPrefix", k.cfg.ProviderIDPrefix)
	for range k.cfg.Workers {
		go k.work(ctx)
	}
	k.renewLeases(ctx)
	return nil
}

func (k *Kubelet) work(ctx context.Context) {
	for {
		name, shutdown := k.queue.Get()
		if shutdown {
			return
		}
		retry, err := k.syncPod(ctx, name)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Syncing pod failed", "pod", name.String())
			retry = time.Second
		}
		if retry > 0 {
			k.queue.AddAfter(name, retry)
		}
		k.queue.Done(name)
	}
}

// isManaged reports whether the kubelet plays the kubelet of the node.
func (k *Kubelet) isManaged(node *corev1.Node) bool {
	return strings.HasPrefix(node.Spec.ProviderID, k.cfg.ProviderIDPrefix)
}
