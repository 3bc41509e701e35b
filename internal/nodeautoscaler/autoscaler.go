package nodeautoscaler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/mismatch"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// Config wires an Autoscaler.
type Config struct {
	// Options are the validated options.
	Options options.Options
	// Provider is the cloud.
	Provider cloudprovider.Provider
	// Cluster reads Kubernetes.
	Cluster Cluster
	// Recorder receives events; nil discards them.
	Recorder Recorder
	// Clock measures the time budgets only (estimation, the removal
	// simulation, soft taints); decisions use the now passed to RunOnce.
	Clock clock.PassiveClock
	// Rand breaks expander ties.
	Rand *rand.Rand
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// Priorities feeds the priority expander; needed only when it is used.
	Priorities expander.PrioritySource
	// GRPCExpander is the filter of --expander=grpc; needed only when it
	// is used.
	GRPCExpander expander.Filter
	// PodPrices prices pods for the price expander when the cloud prices
	// them (externalgrpc); nil values pods at reference prices.
	PodPrices expander.PodPricer
	// ScaleDown taints nodes, evicts pods and lists PDBs for scale-down;
	// nil disables scale-down.
	ScaleDown ScaleDownCluster
	// Backoff keeps the backoff state outside the process; nil keeps it in
	// memory only.
	Backoff BackoffStore
}

// BackoffStore keeps the node groups' backoff outside the process, so that
// a restarted autoscaler or a new leader does not try a backed-off group
// again. The loop saves the state the moment a group is backed off or
// recovers, before it acts on the cloud again, and at the end of each loop.
type BackoffStore interface {
	// SaveBackoff stores s; implementations skip unchanged states.
	SaveBackoff(ctx context.Context, s backoff.State) error
}

// Validate checks the wiring.
func (c *Config) Validate() error {
	var errs []error
	if c.Provider == nil {
		errs = append(errs, errors.New("provider is required"))
	}
	if c.Cluster == nil {
		errs = append(errs, errors.New("cluster is required"))
	}
	if c.Clock == nil {
		errs = append(errs, errors.New("clock is required"))
	}
	if c.Rand == nil {
		errs = append(errs, errors.New("rand is required"))
	}
	return errors.Join(append(errs, c.Options.Validate())...)
}

// Autoscaler is the node autoscaler loop with its in-memory state.
type Autoscaler struct {
	cfg       Config
	state     *clusterstate.Registry
	estimator *nodetemplate.Estimator
	expander  *expander.Chain
	metrics   *metrics
	ignore    nodetemplate.IgnoreTaint
	snapshots snapshotCache
	guard     *mismatch.Guard
	health    clusterHealthGate
	pending   pendingPods
	activity  LoopActivity

	lastScaleUp, lastScaleDownDelete time.Time

	scaleDowner *scaleDownState
}

// New builds an Autoscaler with empty state.
func New(cfg Config) (*Autoscaler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring node autoscaler: %w", err)
	}
	o := cfg.Options
	var b, apiErrors backoff.Backoff = backoff.NewExponential(o.InitialNodeGroupBackoffDuration, o.MaxNodeGroupBackoffDuration, o.NodeGroupBackoffResetTimeout), nil
	if o.BackoffNoFullScaleDown {
		b, apiErrors = backoff.NewInfinite(), b
	}
	chain, err := expander.NewChain(o.Expanders, expander.Sources{Priorities: cfg.Priorities, GRPC: cfg.GRPCExpander, PodPrices: cfg.PodPrices}, cfg.Rand)
	if err != nil {
		return nil, fmt.Errorf("configuring node autoscaler: %w", err)
	}
	m, err := newMetrics(cfg.Registerer, o.EmitPerNodeGroupMetrics)
	if err != nil {
		return nil, fmt.Errorf("configuring node autoscaler: %w", err)
	}
	sd, err := newScaleDown(cfg)
	if err != nil {
		return nil, fmt.Errorf("configuring node autoscaler: %w", err)
	}
	rules := readinessRules(&o)
	counting := rules
	counting.DeletedFromCloudInstances, counting.Instances = o.DeletedNodesFromCloudInstances, cfg.Provider.InstanceKnowledge()
	guard, err := mismatch.New(mismatch.Config{Timeout: o.TemplateMismatchTimeout, Ignore: ignoreTaint(rules, o.StatusTaints)})
	if err != nil {
		return nil, fmt.Errorf("configuring node autoscaler: %w", err)
	}
	return &Autoscaler{scaleDowner: sd, guard: guard,
		cfg: cfg, estimator: nodetemplate.NewEstimator(), expander: chain, metrics: m,
		state: clusterstate.New(clusterstate.Config{Readiness: counting, MaxNodeProvisionTime: o.MaxNodeProvisionTime,
			Backoff: b, APIErrorBackoff: apiErrors, NoFullScaleDown: o.BackoffNoFullScaleDown}),
		ignore:  ignoreTaint(rules, o.StatusTaints),
		health:  newClusterHealthGate(counting, o),
		pending: newPendingPods(o.AllowedSchedulerNames, o.BypassedSchedulerNames, o.ScaleUpUnprocessedTwins),
	}, nil
}

// LastScaleUpTime returns the loop time of the last successful scale-up.
func (a *Autoscaler) LastScaleUpTime() time.Time { return a.lastScaleUp }

// LastScaleDownDeleteTime returns the loop time of the last loop that
// started deleting nodes.
func (a *Autoscaler) LastScaleDownDeleteTime() time.Time { return a.lastScaleDownDelete }

// State returns the per-group state of the last loop.
func (a *Autoscaler) State() []clusterstate.GroupState {
	groups := a.state.Groups()
	for i := range groups {
		if s, ok := a.guard.Status(groups[i].Group.ID); ok {
			groups[i].TemplateMismatch = describeMismatch(s)
		}
	}
	return groups
}

// PendingCounts counts pending pods as upstream's
// unschedulable_pods_count does: among the pods of the allowed schedulers
// (--allowed-scheduler-names, all when unset), those kube-scheduler marked
// unschedulable, and those of the schedulers of --bypassed-scheduler-names
// that no scheduler has processed yet (zero without that flag). Only the
// index's pods that wait for a node can be either.
func (a *Autoscaler) PendingCounts(pods *PodIndex) (unschedulable, unprocessed int) {
	return a.pending.count(pods.Unbound())
}

// BackoffState returns the node groups' backoff state, which a live
// autoscaler persists so that a restart or a new leader keeps it.
func (a *Autoscaler) BackoffState() backoff.State { return a.state.BackoffState() }

// RestoreBackoff replaces the backoff state before the first loop; nothing
// changes when s is invalid.
func (a *Autoscaler) RestoreBackoff(s backoff.State) error { return a.state.RestoreBackoff(s) }

// RunOnce runs one loop at now: observe, update state, repair group
// health, then scale up. A repair that changed sizes ends the loop early so
// the next one starts from fresh state.
func (a *Autoscaler) RunOnce(ctx context.Context, now time.Time) error {
	a.activity = LoopActivity{Started: map[string]time.Time{}}
	start := a.cfg.Clock.Now()
	obs, err := a.observe(ctx)
	a.took(FunctionCloudProviderRefresh, start)
	if err != nil {
		return err
	}
	a.estimator.Observe(obs.nodes)
	a.reportInvalidOptions(ctx, obs.groups)
	a.metrics.loop.observeTaints(obs.nodes, clusterstate.ReadinessRules{StartupTaints: a.cfg.Options.AllStartupTaints()}, a.cfg.Options.StatusTaints)
	start = a.cfg.Clock.Now()
	stateEvents := a.state.Update(obs.input(), now)
	a.took(FunctionUpdateClusterState, start)
	for _, e := range stateEvents {
		if e.Type == clusterstate.ScaleUpTimedOut || e.Type == clusterstate.ScaleUpFailed {
			a.metrics.failedScaleUp(e.Group, e.Reason.Code, e.Nodes)
		}
		a.record(ctx, stateEvent(e))
	}
	defer func() { a.metrics.update(a.State()) }()
	defer a.saveBackoff(ctx)
	if !a.checkClusterHealth(ctx, obs, now) {
		return nil
	}
	repaired, err := a.repairSizes(ctx, obs, now)
	if err != nil || repaired {
		return err
	}
	if err := a.deleteErrorInstances(ctx, obs); err != nil {
		return err
	}
	a.began(ActivityAutoscaling)
	if a.scaleUpFromZeroAllowed(obs, now) {
		start := a.began(FunctionScaleUp)
		err := a.scaleUp(ctx, obs, now)
		a.took(FunctionScaleUp, start)
		if err != nil {
			return err
		}
	}
	if a.scaleDowner != nil && a.cfg.Options.ScaleDown.Enabled {
		start = a.began(FunctionScaleDown)
		err := a.scaleDown(ctx, obs, now)
		a.took(FunctionScaleDown, start)
		if err != nil {
			return err
		}
	}
	return a.scaleUpToMinSize(ctx, obs, now)
}

func (a *Autoscaler) record(ctx context.Context, e Event) {
	a.metrics.observe(e)
	if e.Type == EventBackoffStarted || e.Type == EventBackoffCleared {
		a.saveBackoff(ctx)
	}
	if a.cfg.Recorder != nil {
		a.cfg.Recorder.Record(ctx, e)
	}
}

// saveBackoff stores the backoff state. A failure is logged, not returned:
// the next save retries, and a store that is down must not stop
// autoscaling.
func (a *Autoscaler) saveBackoff(ctx context.Context) {
	if a.cfg.Backoff == nil {
		return
	}
	if err := a.cfg.Backoff.SaveBackoff(ctx, a.state.BackoffState()); err != nil {
		klog.FromContext(ctx).Info("Saving backoff failed", "err", err.Error())
	}
}

func stateEvent(e clusterstate.Event) Event {
	return Event{Type: EventType(e.Type), Group: e.Group, Reason: e.Reason.Code, Message: e.Message}
}

// transientTaints are dropped from templates whatever the flags say, as
// upstream's SanitizeTaints does: the node-condition taints (a new node has
// none of them), the rescheduler's, and the autoscaler's own.
var transientTaints = map[string]bool{
	corev1.TaintNodeNotReady: true, corev1.TaintNodeUnreachable: true, corev1.TaintNodeUnschedulable: true,
	corev1.TaintNodeMemoryPressure: true, corev1.TaintNodeDiskPressure: true, corev1.TaintNodeNetworkUnavailable: true,
	corev1.TaintNodePIDPressure: true, "node.cloudprovider.kubernetes.io/uninitialized": true, "node.cloudprovider.kubernetes.io/shutdown": true,
	"cloud.google.com/impending-node-termination": true, "NodeWithImpairedVolumes": true, "CriticalAddonsOnly": true,
	clusterstate.ToBeDeletedTaint: true, clusterstate.BeingDeletedTaint: true, clusterstate.DeletionCandidateTaint: true,
}

// ignoreTaint reports the taint keys templates drop: the transient ones,
// startup taints and status taints.
func ignoreTaint(rules clusterstate.ReadinessRules, status []string) nodetemplate.IgnoreTaint {
	return func(key string) bool {
		if transientTaints[key] || rules.IsStartupTaint(key) || slices.Contains(status, key) {
			return true
		}
		return strings.HasPrefix(key, clusterstate.StatusTaintPrefix) && len(key) > len(clusterstate.StatusTaintPrefix)
	}
}
