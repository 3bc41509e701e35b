package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
	"github.com/kscale/kscale/internal/componentflags"
	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
	"github.com/kscale/kscale/internal/operator"
)

// Flags are the command-line flags of `kscale node-autoscaler`: the
// autoscaler's options, the cloud provider's flags and those of live
// operation, with upstream's names and defaults, and their conversion into
// a ComponentConfig.
type Flags struct {
	opts          options.Options
	leader        leaderelection.Config
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
	batch         operator.Batch
	dryRun        bool
	shadow        shadowFlags
	fs            *pflag.FlagSet
	cloud         *registry.Flags
	defaultCloud  string
	builder       registry.Builder
}

// NewFlags returns the flags with the options' defaults; cloud holds every
// registered provider's flags and defaultCloud is --cloud-provider's
// default.
func NewFlags(cloud *registry.Flags, defaultCloud string) *Flags {
	return &Flags{opts: options.Default(), cloud: cloud, defaultCloud: defaultCloud}
}

// AddFlags registers the autoscaler's options and the live flags, with
// upstream's names and defaults.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
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
	fs.StringVar(&o.statusName, "status-config-map-name", StatusConfigMapName, "Name of the status ConfigMap in --namespace.")
	fs.BoolVar(&o.frequentLoops, "frequent-loops-enabled", true, "Start the next loop at once after a loop that scaled up or began deleting nodes, and when a pod turns unschedulable; false: only every --scan-interval.")
	fs.DurationVar(&o.batch.Idle, "scale-up-batch-idle-duration", DefaultBatchIdle, "With --frequent-loops-enabled, a loop started by a pod turning unschedulable waits until no further pod did for this long, so a burst gets one scale-up; 0: start at once.")
	fs.DurationVar(&o.batch.Max, "scale-up-batch-max-duration", DefaultBatchMax, "The longest a loop started by a pod turning unschedulable waits for the burst to end (--scale-up-batch-idle-duration).")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Shadow mode: decide every loop as live but make no cloud call and write nothing but the own status ConfigMap (default "+ShadowStatusName+") and Lease (default "+ShadowLeaseName+"); see docs/shadow-mode.md.")
	o.shadow.addFlags(fs)
	o.cloud.AddFlags(fs, o.defaultCloud)
	o.leader.AddFlags(fs, true, DefaultLeaseName)
}

// Options returns the autoscaler's options, complete after Complete.
func (o *Flags) Options() options.Options { return o.opts }

// Election returns the leader election settings, complete after Complete.
func (o *Flags) Election() leaderelection.Config { return o.leader }

// StatusName returns the status ConfigMap's name, complete after Complete.
func (o *Flags) StatusName() string { return o.statusName }

// Complete validates the flags and, last, completes the cloud provider
// (which reads its config); its errors name the flag.
func (o *Flags) Complete() error {
	if err := o.opts.Validate(); err != nil {
		return err
	}
	if err := o.completeClient(); err != nil {
		return err
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
	if err := o.leader.Default(); err != nil {
		return err
	}
	if err := o.leader.Validate(); err != nil {
		return err
	}
	return o.completeCloud()
}

// completeClient checks the client, serving and health flags.
func (o *Flags) completeClient() error {
	if err := componentflags.ValidateLimits("--kube-client-qps", "--kube-client-burst", o.qps, o.burst); err != nil {
		return err
	}
	if err := componentflags.ValidateFile("--kubeconfig", o.kubeconfig); err != nil {
		return err
	}
	if err := componentflags.ValidateFile("--grpc-expander-cert", o.opts.GRPCExpanderCert); err != nil {
		return err
	}
	if err := componentflags.ValidateAddress("--address", o.address, false); err != nil {
		return err
	}
	return componentflags.Positive(componentflags.Duration{Flag: "--max-inactivity", Value: o.maxInactivity},
		componentflags.Duration{Flag: "--max-failing-time", Value: o.maxFailing}, componentflags.Duration{Flag: "--max-startup-time", Value: o.maxStartup})
}

// completeCloud completes the cloud provider and takes its startup taints
// and GPU label into the options.
func (o *Flags) completeCloud() error {
	var err error
	if o.builder, err = o.cloud.Complete(); err != nil {
		return err
	}
	if st, ok := o.builder.(registry.StartupTainter); ok {
		o.opts.StartupTaints = append(o.opts.StartupTaints, st.StartupTaints()...)
	}
	if gl, ok := o.builder.(registry.GPULabeler); ok {
		o.opts.GPULabel = gl.GPULabel()
	}
	if _, ok := o.builder.(registry.KubeProxyTemplater); !ok && o.opts.TemplateKubeProxyPod {
		return fmt.Errorf("--template-kube-proxy-pod: upstream's %s provider adds no kube-proxy pod to its templates, so kscale adds none either; the flag applies to aws, clusterapi, kwok and mcm",
			o.cloud.Common.Provider)
	}
	return nil
}

// restConfig loads the client configuration.
func (o *Flags) restConfig() (*rest.Config, error) {
	cfg, err := componentflags.LoadRESTConfig(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	cfg.UserAgent, cfg.ContentType = o.userAgent, o.contentType
	return cfg, nil
}

// Host builds the autoscaler from the completed flags and returns it with
// the host's settings: /metrics and /healthz on every replica, the loop
// while leading. It sets the process's garbage collector target (see
// gcPercent). reg takes every metric of the loop and the provider.
func (o *Flags) Host(_ context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error) {
	setGCPercent()
	cfg, err := o.restConfig()
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return operator.Component{}, operator.Config{}, fmt.Errorf("creating Kubernetes client: %w", err)
	}
	health := NewHealth(clock.RealClock{}, HealthTimers{MaxInactivity: o.maxInactivity, MaxFailing: o.maxFailing, MaxStartup: o.maxStartup})
	comp, err := NewComponent(ComponentConfig{Options: o.opts, Cloud: o.builder, CloudName: o.cloud.Common.Provider, RESTConfig: cfg, Client: client,
		Registerer: reg, Health: health, StatusName: o.statusName, RecordDuplicated: o.recordDup, FrequentLoops: o.frequentLoops, Batch: o.batch,
		DryRun: o.dryRun, Shadow: ShadowConfig{Window: o.shadow.window, RecordFile: o.shadow.record}})
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	return comp, operator.Config{Addresses: []operator.Address{{Flag: "address", Address: o.address}}, Election: o.leader, Client: client}, nil
}

// gcPercent is the garbage collector's target the node autoscaler runs
// with unless GOGC is set: its heap is mostly the informer caches, which
// live as long as the process, so the runtime's default (100: the heap may
// double its live size between collections) makes the peak memory about
// twice the caches. 50 bounds it at one and a half, for a little more
// collection work (Prometheus lowers its default to 75 for the same
// reason).
const gcPercent = 50

// setGCPercent applies gcPercent unless the GOGC environment variable
// chose a target.
func setGCPercent() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
