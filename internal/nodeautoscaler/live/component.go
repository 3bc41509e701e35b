package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/operator"
)

// ComponentConfig is the node autoscaler as one component: the validated
// options and the live settings the command line turned into values.
type ComponentConfig struct {
	// Options are the autoscaler's options, validated.
	Options options.Options
	// Cloud builds the provider at the start of every leader term;
	// completed (its flags validated).
	Cloud registry.Builder
	// CloudName is --cloud-provider, for errors.
	CloudName string
	// RESTConfig is the cluster's client configuration; the events client
	// and a provider's own clients are built from it.
	RESTConfig *rest.Config
	// Client reaches the cluster (built from RESTConfig).
	Client kubernetes.Interface
	// Registerer takes every metric of the loop and the provider.
	Registerer prometheus.Registerer
	// Health records each loop's result; the host serves it.
	Health *Health
	// StatusName is --status-config-map-name.
	StatusName string
	// RecordDuplicated is --record-duplicated-events.
	RecordDuplicated bool
	// FrequentLoops is --frequent-loops-enabled.
	FrequentLoops bool
	// Batch is --scale-up-batch-idle-duration and -max-duration.
	Batch operator.Batch
	// DryRun is --dry-run (shadow mode).
	DryRun bool
	// Shadow configures the comparison with the running autoscaler; used
	// with DryRun.
	Shadow ShadowConfig
	// Clock is the wall clock; default the real one.
	Clock clock.WithTicker
}

// ShadowConfig configures the dry run's comparison.
type ShadowConfig struct {
	// Window is --shadow-compare-window.
	Window time.Duration
	// RecordFile is --shadow-record-file; empty records nothing.
	RecordFile string
}

// Validate reports missing wiring.
func (c *ComponentConfig) Validate() error {
	switch {
	case c.Cloud == nil:
		return errors.New("node autoscaler: a cloud builder is required")
	case c.RESTConfig == nil || c.Client == nil:
		return errors.New("node autoscaler: a client and its configuration are required")
	case c.Registerer == nil || c.Health == nil:
		return errors.New("node autoscaler: a registerer and a health record are required")
	case c.StatusName == "":
		return errors.New("node autoscaler: the status ConfigMap's name is required")
	}
	return c.Batch.Validate()
}

// NewComponent is the node autoscaler's assembly function: nothing runs
// on every replica but the host's endpoints; each leader term builds the
// cloud, the informers and the loop fresh, so a new leader starts from the
// cluster and the provider (nodes, persisted target sizes and backoff),
// not from a previous term.
func NewComponent(cfg ComponentConfig) (operator.Component, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if err := cfg.Validate(); err != nil {
		return operator.Component{}, err
	}
	c := &component{cfg: cfg}
	return operator.Component{Lead: c.lead, Health: cfg.Health}, nil
}

// component holds the configuration a term is built from.
type component struct{ cfg ComponentConfig }

// lead builds one leader term. t.Cleanup gathers what must be released;
// on an error it is released here.
func (c *component) lead(ctx context.Context) (t *operator.Term, err error) {
	t = &operator.Term{}
	defer func() {
		if err != nil {
			for i := len(t.Cleanup) - 1; i >= 0; i-- {
				t.Cleanup[i]()
			}
		}
	}()
	o := &c.cfg.Options
	factory := NewFactory(c.cfg.Client)
	nsFactory := informers.NewSharedInformerFactoryWithOptions(c.cfg.Client, 0, informers.WithNamespace(o.Namespace))
	cluster, err := NewCluster(factory)
	if err != nil {
		return t, err
	}
	cl, err := c.cfg.Cloud.Build(ctx, registry.Deps{Client: c.cfg.Client, RESTConfig: c.cfg.RESTConfig, Factory: factory, WaitForSync: cluster.WaitForSync,
		Namespace: o.Namespace, Clock: c.cfg.Clock, Registerer: c.cfg.Registerer, DisableInstanceCache: o.DisableNodeInstancesCache,
		GroupDefaults: groupDefaults(*o), Prices: slices.Contains(o.Expanders, options.ExpanderPrice)})
	if err != nil {
		return t, fmt.Errorf("building the %s cloud provider: %w", c.cfg.CloudName, err)
	}
	if cl.GPULabel != "" {
		o.GPULabel = cl.GPULabel
	}
	deps := loopDeps{provider: cl.Provider, cluster: cluster}
	if err := c.events(ctx, t, &deps); err != nil {
		return t, err
	}
	if deps.watcher, err = c.shadowWatcher(ctx, t, factory, nsFactory); err != nil {
		return t, err
	}
	var trigger *operator.Trigger
	if c.cfg.FrequentLoops {
		if trigger, err = NewUnschedulablePodTrigger(factory, c.cfg.Clock); err != nil {
			return t, err
		}
	}
	runner, err := c.runner(ctx, deps, NewPriorities(nsFactory, o.Namespace), trigger)
	if err != nil {
		return t, err
	}
	factory.Start(ctx.Done())
	nsFactory.Start(ctx.Done())
	t.Cleanup = append(t.Cleanup, factory.Shutdown, nsFactory.Shutdown)
	for _, task := range cl.Tasks {
		t.Tasks = append(t.Tasks, task)
	}
	t.Tasks = append(t.Tasks, runner.Run)
	return t, nil
}

// events builds the event recorder's broadcaster; none with --dry-run.
func (c *component) events(ctx context.Context, t *operator.Term, deps *loopDeps) error {
	if c.cfg.DryRun {
		return nil
	}
	// Events go through a client of their own, with its own
	// --kube-client-qps budget, as upstream's separate events client does:
	// a burst of per-pod events must not hold the loop's requests back.
	eventsClient, err := kubernetes.NewForConfig(c.cfg.RESTConfig)
	if err != nil {
		return fmt.Errorf("creating the events client: %w", err)
	}
	broadcaster, recorder := NewEventBroadcasterWith(ctx, eventsClient,
		EventOptions{StatusNamespace: c.cfg.Options.Namespace, StatusName: c.cfg.StatusName, RecordDuplicated: c.cfg.RecordDuplicated})
	t.Cleanup = append(t.Cleanup, broadcaster.Shutdown)
	deps.events = recorder
	return nil
}

// runner wires the autoscaler loop onto the live cluster, with its backoff
// restored from and saved to the cluster-autoscaler-backoff ConfigMap; with
// --dry-run onto the dry-run boundaries instead (see loopWrites).
func (c *component) runner(ctx context.Context, deps loopDeps, priorities *Priorities, trigger *operator.Trigger) (*Runner, error) {
	o := c.cfg.Options
	var status *StatusWriter
	var statusUID func() types.UID
	if o.WriteStatusConfigMap {
		status = NewStatusWriter(c.cfg.Client, o.Namespace).Named(c.cfg.StatusName).Refresh(o.ScanInterval)
		statusUID = status.UID
	}
	w, err := c.loopWrites(deps, statusUID)
	if err != nil {
		return nil, err
	}
	grpcFilter, err := grpcExpander(ctx, o)
	if err != nil {
		return nil, err
	}
	cfg := nodeautoscaler.Config{
		Options: o, Provider: w.provider, Cluster: deps.cluster, Recorder: w.recorder, Clock: c.cfg.Clock,
		Rand: rand.New(rand.NewPCG(uint64(c.cfg.Clock.Now().UnixNano()), 0)), Registerer: c.cfg.Registerer, Priorities: priorities.Source(),
		ScaleDown: w.scaleDown, GRPCExpander: grpcFilter,
	}
	if pp, ok := deps.provider.(expander.PodPricer); ok {
		cfg.PodPrices = pp
	}
	if w.backoff != nil {
		cfg.Backoff = w.backoff
	}
	loop, err := nodeautoscaler.New(cfg)
	if err != nil {
		return nil, err
	}
	if w.backoff != nil {
		if err := w.backoff.Restore(ctx, loop); err != nil {
			return nil, err
		}
	}
	limits := ClusterLimits{MaxNodesTotal: o.MaxNodesTotal, MinCores: o.CoresTotal.Min, MaxCores: o.CoresTotal.Max,
		MinMemoryGiB: o.MemoryTotal.Min, MaxMemoryGiB: o.MemoryTotal.Max}
	return NewRunner(RunnerConfig{Loop: w.loop(loop), EmitPerNodeGroupMetrics: o.EmitPerNodeGroupMetrics, Limits: limits, Cluster: deps.cluster,
		Clock: c.cfg.Clock, ScanInterval: o.ScanInterval, FrequentLoops: c.cfg.FrequentLoops, Trigger: trigger, Batch: c.cfg.Batch,
		Health: c.cfg.Health, Status: status, Registerer: c.cfg.Registerer})
}

// dedupWindow is the recorder's deduplication window: the default, or
// none worth the name with --record-duplicated-events.
func (c *component) dedupWindow() time.Duration {
	if c.cfg.RecordDuplicated {
		return time.Nanosecond
	}
	return 0
}
