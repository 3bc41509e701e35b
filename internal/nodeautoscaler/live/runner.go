package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/operator"
)

// The batching rule's defaults (--scale-up-batch-idle-duration,
// --scale-up-batch-max-duration).
const (
	DefaultBatchIdle = 300 * time.Millisecond
	DefaultBatchMax  = time.Second
)

// Loop is the autoscaler loop the Runner drives; *nodeautoscaler.Autoscaler
// implements it.
type Loop interface {
	// RunOnce runs one loop at now.
	RunOnce(ctx context.Context, now time.Time) error
	// State returns the per-group state of the last loop.
	State() []clusterstate.GroupState
	// PendingCounts counts the unschedulable pods and the pods of bypassed
	// schedulers not processed yet, as the loop selects them.
	PendingCounts(pods *nodeautoscaler.PodIndex) (unschedulable, unprocessed int)
}

// ScaleDownSource reports scale-down's candidates for the status
// ConfigMap; *nodeautoscaler.Autoscaler implements it.
type ScaleDownSource interface {
	// ScaleDownCandidates returns the unneeded nodes per group of the last
	// scale-down round; nil when the loop does no scale-down.
	ScaleDownCandidates() map[string]int
}

// RunnerConfig configures a Runner.
type RunnerConfig struct {
	// Loop is the autoscaler.
	Loop Loop
	// EmitPerNodeGroupMetrics exports the per-node-group gauges
	// (--emit-per-nodegroup-metrics).
	EmitPerNodeGroupMetrics bool
	// Limits are the cluster-wide limits exported as gauges.
	Limits ClusterLimits
	// Cluster is the informer-backed cluster the loop reads.
	Cluster *Cluster
	// Clock ticks the scan interval and stamps each loop.
	Clock clock.WithTicker
	// ScanInterval is --scan-interval.
	ScanInterval time.Duration
	// FrequentLoops is --frequent-loops-enabled: the next loop starts at
	// once after a loop that scaled up or started deleting nodes (when
	// Loop implements ScalingTimes), or when Trigger fires, instead of
	// only a scan interval after the last loop.
	FrequentLoops bool
	// Trigger is raised by a new unschedulable pod (see
	// NewUnschedulablePodTrigger); used only with FrequentLoops.
	Trigger *operator.Trigger
	// Batch is how long a loop that Trigger starts waits for more pods to
	// turn unschedulable, so that a burst gets one decision: until no pod
	// turned unschedulable for Idle, at most Max after the first one
	// (--scale-up-batch-idle-duration, --scale-up-batch-max-duration).
	// Karpenter batches pending pods the same way (1 s idle, 10 s at most
	// there; shorter here because the loop itself is fast and the wait
	// adds to every pod's latency).
	Batch operator.Batch
	// Health records each loop's result.
	Health *Health
	// Status writes the status ConfigMap after each loop; nil disables it
	// (--write-status-configmap=false).
	Status *StatusWriter
	// Registerer receives the loop metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// ScaleDown feeds the scaleDown sections of the status ConfigMap; nil
	// uses Loop when it implements ScaleDownSource, else the sections are
	// left out.
	ScaleDown ScaleDownSource
}

// Validate reports missing wiring.
func (c *RunnerConfig) Validate() error {
	var errs []error
	if c.Loop == nil {
		errs = append(errs, errors.New("loop is required"))
	}
	if c.Cluster == nil {
		errs = append(errs, errors.New("cluster is required"))
	}
	if c.Clock == nil {
		errs = append(errs, errors.New("clock is required"))
	}
	if c.Health == nil {
		errs = append(errs, errors.New("health is required"))
	}
	if c.ScanInterval <= 0 {
		errs = append(errs, errors.New("scan interval must be positive"))
	}
	if err := c.Batch.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Runner calls the loop every scan interval once the caches synced.
type Runner struct {
	cfg     RunnerConfig
	metrics *runnerMetrics
	running bool
}

// NewRunner validates cfg and registers the loop metrics.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring runner: %w", err)
	}
	m, err := newRunnerMetrics(cfg.Registerer, cfg.EmitPerNodeGroupMetrics, cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("configuring runner: %w", err)
	}
	if s, ok := cfg.Loop.(ScaleDownSource); ok && cfg.ScaleDown == nil {
		cfg.ScaleDown = s
	}
	return &Runner{cfg: cfg, metrics: m}, nil
}

// Run waits for the caches, then runs the loop at once and then as
// operator.Loop paces it (see loop), until ctx ends. A failed loop is
// logged and retried at the next tick; /healthz reports it once it lasts
// longer than --max-inactivity.
func (r *Runner) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("node-autoscaler")
	ctx = klog.NewContext(ctx, log)
	if err := r.cfg.Cluster.WaitForSync(ctx); err != nil {
		return err
	}
	log.Info("Caches synced, starting the loop", "scanInterval", r.cfg.ScanInterval)
	// As upstream, the status ConfigMap says Initializing before the first
	// loop, so that the events of that loop refer to an existing object
	// (and carry its UID).
	r.writeStatus(ctx, r.cfg.Clock.Now(), "")
	r.cfg.Health.StartMonitoring()
	defer r.cfg.Health.StopMonitoring()
	var lastEnd time.Time
	return r.loop().Run(ctx, func(ctx context.Context) {
		if !lastEnd.IsZero() {
			r.metrics.observeFunction("loopWait", r.cfg.Clock.Since(lastEnd))
		}
		r.Once(ctx)
		lastEnd = r.cfg.Clock.Now()
	})
}

// loop paces the loop as upstream's loop trigger does: a scan interval
// after the last loop ends, or with frequent loops at once after a
// productive loop or on a new unschedulable pod, the latter batched (see
// RunnerConfig.Batch): a loop started by a pod waits for the rest of its
// burst, and so does a productive loop's successor when pods turned
// unschedulable while the productive loop ran.
func (r *Runner) loop() operator.Loop {
	l := operator.Loop{Clock: r.cfg.Clock, Interval: r.cfg.ScanInterval, Immediate: true, AfterRun: true}
	if !r.cfg.FrequentLoops {
		return l
	}
	l.Trigger, l.Batch = r.cfg.Trigger, r.cfg.Batch
	if t, ok := r.cfg.Loop.(ScalingTimes); ok {
		l.Again = func(start time.Time) bool {
			return !t.LastScaleUpTime().Before(start) || !t.LastScaleDownDeleteTime().Before(start)
		}
	}
	return l
}

// Once runs one loop (which takes a fresh view of the cluster) and records
// its result, metrics and status; it returns the loop's start.
func (r *Runner) Once(ctx context.Context) time.Time {
	start := r.cfg.Clock.Now()
	err := r.cfg.Loop.RunOnce(ctx, start)
	r.metrics.observeLoop(start, r.cfg.Clock.Since(start), err, clusterHealthy(r.cfg.Loop))
	if a, ok := loopActivity(r.cfg.Loop); ok {
		r.metrics.observeActivity(a)
	}
	r.cfg.Health.Record(start, err)
	msg := ""
	if err != nil {
		klog.FromContext(ctx).Info("Loop failed", "err", err.Error())
		msg = err.Error()
	} else {
		r.running = true
	}
	if view, verr := r.cfg.Cluster.Current(); verr == nil {
		r.metrics.observeState(view, r.cfg.Loop)
	}
	r.writeStatus(ctx, start, msg)
	return start
}

// writeStatus writes the status ConfigMap, if enabled, for the loop that
// started at start.
func (r *Runner) writeStatus(ctx context.Context, start time.Time, msg string) {
	if r.cfg.Status == nil {
		return
	}
	in := StatusInput{Now: start, Running: r.running, Message: msg, Groups: r.cfg.Loop.State()}
	if r.cfg.ScaleDown != nil {
		in.ScaleDownCandidates = r.cfg.ScaleDown.ScaleDownCandidates()
	}
	doc := r.cfg.Status.Document(in)
	if err := r.cfg.Status.Write(ctx, doc, start); err != nil {
		klog.FromContext(ctx).Info("Writing status ConfigMap failed", "err", err.Error())
	}
}
