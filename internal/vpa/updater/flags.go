package updater

import (
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/vpaflags"
)

// Flags are the command-line flags of the updater, with upstream's (and
// Gardener's) names and defaults, and their conversion into a
// ComponentConfig.
type Flags struct {
	cfg      Config
	client   vpaflags.Client
	leader   leaderelection.Config
	statusNS string
}

// AddFlags registers every flag with the upstream name and default.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
	c := &o.cfg
	fs.DurationVar(&c.Interval, "updater-interval", DefaultInterval, "How often the updater runs.")
	fs.IntVar(&c.MinReplicas, "min-replicas", DefaultMinReplicas, "Fewest live replicas a controller needs before its pods are updated (VPA updatePolicy.minReplicas overrides).")
	fs.Float64Var(&c.EvictionTolerance, "eviction-tolerance", DefaultEvictionTolerance, "Fraction of a controller's replicas that may be evicted at once.")
	fs.Float64Var(&c.EvictionRateLimit, "eviction-rate-limit", DefaultEvictionRateLimit, "Evictions per second across the cluster; 0 or less disables the limit.")
	fs.IntVar(&c.EvictionRateBurst, "eviction-rate-burst", DefaultEvictionRateBurst, "Burst of the eviction rate limit.")
	fs.DurationVar(&c.Thresholds.EvictAfterOOM, "evict-after-oom-threshold", DefaultEvictAfterOOMThreshold, "Evict pods OOM-killed within this long after starting, if the OOM is that recent.")
	fs.Float64Var(&c.Thresholds.PodUpdate, "pod-update-threshold", DefaultPodUpdateThreshold, "Least relative change (sum over cpu and memory) that updates a pod inside its recommended range.")
	fs.DurationVar(&c.Thresholds.Lifetime, "in-recommendation-bounds-eviction-lifetime-threshold", DefaultLifetimeThreshold, "Pods inside their recommended range are updated only after running this long.")
	fs.BoolVar(&c.UseAdmissionStatus, "use-admission-controller-status", true, "Evict only while the admission webhook renews its status Lease.")
	fs.DurationVar(&c.AdmissionStatusTimeout, "admission-controller-status-lease-timeout", DefaultAdmissionStatusTimeout, "How old the admission webhook's status Lease may be.")
	fs.StringVar(&c.StatusLease, "admission-controller-status-lease-name", AdmissionStatusLeaseName, "Name of the admission webhook's status Lease.")
	fs.StringVar(&o.statusNS, "admission-controller-status-lease-namespace", "", "Namespace of the admission webhook's status Lease (default --namespace).")
	fs.BoolVar(&c.InPlaceSkipDisruptionBudget, "in-place-skip-disruption-budget", false, "In-place resizes that restart no container bypass the eviction budget.")
	o.client.AddFlags(fs, ":8943")
	o.leader.AddFlags(fs, false, "vpa-updater")
}

// SetFeatures sets the VPA feature gates the command line turned on.
func (o *Flags) SetFeatures(g features.Gates) { o.cfg.Features = g }

// Config returns the updater's configuration, complete after Complete.
func (o *Flags) Config() Config { return o.cfg }

// Complete validates the flags and fills the derived settings; its errors
// name the flag.
func (o *Flags) Complete() error {
	if err := o.client.Validate(); err != nil {
		return err
	}
	o.cfg.StatusNamespace = o.client.Namespace
	if o.statusNS != "" {
		o.cfg.StatusNamespace = o.statusNS
	}
	o.cfg.VPAObjectNamespace = o.client.Only
	o.cfg.IgnoredNamespaces = o.client.IgnoredNamespaces()
	if o.leader.Namespace == "" {
		return errors.New("--leader-elect-resource-namespace: must not be empty")
	}
	if err := o.leader.Default(); err != nil {
		return err
	}
	if err := o.leader.Validate(); err != nil {
		return err
	}
	return o.cfg.Validate()
}

// Host builds the updater from the completed flags and returns it with the
// host's settings: the metrics and health endpoints on every replica, the
// loop while leading. reg takes its metrics.
func (o *Flags) Host(ctx context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error) {
	cfg, err := o.client.RESTConfig("kscale-vpa-updater")
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return operator.Component{}, operator.Config{}, fmt.Errorf("creating Kubernetes client: %w", err)
	}
	comp, err := NewComponent(ComponentConfig{Config: o.cfg, RESTConfig: cfg, Client: kube, Registerer: reg})
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	klog.FromContext(ctx).Info("Starting the VPA updater", "interval", o.cfg.Interval, "leaderElection", o.leader.Enabled)
	return comp, operator.Config{Addresses: []operator.Address{{Flag: "address", Address: o.client.Address}}, Election: o.leader, Client: kube}, nil
}
