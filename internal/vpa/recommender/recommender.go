package recommender

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpatypedv1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned/typed/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/checkpoint"
	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/target"
)

// VPAClient lists VPAs, patches their status and reads and writes checkpoints.
type VPAClient interface {
	vpatypedv1.VerticalPodAutoscalersGetter
	vpatypedv1.VerticalPodAutoscalerCheckpointsGetter
}

// PodLister lists the pods the recommender tracks (not Pending).
type PodLister interface {
	// List returns the current pods.
	List() ([]*corev1.Pod, error)
}

// UsageSource lists current container usage.
type UsageSource interface {
	// List returns one sample per container.
	List(ctx context.Context) ([]input.ContainerUsage, error)
}

// OOMSource hands over the OOM kills seen since the last call.
type OOMSource interface {
	// Drain returns and forgets the collected OOMs.
	Drain() []input.OOM
}

// TargetResolver resolves a VPA's targetRef.
type TargetResolver interface {
	// Resolve returns the target and its selector, or a *target.Error.
	Resolve(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler) (*target.Target, error)
}

// HistorySource provides usage history at start-up (for example Prometheus).
type HistorySource interface {
	// Load returns the pods seen in the history and their samples.
	Load(ctx context.Context) ([]input.PodInfo, []input.ContainerUsage, error)
}

// Deps are the recommender's collaborators.
type Deps struct {
	// VPAs is the VPA API client.
	VPAs VPAClient
	// Pods lists pods.
	Pods PodLister
	// Usage lists container usage.
	Usage UsageSource
	// OOMs provides OOM kills.
	OOMs OOMSource
	// Targets resolves targetRefs.
	Targets TargetResolver
	// History, when set, replaces checkpoints as the start-up history.
	History HistorySource
	// Clock provides the time; default the real clock.
	Clock clock.WithTicker
	// Registerer receives the metrics; default a private registry.
	Registerer prometheus.Registerer
}

// Recommender is the controller. Create it with New.
type Recommender struct {
	cfg     Config
	deps    Deps
	cluster *model.Cluster
	est     *estimator.Estimator
	ckpt    *checkpoint.Manager
	metrics *metrics
	recs    recCache

	lastAggregateGC time.Time
	mu              sync.Mutex
	lastLoop        time.Time
	started         time.Time
}

// New returns a recommender; cfg is defaulted and validated here.
func New(cfg Config, deps Deps) (*Recommender, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.VPAs == nil || deps.Pods == nil || deps.Usage == nil || deps.OOMs == nil || deps.Targets == nil {
		return nil, errors.New("recommender: VPAs, Pods, Usage, OOMs and Targets are required")
	}
	if deps.Clock == nil {
		deps.Clock = clock.RealClock{}
	}
	if deps.Registerer == nil {
		deps.Registerer = prometheus.NewRegistry()
	}
	m, err := newMetrics(deps.Registerer)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	return &Recommender{
		cfg: cfg, deps: deps, metrics: m,
		cluster: model.NewCluster(&cfg.Model),
		est:     estimator.New(cfg.Estimator),
		ckpt:    checkpoint.NewManager(deps.VPAs, cfg.Checkpoints),
	}, nil
}

// Run loads history, then runs the loop every interval until ctx ends.
func (r *Recommender) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("vpa.recommender")
	ctx = klog.NewContext(ctx, log)
	r.mu.Lock()
	r.started = r.deps.Clock.Now()
	r.mu.Unlock()
	if err := r.LoadHistory(ctx); err != nil {
		log.Error(err, "Loading history failed; starting without it")
	}
	loop := operator.Loop{Clock: r.deps.Clock, Interval: r.cfg.Interval, Immediate: true}
	return loop.Run(ctx, func(ctx context.Context) {
		if err := r.RunOnce(ctx); err != nil {
			log.Error(err, "Recommender loop failed")
		}
	})
}

// LoadHistory fills the model with the served VPAs and their history: from
// the HistorySource when one is set, else from checkpoints.
func (r *Recommender) LoadHistory(ctx context.Context) error {
	if _, resolveErr, err := r.loadVPAs(ctx); err != nil {
		return err
	} else if resolveErr != nil {
		klog.FromContext(ctx).Error(resolveErr, "Some VPA targets could not be read; their history is not loaded")
	}
	now := r.deps.Clock.Now()
	if r.deps.History != nil {
		return r.loadExternalHistory(ctx, now)
	}
	n, err := r.ckpt.Load(ctx, r.cluster, now)
	if err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Loaded checkpoints", "count", n)
	return nil
}

// loadExternalHistory feeds samples from the HistorySource.
func (r *Recommender) loadExternalHistory(ctx context.Context, now time.Time) error {
	pods, usage, err := r.deps.History.Load(ctx)
	if err != nil {
		return fmt.Errorf("loading history: %w", err)
	}
	for _, p := range pods {
		r.cluster.SetPod(p.ID, p.Labels, p.Containers, p.Terminal, now)
	}
	r.feedUsage(usage)
	for _, p := range pods {
		r.cluster.DeletePod(p.ID)
	}
	return nil
}

// Healthy reports an error when Run started but no loop completed within
// five intervals. A recommender that is not running (for example waiting
// for leadership) is healthy.
func (r *Recommender) Healthy(now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started.IsZero() {
		return nil
	}
	last := r.lastLoop
	if last.IsZero() {
		last = r.started
	}
	if now.Sub(last) > 5*r.cfg.Interval {
		return fmt.Errorf("no recommender loop completed since %s", last.Format(time.RFC3339))
	}
	return nil
}

// Cluster exposes the model for inspection in tests and benchmarks.
func (r *Recommender) Cluster() *model.Cluster { return r.cluster }
