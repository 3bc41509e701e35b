package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/opsserver"
)

// nodeAutoscalerOptions are the flags of `kscale node-autoscaler`: the
// autoscaler's options plus those of live operation.
type nodeAutoscalerOptions struct {
	opts          options.Options
	leader        live.LeaderElection
	kubeconfig    string
	qps           float64
	burst         int
	address       string
	maxInactivity time.Duration
	maxFailing    time.Duration
	maxStartup    time.Duration
	userAgent     string
	contentType   string
	statusName    string
	recordDup     bool
	frequentLoops bool
	batch         live.Batch
	dryRun        bool
	shadow        shadowFlags
	fs            *pflag.FlagSet
	cloud         cloudFlags
	builder       cloudBuilder
	cmn           commonFlags
}

func (o *nodeAutoscalerOptions) common() *commonFlags { return &o.cmn }

// newNodeAutoscalerCommand builds `kscale node-autoscaler`.
func newNodeAutoscalerCommand() *cobra.Command {
	return newComponentCommand("node-autoscaler", "Add and remove nodes per node group of a live cluster, like the Cluster Autoscaler",
		&nodeAutoscalerOptions{opts: options.Default()}, commonSpec{gates: kubernetesGates, defaultOnlyGates: true})
}

// addFlags registers the autoscaler's options and the live flags, with
// upstream's names and defaults.
func (o *nodeAutoscalerOptions) addFlags(fs *pflag.FlagSet) {
	o.opts.AddFlags(fs)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty uses the in-cluster configuration.")
	fs.Float64Var(&o.qps, "kube-client-qps", 5, "QPS limit of the Kubernetes API client.")
	fs.IntVar(&o.burst, "kube-client-burst", 10, "Burst limit of the Kubernetes API client.")
	fs.StringVar(&o.address, "address", ":8085", "Address serving /metrics, /health-check (alias /healthz) and, with --profiling, /debug/pprof.")
	o.fs = fs
	fs.DurationVar(&o.maxInactivity, "max-inactivity", 10*time.Minute, "/health-check fails when no loop ran for this long.")
	fs.DurationVar(&o.maxFailing, "max-failing-time", 15*time.Minute, "/health-check fails when no loop succeeded for this long.")
	fs.DurationVar(&o.maxStartup, "max-startup-time", 20*time.Minute, "Both limits until the first loop succeeded; raised to at least --max-inactivity and --max-failing-time.")
	fs.StringVar(&o.userAgent, "user-agent", "cluster-autoscaler", "User-Agent of the Kubernetes API requests.")
	fs.StringVar(&o.contentType, "kube-api-content-type", "application/vnd.kubernetes.protobuf", "Content type of the Kubernetes API requests.")
	fs.BoolVar(&o.recordDup, "record-duplicated-events", false, "Record every event: client-go's default event correlator instead of upstream's, and no deduplication.")
	fs.StringVar(&o.statusName, "status-config-map-name", live.StatusConfigMapName, "Name of the status ConfigMap in --namespace.")
	fs.BoolVar(&o.frequentLoops, "frequent-loops-enabled", true, "Start the next loop at once after a loop that scaled up or began deleting nodes, and when a pod turns unschedulable; false: only every --scan-interval.")
	fs.DurationVar(&o.batch.Idle, "scale-up-batch-idle-duration", live.DefaultBatchIdle, "With --frequent-loops-enabled, a loop started by a pod turning unschedulable waits until no further pod did for this long, so a burst gets one scale-up; 0: start at once.")
	fs.DurationVar(&o.batch.Max, "scale-up-batch-max-duration", live.DefaultBatchMax, "The longest a loop started by a pod turning unschedulable waits for the burst to end (--scale-up-batch-idle-duration).")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Shadow mode: decide every loop as live but make no cloud call and write nothing but the own status ConfigMap (default "+shadowStatusName+") and Lease (default "+shadowLeaseName+"); see docs/shadow-mode.md.")
	o.shadow.addFlags(fs)
	o.cloud.addFlags(fs)
	o.leader.AddFlags(fs, true, live.DefaultLeaseName)
}

// complete validates the flags and, last, completes the cloud provider
// (which reads its config).
func (o *nodeAutoscalerOptions) complete() error {
	if err := o.opts.Validate(); err != nil {
		return err
	}
	if !(o.qps > 0) || math.IsInf(o.qps, 0) || o.burst <= 0 {
		return fmt.Errorf("--kube-client-qps and --kube-client-burst: must be positive, got %g and %d", o.qps, o.burst)
	}
	if err := validateFile("--kubeconfig", o.kubeconfig); err != nil {
		return err
	}
	if err := validateFile("--grpc-expander-cert", o.opts.GRPCExpanderCert); err != nil {
		return err
	}
	if err := validateAddress("--address", o.address, false); err != nil {
		return err
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"max-inactivity", o.maxInactivity}, {"max-failing-time", o.maxFailing}, {"max-startup-time", o.maxStartup}} {
		if d.v <= 0 {
			return fmt.Errorf("--%s: must be positive, got %v", d.flag, d.v)
		}
	}
	if o.statusName == "" {
		return errors.New("--status-config-map-name: must not be empty")
	}
	if err := o.batch.Validate(); err != nil {
		return fmt.Errorf("--scale-up-batch-idle-duration and --scale-up-batch-max-duration: %w", err)
	}
	// Upstream locks the Lease in --namespace and ignores
	// --leader-elect-resource-namespace; kscale honours the latter only
	// when it is given.
	if !o.fs.Changed("leader-elect-resource-namespace") {
		o.leader.Namespace = o.opts.Namespace
	}
	if err := o.completeDryRun(o.shadow.check(o.dryRun)); err != nil {
		return err
	}
	if st, ok := o.builder.(startupTainter); ok {
		o.opts.StartupTaints = append(o.opts.StartupTaints, st.startupTaints()...)
	}
	if gl, ok := o.builder.(gpuLabeler); ok {
		o.opts.GPULabel = gl.gpuLabel()
	}
	if err := o.leader.Default(); err != nil {
		return err
	}
	if err := o.leader.Validate(); err != nil {
		return err
	}
	var err error
	o.builder, err = o.cloud.complete()
	return err
}

// restConfig loads the client configuration.
func (o *nodeAutoscalerOptions) restConfig() (*rest.Config, error) {
	cfg, err := loadRESTConfig(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	cfg.UserAgent, cfg.ContentType = o.userAgent, o.contentType
	return cfg, nil
}

// run serves /metrics and /healthz and runs the autoscaler while leading.
func (o *nodeAutoscalerOptions) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	setGCPercent()
	cfg, err := o.restConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating Kubernetes client: %w", err)
	}
	reg := newProcessRegistry()
	health := live.NewHealth(clock.RealClock{}, live.HealthTimers{MaxInactivity: o.maxInactivity, MaxFailing: o.maxFailing, MaxStartup: o.maxStartup})
	ln, err := net.Listen("tcp", o.address)
	if err != nil {
		return fmt.Errorf("--address: %w", err)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return opsserver.Serve(ctx, ln, opsserver.Config{Gatherer: reg, Health: health, Profiling: o.cmn.profiling})
	})
	g.Go(func() error {
		var runErr error
		err := live.RunLeading(ctx, client, o.leader, func(ctx context.Context) { runErr = o.lead(ctx, cfg, client, reg, health) })
		return errors.Join(err, runErr)
	})
	return g.Wait()
}

// lead builds the cloud, the informers and the loop, and runs them until
// ctx ends. Everything is built fresh here, so a new leader starts from the
// cluster and the provider (nodes, persisted target sizes and backoff), not
// from a previous term.
func (o *nodeAutoscalerOptions) lead(ctx context.Context, cfg *rest.Config, client kubernetes.Interface, reg prometheus.Registerer, health *live.Health) error {
	clk := clock.RealClock{}
	factory := live.NewFactory(client)
	nsFactory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(o.opts.Namespace))
	cluster, err := live.NewCluster(factory)
	if err != nil {
		return err
	}
	cl, err := o.builder.build(ctx, cloudDeps{Client: client, RESTConfig: cfg, Factory: factory, Cluster: cluster,
		Namespace: o.opts.Namespace, Clock: clk, Registerer: reg, DisableInstanceCache: o.opts.DisableNodeInstancesCache,
		GroupDefaults: groupDefaults(o.opts)})
	if err != nil {
		return fmt.Errorf("building the %s cloud provider: %w", o.cloud.provider, err)
	}
	if cl.gpuLabel != "" {
		o.opts.GPULabel = cl.gpuLabel
	}
	priorities := live.NewPriorities(nsFactory, o.opts.Namespace)
	var events live.EventRecorder
	if !o.dryRun {
		// Events go through a client of their own, with its own
		// --kube-client-qps budget, as upstream's separate events client
		// does: a burst of per-pod events must not hold the loop's
		// requests back.
		eventsClient, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("creating the events client: %w", err)
		}
		broadcaster, recorder := live.NewEventBroadcasterWith(ctx, eventsClient,
			live.EventOptions{StatusNamespace: o.opts.Namespace, StatusName: o.statusName, RecordDuplicated: o.recordDup})
		defer broadcaster.Shutdown()
		events = recorder
	}
	watcher, closeRecord, err := o.shadowWatcher(ctx, factory, nsFactory, reg)
	if err != nil {
		return err
	}
	defer closeRecord()
	var trigger <-chan struct{}
	if o.frequentLoops {
		if trigger, err = live.NewUnschedulablePodTrigger(factory, clk); err != nil {
			return err
		}
	}
	runner, err := o.runner(ctx, client, loopDeps{provider: cl.provider, cluster: cluster, events: events, watcher: watcher}, priorities, reg, health, trigger)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	nsFactory.Start(ctx.Done())
	defer factory.Shutdown()
	defer nsFactory.Shutdown()
	g, ctx := errgroup.WithContext(ctx)
	for _, task := range cl.tasks {
		g.Go(func() error { return task(ctx) })
	}
	g.Go(func() error { return runner.Run(ctx) })
	return g.Wait()
}

// runner wires the autoscaler loop onto the live cluster, with its backoff
// restored from and saved to the cluster-autoscaler-backoff ConfigMap; with
// --dry-run onto the dry-run boundaries instead (see loopWrites).
func (o *nodeAutoscalerOptions) runner(ctx context.Context, client kubernetes.Interface, deps loopDeps,
	priorities *live.Priorities, reg prometheus.Registerer, health *live.Health, trigger <-chan struct{}) (*live.Runner, error) {
	clk := clock.RealClock{}
	var status *live.StatusWriter
	var statusUID func() types.UID
	if o.opts.WriteStatusConfigMap {
		status = live.NewStatusWriter(client, o.opts.Namespace).Named(o.statusName)
		statusUID = status.UID
	}
	w, err := o.loopWrites(client, deps, statusUID, reg)
	if err != nil {
		return nil, err
	}
	grpcExpander, err := o.grpcExpander(ctx)
	if err != nil {
		return nil, err
	}
	cfg := nodeautoscaler.Config{
		Options: o.opts, Provider: w.provider, Cluster: deps.cluster, Recorder: w.recorder, Clock: clk,
		Rand: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0)), Registerer: reg, Priorities: priorities.Source(),
		ScaleDown: w.scaleDown, GRPCExpander: grpcExpander,
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
	limits := live.ClusterLimits{MaxNodesTotal: o.opts.MaxNodesTotal, MinCores: o.opts.CoresTotal.Min, MaxCores: o.opts.CoresTotal.Max,
		MinMemoryGiB: o.opts.MemoryTotal.Min, MaxMemoryGiB: o.opts.MemoryTotal.Max}
	return live.NewRunner(live.RunnerConfig{Loop: w.loop(loop), EmitPerNodeGroupMetrics: o.opts.EmitPerNodeGroupMetrics, Limits: limits, Cluster: deps.cluster, Clock: clk, ScanInterval: o.opts.ScanInterval,
		FrequentLoops: o.frequentLoops, Trigger: trigger, Batch: o.batch, Health: health, Status: status, Registerer: reg})
}

// dedupWindow is the recorder's deduplication window: the default, or
// none worth the name with --record-duplicated-events.
func (o *nodeAutoscalerOptions) dedupWindow() time.Duration {
	if o.recordDup {
		return time.Nanosecond
	}
	return 0
}

// nodeAutoscalerGCPercent is the garbage collector's target the node
// autoscaler runs with unless GOGC is set: its heap is mostly the informer
// caches, which live as long as the process, so the runtime's default
// (100: the heap may double its live size between collections) makes the
// peak memory about twice the caches. 50 bounds it at one and a half, for
// a little more collection work (Prometheus lowers its default to 75 for
// the same reason).
const nodeAutoscalerGCPercent = 50

// setGCPercent applies nodeAutoscalerGCPercent unless the GOGC
// environment variable chose a target.
func setGCPercent() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(nodeAutoscalerGCPercent)
	}
}
