package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/opsserver"
	"github.com/kscale/kscale/internal/vpa/target"
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

// vpaScheme has the built-in types and autoscaling.k8s.io/v1.
func vpaScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("building scheme: %w", err)
	}
	if err := vpav1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("building scheme: %w", err)
	}
	return s, nil
}

// metricsRunnable serves the operational endpoints on every replica.
func metricsRunnable(addr string, cfg opsserver.Config) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		return opsserver.ListenAndServe(ctx, "address", addr, cfg)
	})
}

// notLeading wraps a runnable that every replica runs.
type notLeading struct{ manager.Runnable }

func (notLeading) NeedLeaderElection() bool { return false }

// vpaUpdaterOptions are the flags of `kscale vpa-updater`.
type vpaUpdaterOptions struct {
	cfg      updater.Config
	client   vpaClientFlags
	leader   bool
	leaseNS  string
	leaseID  string
	leaseD   time.Duration
	renew    time.Duration
	retry    time.Duration
	lock     string
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
	fs.BoolVar(&o.leader, "leader-elect", false, "Elect a leader on a Lease before running (set it when running more than one replica).")
	fs.StringVar(&o.leaseNS, "leader-elect-resource-namespace", "kube-system", "Namespace of the leader election Lease.")
	fs.StringVar(&o.lock, "leader-elect-resource-lock", "leases", "Kind of the leader election lock; only leases is supported.")
	fs.StringVar(&o.leaseID, "leader-elect-resource-name", "vpa-updater", "Name of the leader election Lease.")
	fs.DurationVar(&o.leaseD, "leader-elect-lease-duration", 15*time.Second, "Leader election lease duration.")
	fs.DurationVar(&o.renew, "leader-elect-renew-deadline", 10*time.Second, "Leader election renew deadline.")
	fs.DurationVar(&o.retry, "leader-elect-retry-period", 2*time.Second, "Leader election retry period.")
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
	if o.leaseNS == "" {
		return errors.New("--leader-elect-resource-namespace: must not be empty")
	}
	if o.lock != "leases" {
		return fmt.Errorf("--leader-elect-resource-lock: only leases is supported, got %q", o.lock)
	}
	if o.leaseD <= o.renew || o.renew <= o.retry || o.retry <= 0 {
		return fmt.Errorf("--leader-elect-lease-duration (%s) > --leader-elect-renew-deadline (%s) > --leader-elect-retry-period (%s) > 0 must hold", o.leaseD, o.renew, o.retry)
	}
	return o.cfg.Validate()
}

// run wires the updater into a manager (cache, leader election, events)
// and runs it until ctx ends or a signal arrives.
func (o *vpaUpdaterOptions) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	mgr, reg, err := o.manager()
	if err != nil {
		return err
	}
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return fmt.Errorf("creating the API client: %w", err)
	}
	// Targets and pod owners are resolved from the informers' cache; other
	// kinds and scale subresources are read directly.
	targets := updater.NewTargetReader(mgr.GetCache(), direct, mgr.GetScheme())
	u, err := updater.New(o.cfg, updater.Deps{
		Client: mgr.GetClient(), Resolver: target.NewResolver(targets),
		Recorder: mgr.GetEventRecorder("vpa-updater"), Registerer: reg, Clock: clock.RealClock{},
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(u); err != nil {
		return fmt.Errorf("adding the updater: %w", err)
	}
	if err := mgr.Add(notLeading{metricsRunnable(o.client.address, opsserver.Config{Gatherer: reg, Health: opsserver.CheckerFunc(u.Healthy), Profiling: o.cmn.profiling})}); err != nil {
		return fmt.Errorf("adding the metrics server: %w", err)
	}
	klog.FromContext(ctx).Info("Starting the VPA updater", "interval", o.cfg.Interval, "leaderElection", o.leader)
	return mgr.Start(ctx)
}

func (o *vpaUpdaterOptions) manager() (manager.Manager, *prometheus.Registry, error) {
	cfg, err := o.client.restConfig("kscale-vpa-updater")
	if err != nil {
		return nil, nil, err
	}
	scheme, err := vpaScheme()
	if err != nil {
		return nil, nil, err
	}
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:         scheme,
		Metrics:        metricsserver.Options{BindAddress: "0"},
		LeaderElection: o.leader, LeaderElectionID: o.leaseID, LeaderElectionNamespace: o.leaseNS,
		LeaderElectionResourceLock: "leases", LeaseDuration: &o.leaseD, RenewDeadline: &o.renew, RetryPeriod: &o.retry,
		LeaderElectionReleaseOnCancel: true,
		// The admission Lease is read fresh every loop, not from a cache.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&coordinationv1.Lease{}}}},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("creating the controller manager: %w", err)
	}
	reg := newProcessRegistry()
	return mgr, reg, nil
}
