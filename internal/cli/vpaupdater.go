package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// vpaClientFlags are the API client and serving flags the VPA updater and
// admission webhook share.
type vpaClientFlags struct {
	clientFlags
	address   string
	namespace string
	ignored   string
	only      string
}

func (f *vpaClientFlags) add(fs *pflag.FlagSet, address string) {
	f.clientFlags.add(fs, clientFlagSpec{qpsFlag: "kube-api-qps", qps: 50, burstFlag: "kube-api-burst", burst: 100})
	fs.StringVar(&f.address, "address", address, "Address serving /metrics, /health-check (alias /healthz) and, with --profiling, /debug/pprof.")
	fs.StringVar(&f.only, "vpa-object-namespace", "", "Only serve VPAs and pods in this namespace (empty = all).")
	fs.StringVar(&f.ignored, "ignored-vpa-object-namespaces", "", "Comma-separated namespaces whose VPAs and pods are ignored.")
	ns := os.Getenv("NAMESPACE")
	if ns == "" {
		ns = "kube-system"
	}
	fs.StringVar(&f.namespace, "namespace", ns, "Namespace of the admission webhook's Service and status Lease (default $NAMESPACE, else kube-system).")
}

func (f *vpaClientFlags) validate() error {
	errs := []error{f.clientFlags.validate()}
	if f.only != "" && f.ignored != "" {
		errs = append(errs, errors.New("--vpa-object-namespace and --ignored-vpa-object-namespaces: set at most one"))
	}
	if f.namespace == "" {
		errs = append(errs, errors.New("--namespace: required"))
	}
	errs = append(errs, validateAddress("--address", f.address, false))
	return errors.Join(errs...)
}

func (f *vpaClientFlags) ignoredNamespaces() []string {
	var out []string
	for _, ns := range strings.Split(f.ignored, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}

// vpaUpdaterOptions are the flags of `kscale vpa-updater`.
type vpaUpdaterOptions struct {
	cfg      updater.Config
	client   vpaClientFlags
	leader   leaderelection.Config
	statusNS string
	cmn      commonFlags
}

func (o *vpaUpdaterOptions) common() *commonFlags { return &o.cmn }

// newVPAUpdaterCommand builds `kscale vpa-updater`.
func newVPAUpdaterCommand() *cobra.Command {
	return newComponentCommand("vpa-updater", "Evict or resize pods whose requests drifted from their VerticalPodAutoscaler (autoscaling.k8s.io/v1)", &vpaUpdaterOptions{}, vpaCommonSpec)
}

// addFlags registers every flag with the upstream (and Gardener) name and default.
func (o *vpaUpdaterOptions) addFlags(fs *pflag.FlagSet) {
	c := &o.cfg
	fs.DurationVar(&c.Interval, "updater-interval", updater.DefaultInterval, "How often the updater runs.")
	fs.IntVar(&c.MinReplicas, "min-replicas", updater.DefaultMinReplicas, "Fewest live replicas a controller needs before its pods are updated (VPA updatePolicy.minReplicas overrides).")
	fs.Float64Var(&c.EvictionTolerance, "eviction-tolerance", updater.DefaultEvictionTolerance, "Fraction of a controller's replicas that may be evicted at once.")
	fs.Float64Var(&c.EvictionRateLimit, "eviction-rate-limit", updater.DefaultEvictionRateLimit, "Evictions per second across the cluster; 0 or less disables the limit.")
	fs.IntVar(&c.EvictionRateBurst, "eviction-rate-burst", updater.DefaultEvictionRateBurst, "Burst of the eviction rate limit.")
	fs.DurationVar(&c.Thresholds.EvictAfterOOM, "evict-after-oom-threshold", updater.DefaultEvictAfterOOMThreshold, "Evict pods OOM-killed within this long after starting, if the OOM is that recent.")
	fs.Float64Var(&c.Thresholds.PodUpdate, "pod-update-threshold", updater.DefaultPodUpdateThreshold, "Least relative change (sum over cpu and memory) that updates a pod inside its recommended range.")
	fs.DurationVar(&c.Thresholds.Lifetime, "in-recommendation-bounds-eviction-lifetime-threshold", updater.DefaultLifetimeThreshold, "Pods inside their recommended range are updated only after running this long.")
	fs.BoolVar(&c.UseAdmissionStatus, "use-admission-controller-status", true, "Evict only while the admission webhook renews its status Lease.")
	fs.DurationVar(&c.AdmissionStatusTimeout, "admission-controller-status-lease-timeout", updater.DefaultAdmissionStatusTimeout, "How old the admission webhook's status Lease may be.")
	fs.StringVar(&c.StatusLease, "admission-controller-status-lease-name", updater.AdmissionStatusLeaseName, "Name of the admission webhook's status Lease.")
	fs.StringVar(&o.statusNS, "admission-controller-status-lease-namespace", "", "Namespace of the admission webhook's status Lease (default --namespace).")
	fs.BoolVar(&c.InPlaceSkipDisruptionBudget, "in-place-skip-disruption-budget", false, "In-place resizes that restart no container bypass the eviction budget.")
	o.client.add(fs, ":8943")
	o.leader.AddFlags(fs, false, "vpa-updater")
}

// complete validates the flags and fills the derived settings.
func (o *vpaUpdaterOptions) complete() error {
	if err := o.client.validate(); err != nil {
		return err
	}
	o.cfg.StatusNamespace = o.client.namespace
	if o.statusNS != "" {
		o.cfg.StatusNamespace = o.statusNS
	}
	o.cfg.VPAObjectNamespace = o.client.only
	o.cfg.IgnoredNamespaces = o.client.ignoredNamespaces()
	o.cfg.Features = o.cmn.vpaGates()
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

// run runs the updater through the host: the metrics and health
// endpoints on every replica, the loop while leading.
func (o *vpaUpdaterOptions) run(ctx context.Context) error {
	cfg, err := o.client.restConfig("kscale-vpa-updater")
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating Kubernetes client: %w", err)
	}
	reg := newProcessRegistry()
	comp, err := updater.NewComponent(updater.ComponentConfig{Config: o.cfg, RESTConfig: cfg, Client: kube, Registerer: reg})
	if err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Starting the VPA updater", "interval", o.cfg.Interval, "leaderElection", o.leader.Enabled)
	return operator.Run(ctx, operator.Config{Addresses: []operator.Address{{Flag: "address", Address: o.client.address}}, Gatherer: reg,
		Profiling: o.cmn.profiling, Election: o.leader, Client: kube}, comp)
}
