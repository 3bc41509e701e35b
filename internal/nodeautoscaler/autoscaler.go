package nodeautoscaler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/mismatch"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
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
	// Clock measures the estimation time budget only; decisions use the
	// now passed to RunOnce.
	Clock clock.PassiveClock
	// Rand breaks expander ties.
	Rand *rand.Rand
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// Priorities feeds the priority expander; needed only when it is used.
	Priorities expander.PrioritySource
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
	estimator *template.Estimator
	expander  *expander.Chain
	metrics   *metrics
	ignore    template.IgnoreTaint
	snapshots snapshotCache
	guard     *mismatch.Guard
	health    clusterHealthGate

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
	chain, err := expander.NewChain(o.Expanders, cfg.Priorities, cfg.Rand)
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
	rules := clusterstate.ReadinessRules{StartupTaints: o.AllStartupTaints(), MaxNodeStartupTime: o.MaxNodeStartupTime}
	guard, err := mismatch.New(mismatch.Config{Timeout: o.TemplateMismatchTimeout, Ignore: ignoreTaint(rules, o.StatusTaints)})
	if err != nil {
		return nil, fmt.Errorf("configuring node autoscaler: %w", err)
	}
	return &Autoscaler{scaleDowner: sd, guard: guard,
		cfg: cfg, estimator: template.NewEstimator(), expander: chain, metrics: m,
		state: clusterstate.New(clusterstate.Config{Readiness: rules, MaxNodeProvisionTime: o.MaxNodeProvisionTime,
			Backoff: b, APIErrorBackoff: apiErrors, NoFullScaleDown: o.BackoffNoFullScaleDown}),
		ignore: ignoreTaint(rules, o.StatusTaints),
		health: newClusterHealthGate(rules, o),
	}, nil
}

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
	obs, err := a.observe(ctx)
	if err != nil {
		return err
	}
	a.estimator.Observe(obs.nodes)
	for _, e := range a.state.Update(obs.input(), now) {
		if e.Type == clusterstate.ScaleUpTimedOut || e.Type == clusterstate.ScaleUpFailed {
			a.metrics.failedScaleUp(e.Reason.Code)
		}
		a.record(ctx, stateEvent(e))
	}
	defer func() { a.metrics.update(a.State()) }()
	defer a.saveBackoff(ctx)
	if !a.checkClusterHealth(ctx, obs, now) {
		return nil
	}
	repaired, err := a.repairSizes(ctx, now)
	if err != nil || repaired {
		return err
	}
	if err := a.deleteErrorInstances(ctx); err != nil {
		return err
	}
	if a.scaleUpFromZeroAllowed(obs, now) {
		if err := a.scaleUp(ctx, obs, now); err != nil {
			return err
		}
	}
	return a.scaleDown(ctx, obs, now)
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

func ignoreTaint(rules clusterstate.ReadinessRules, status []string) template.IgnoreTaint {
	return func(key string) bool {
		if rules.IsStartupTaint(key) || key == clusterstate.ToBeDeletedTaint || key == clusterstate.BeingDeletedTaint ||
			key == actuation.DeletionCandidateTaint {
			return true
		}
		for _, s := range status {
			if s == key {
				return true
			}
		}
		return len(key) > len(clusterstate.StatusTaintPrefix) && key[:len(clusterstate.StatusTaintPrefix)] == clusterstate.StatusTaintPrefix
	}
}
