package updater

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/target"
)

// Resolver is what the updater needs from target resolution.
type Resolver interface {
	// Resolve returns the VPA's target controller and selector.
	Resolve(ctx context.Context, vpa *vpav1.VerticalPodAutoscaler) (*target.Target, error)
	// TopLevelController returns the pod's top-most controller, or nil.
	TopLevelController(ctx context.Context, pod *corev1.Pod) (*target.ObjectRef, error)
}

// EventRecorder records Kubernetes events (k8s.io/client-go/tools/events).
type EventRecorder interface {
	// Eventf records an event about regarding, related to related.
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// Deps are the updater's collaborators.
type Deps struct {
	// Client reads VPAs, pods, controllers, LimitRanges and the admission
	// Lease, and evicts and resizes pods.
	Client client.Client
	// Resolver resolves VPA targets and pod owners.
	Resolver Resolver
	// Recorder records events on evicted pods and their VPAs.
	Recorder EventRecorder
	// Registerer receives the updater's metrics.
	Registerer prometheus.Registerer
	// Clock is the time source; default the real clock.
	Clock clock.WithTicker
}

// Updater evicts or resizes pods whose requests drifted from their VPA's
// recommendation.
type Updater struct {
	cfg      Config
	client   client.Client
	resolver Resolver
	recorder EventRecorder
	clock    clock.WithTicker
	metrics  *Metrics
	limiter  *rateLimiter
	// resizeLimiter paces in-place resizes with the eviction settings, as
	// upstream's separate in-place limiter does.
	resizeLimiter *rateLimiter
	// resizing is when each pod's current resize was first seen.
	resizing map[types.UID]time.Time
	// infeasible is the recommendation of each pod's last infeasible
	// resize (mode InPlace).
	infeasible map[types.UID]*vpav1.RecommendedPodResources
	health     activity
}

// New validates cfg and builds an Updater.
func New(cfg Config, deps Deps) (*Updater, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("validating updater config: %w", err)
	}
	if deps.Client == nil || deps.Resolver == nil || deps.Recorder == nil || deps.Registerer == nil {
		return nil, errors.New("building updater: Client, Resolver, Recorder and Registerer are required")
	}
	if deps.Clock == nil {
		deps.Clock = clock.RealClock{}
	}
	m, err := NewMetrics(deps.Registerer)
	if err != nil {
		return nil, err
	}
	return &Updater{
		cfg: cfg, client: deps.Client, resolver: deps.Resolver, recorder: deps.Recorder, clock: deps.Clock, metrics: m,
		limiter:       newRateLimiter(cfg.EvictionRateLimit, cfg.EvictionRateBurst, deps.Clock),
		resizeLimiter: newRateLimiter(cfg.EvictionRateLimit, cfg.EvictionRateBurst, deps.Clock),
		resizing:      map[types.UID]time.Time{},
		infeasible:    map[types.UID]*vpav1.RecommendedPodResources{},
	}, nil
}

// Start runs a loop every interval until ctx ends. It implements
// controller-runtime's manager.Runnable.
func (u *Updater) Start(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("vpa.updater")
	ctx = klog.NewContext(ctx, log)
	u.health.start(u.clock.Now())
	defer u.health.stop()
	loop := operator.Loop{Clock: u.clock, Interval: u.cfg.Interval}
	return loop.Run(ctx, func(ctx context.Context) {
		if err := u.RunOnce(ctx); err != nil {
			log.Error(err, "Updater loop failed")
		}
		u.health.record(u.clock.Now())
	})
}

// NeedLeaderElection makes only the elected replica run the loop.
func (u *Updater) NeedLeaderElection() bool { return true }

// RunOnce runs one loop, bounded by the interval: it checks the admission
// webhook's Lease, groups the live pods of every updating VPA by controller
// and evicts (or resizes) the worthiest pods within each group's budget.
func (u *Updater) RunOnce(ctx context.Context) error {
	start := u.clock.Now()
	defer func() {
		u.metrics.loopDurationSe.Observe(u.clock.Since(start).Seconds())
		u.metrics.upstream.step("total", u.clock.Since(start))
	}()
	ctx, cancel := context.WithTimeout(ctx, u.cfg.Interval)
	defer cancel()
	log := klog.FromContext(ctx)
	stepStart := u.clock.Now()
	alive, err := u.admissionAlive(ctx)
	u.metrics.upstream.step("AdmissionInit", u.clock.Since(stepStart))
	if err != nil || !alive {
		u.metrics.loops.WithLabelValues("SkippedAdmissionNotReady").Inc()
		u.metrics.upstream.admissionStatusInvalid(err)
		log.Info("Skipping the loop: the admission webhook's status Lease is missing or stale", "namespace", u.cfg.StatusNamespace, "err", err)
		return err
	}
	stepStart = u.clock.Now()
	work, err := u.collect(ctx)
	u.metrics.upstream.step("ListPods", u.clock.Since(stepStart))
	if err != nil {
		u.metrics.loops.WithLabelValues("Error").Inc()
		return err
	}
	u.metrics.upstream.observeWork(work)
	defer u.metrics.upstream.publish()
	stepStart = u.clock.Now()
	defer func() { u.metrics.upstream.step("EvictPods", u.clock.Since(stepStart)) }()
	u.pruneResizing(work)
	candidates := 0
	for _, w := range work {
		n, err := u.updateVPA(ctx, w)
		candidates += n
		if err != nil {
			u.metrics.loops.WithLabelValues("Error").Inc()
			return err
		}
	}
	u.metrics.candidates.Set(float64(candidates))
	u.metrics.loops.WithLabelValues("Completed").Inc()
	return nil
}

// pruneResizing forgets resize start times and infeasible resizes of pods
// that are gone.
func (u *Updater) pruneResizing(work workList) {
	live := map[types.UID]bool{}
	for _, w := range work {
		for _, g := range w.groups {
			for _, p := range g.pods {
				live[p.UID] = true
			}
		}
	}
	for uid := range u.resizing {
		if !live[uid] {
			delete(u.resizing, uid)
		}
	}
	for uid := range u.infeasible {
		if !live[uid] {
			delete(u.infeasible, uid)
		}
	}
}
