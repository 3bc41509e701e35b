package recommender

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	prommodel "github.com/prometheus/common/model"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/componentflags"
	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/input"
)

// Flags are the command-line flags of the recommender, with upstream's
// names and defaults, and their conversion into a ComponentConfig.
type Flags struct {
	cfg          Config
	history      input.HistoryConfig
	leader       leaderelection.Config
	client       componentflags.Client
	address      string
	storage      string
	podMinMemMB  float64
	maxCPU       string
	maxMemory    string
	historyLen   string
	historyRes   string
	watchEvents  bool
	cacheTimeout time.Duration
}

// AddFlags registers every flag with the upstream name and default.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
	c, m, e, k := &o.cfg, &o.cfg.Model, &o.cfg.Estimator, &o.cfg.Checkpoints
	fs.DurationVar(&c.Interval, "recommender-interval", time.Minute, "How often metrics are fetched and recommendations computed.")
	fs.StringVar(&c.Name, "recommender-name", DefaultRecommenderName, "Name of this recommender; it serves VPAs naming it (and, as \"default\", VPAs naming none).")
	fs.BoolVar(&c.MemorySaver, "memory-saver", false, "Keep state only for pods some VPA selects.")
	fs.IntVar(&c.Workers, "update-worker-count", 10, "Number of concurrent VPA status writers.")
	fs.Float64Var(&e.MarginFraction, "recommendation-margin-fraction", 0.15, "Fraction of usage added as the safety margin.")
	fs.Int64Var(&e.PodMinCPUMillicores, "pod-recommendation-min-cpu-millicores", 25, "Least CPU recommended per pod, in millicores.")
	fs.Float64Var(&o.podMinMemMB, "pod-recommendation-min-memory-mb", 250, "Least memory recommended per pod, in MiB.")
	fs.Float64Var(&e.TargetCPUPercentile, "target-cpu-percentile", 0.9, "CPU usage percentile of the target.")
	fs.Float64Var(&e.LowerBoundCPUPercentile, "recommendation-lower-bound-cpu-percentile", 0.5, "CPU usage percentile of the lower bound.")
	fs.Float64Var(&e.UpperBoundCPUPercentile, "recommendation-upper-bound-cpu-percentile", 0.95, "CPU usage percentile of the upper bound.")
	fs.Float64Var(&e.TargetMemoryPercentile, "target-memory-percentile", 0.9, "Memory peak percentile of the target.")
	fs.Float64Var(&e.LowerBoundMemoryPercentile, "recommendation-lower-bound-memory-percentile", 0.5, "Memory peak percentile of the lower bound.")
	fs.Float64Var(&e.UpperBoundMemoryPercentile, "recommendation-upper-bound-memory-percentile", 0.95, "Memory peak percentile of the upper bound.")
	fs.DurationVar(&e.ConfidenceIntervalCPU, "confidence-interval-cpu", 24*time.Hour, "History length at which CPU confidence reaches 1.")
	fs.DurationVar(&e.ConfidenceIntervalMemory, "confidence-interval-memory", 24*time.Hour, "History length at which memory confidence reaches 1.")
	fs.Int64Var(&e.RoundCPUMillicores, "round-cpu-millicores", 1, "Round CPU recommendations up to a multiple of this many millicores.")
	fs.Int64Var(&e.RoundMemoryBytes, "round-memory-bytes", 1, "Round memory recommendations up to a multiple of this many bytes.")
	fs.StringVar(&o.maxCPU, "container-recommendation-max-allowed-cpu", "", "Largest CPU recommended per container unless the VPA sets maxAllowed (quantity; empty = none).")
	fs.StringVar(&o.maxMemory, "container-recommendation-max-allowed-memory", "", "Largest memory recommended per container unless the VPA sets maxAllowed (quantity; empty = none).")
	fs.BoolVar(&e.IntegerCPU, "cpu-integer-post-processor-enabled", false, "Round CPU up to whole cores for containers the VPA annotates with vpa-post-processor.kubernetes.io/<container>_integerCPU=true.")
	fs.DurationVar(&m.CPUHalfLife, "cpu-histogram-decay-half-life", 24*time.Hour, "Half-life of the weight of CPU samples.")
	fs.DurationVar(&m.MemoryHalfLife, "memory-histogram-decay-half-life", 24*time.Hour, "Half-life of the weight of memory peaks.")
	fs.DurationVar(&m.MemoryAggregationInterval, "memory-aggregation-interval", 24*time.Hour, "Length of one memory peak window.")
	fs.Int64Var(&m.MemoryAggregationIntervalCount, "memory-aggregation-interval-count", 8, "Number of memory peak windows kept.")
	fs.Float64Var(&m.OOMBumpUpRatio, "oom-bump-up-ratio", 1.2, "Multiplier of the memory in use at an OOM kill.")
	fs.Float64Var(&m.OOMMinBumpUpBytes, "oom-min-bump-up-bytes", 100*1024*1024, "Least memory added at an OOM kill, in bytes.")
	fs.DurationVar(&k.GCInterval, "checkpoints-gc-interval", 10*time.Minute, "How often checkpoints of deleted VPAs are removed.")
	fs.DurationVar(&k.Timeout, "checkpoints-timeout", time.Minute, "Time budget for writing checkpoints in one loop.")
	fs.StringVar(&o.storage, "storage", "", "History source at start-up: \"\" or \"checkpoint\" (VPA checkpoints) or \"prometheus\".")
	o.addHistoryFlags(fs)
	o.addClientFlags(fs)
}

// addHistoryFlags registers the Prometheus history flags.
func (o *Flags) addHistoryFlags(fs *pflag.FlagSet) {
	h := &o.history
	fs.StringVar(&h.Address, "prometheus-address", "", "Prometheus base URL for --storage=prometheus.")
	fs.StringVar(&o.historyLen, "history-length", "8d", "How much history to read from Prometheus.")
	fs.StringVar(&o.historyRes, "history-resolution", "1h", "Step of the Prometheus history queries.")
	fs.DurationVar(&h.QueryTimeout, "prometheus-query-timeout", 5*time.Minute, "Timeout of each Prometheus query.")
	fs.StringVar(&h.CadvisorJob, "prometheus-cadvisor-job-name", "kubernetes-cadvisor", "Job of the cAdvisor container metrics.")
	fs.StringVar(&h.PodsJob, "prometheus-pods-job-name", "kubernetes-pods", "Job whose up series carry the pod labels.")
	fs.StringVar(&h.PodLabelPrefix, "pod-label-prefix", "pod_label_", "Prefix of pod labels on those series.")
	fs.StringVar(&h.PodNamespaceLabel, "pod-namespace-label", "kubernetes_namespace", "Label naming the pod's namespace on those series.")
	fs.StringVar(&h.PodNameLabel, "pod-name-label", "kubernetes_pod_name", "Label naming the pod on those series.")
	fs.StringVar(&h.ContainerNamespaceLabel, "container-namespace-label", "namespace", "Label naming the namespace on cAdvisor series.")
	fs.StringVar(&h.ContainerPodNameLabel, "container-pod-name-label", "pod", "Label naming the pod on cAdvisor series.")
	fs.StringVar(&h.ContainerNameLabel, "container-name-label", "container", "Label naming the container on cAdvisor series.")
}

// addClientFlags registers API client, serving and leader election flags.
func (o *Flags) addClientFlags(fs *pflag.FlagSet) {
	o.client.AddFlags(fs, componentflags.ClientSpec{QPSFlag: "kube-api-qps", QPS: 50, BurstFlag: "kube-api-burst", Burst: 100})
	fs.StringVar(&o.address, "address", ":8942", "Address serving /metrics, /health-check (alias /healthz) and, with --profiling, /debug/pprof.")
	fs.BoolVar(&o.watchEvents, "watch-eviction-events", true, "Also read OOMs from kubelet eviction events.")
	fs.DurationVar(&o.cacheTimeout, "cache-sync-timeout", 2*time.Minute, "How long to wait for the pod cache at start-up.")
	o.leader.AddFlags(fs, false, "vpa-recommender-lease")
}

// SetFeatures sets the VPA feature gates the command line turned on.
func (o *Flags) SetFeatures(g features.Gates) { o.cfg.Features = g }

// Config returns the recommender's configuration, complete after Complete.
func (o *Flags) Config() Config { return o.cfg }

// Complete converts and validates the flags; its errors name the flag.
func (o *Flags) Complete() error {
	if err := o.client.Validate(); err != nil {
		return err
	}
	if err := componentflags.ValidateAddress("--address", o.address, false); err != nil {
		return err
	}
	if err := componentflags.ValidateInterval("--recommender-interval", o.cfg.Interval); err != nil {
		return err
	}
	if o.cacheTimeout <= 0 {
		return fmt.Errorf("--cache-sync-timeout: must be positive, got %v", o.cacheTimeout)
	}
	if o.cfg.Workers < 1 {
		return fmt.Errorf("--update-worker-count: must be at least 1, got %d", o.cfg.Workers)
	}
	if err := componentflags.Positive(
		componentflags.Duration{Flag: "--recommender-interval", Value: o.cfg.Interval}, componentflags.Duration{Flag: "--checkpoints-timeout", Value: o.cfg.Checkpoints.Timeout},
		componentflags.Duration{Flag: "--checkpoints-gc-interval", Value: o.cfg.Checkpoints.GCInterval}, componentflags.Duration{Flag: "--cpu-histogram-decay-half-life", Value: o.cfg.Model.CPUHalfLife},
		componentflags.Duration{Flag: "--memory-histogram-decay-half-life", Value: o.cfg.Model.MemoryHalfLife}, componentflags.Duration{Flag: "--memory-aggregation-interval", Value: o.cfg.Model.MemoryAggregationInterval},
		componentflags.Duration{Flag: "--confidence-interval-cpu", Value: o.cfg.Estimator.ConfidenceIntervalCPU}, componentflags.Duration{Flag: "--confidence-interval-memory", Value: o.cfg.Estimator.ConfidenceIntervalMemory},
	); err != nil {
		return err
	}
	if err := o.completeLimits(); err != nil {
		return err
	}
	if err := o.completeHistory(); err != nil {
		return err
	}
	o.cfg.Default()
	if err := o.cfg.Validate(); err != nil {
		return err
	}
	if err := o.leader.Default(); err != nil {
		return err
	}
	return o.leader.Validate()
}

// completeLimits converts the per-pod minimum memory and the per-container
// maximums.
func (o *Flags) completeLimits() error {
	if o.podMinMemMB < 0 {
		return errors.New("--pod-recommendation-min-memory-mb: must not be negative")
	}
	o.cfg.Estimator.PodMinMemoryBytes = int64(o.podMinMemMB * 1024 * 1024)
	for _, q := range []struct {
		flag, v string
		dst     *int64
		milli   bool
	}{
		{"--container-recommendation-max-allowed-cpu", o.maxCPU, &o.cfg.Estimator.MaxAllowedCPUMillicores, true},
		{"--container-recommendation-max-allowed-memory", o.maxMemory, &o.cfg.Estimator.MaxAllowedMemoryBytes, false},
	} {
		if q.v == "" {
			continue
		}
		parsed, err := resource.ParseQuantity(q.v)
		if err != nil {
			return fmt.Errorf("%s: %w", q.flag, err)
		}
		*q.dst = parsed.Value()
		if q.milli {
			*q.dst = parsed.MilliValue()
		}
	}
	return nil
}

// completeHistory validates --storage and the Prometheus flags.
func (o *Flags) completeHistory() error {
	switch o.storage {
	case "", "checkpoint":
		return nil
	case "prometheus":
	default:
		return fmt.Errorf("--storage: %q is not one of \"\", checkpoint, prometheus", o.storage)
	}
	for _, d := range []struct {
		flag, v string
		dst     *time.Duration
	}{{"--history-length", o.historyLen, &o.history.Length}, {"--history-resolution", o.historyRes, &o.history.Resolution}} {
		parsed, err := prommodel.ParseDuration(d.v)
		if err != nil {
			return fmt.Errorf("%s: %w", d.flag, err)
		}
		*d.dst = time.Duration(parsed)
	}
	o.history.Default()
	return o.history.Validate()
}

// Host builds the recommender from the completed flags and returns it with
// the host's settings: the metrics and health endpoints on every replica,
// the loop while leading. reg takes its metrics.
func (o *Flags) Host(_ context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error) {
	cfg, err := o.client.RESTConfig("kscale-vpa-recommender")
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return operator.Component{}, operator.Config{}, fmt.Errorf("creating Kubernetes client: %w", err)
	}
	cc := ComponentConfig{Config: o.cfg, RESTConfig: cfg, Client: kube, Registerer: reg,
		WatchEvictionEvents: o.watchEvents, CacheSyncTimeout: o.cacheTimeout}
	if o.storage == "prometheus" {
		cc.History = &o.history
	}
	comp, err := NewComponent(cc)
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	return comp, operator.Config{Addresses: []operator.Address{{Flag: "address", Address: o.address}}, Election: o.leader, Client: kube}, nil
}
