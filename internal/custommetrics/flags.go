package custommetrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kscale/kscale/internal/componentflags"
	"github.com/kscale/kscale/internal/custommetrics/cost"
	"github.com/kscale/kscale/internal/custommetrics/ha"
	"github.com/kscale/kscale/internal/custommetrics/provider"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/selfcert"
)

// Flags are the command-line flags of the custom metrics provider (its own,
// gardener-custom-metrics' and the API server library's) and their
// conversion into a Config.
type Flags struct {
	cfg              Config
	server           *provider.Server
	client           componentflags.Client
	metricsAddress   string
	healthAddress    string
	podSelector      string
	namespacePattern string
	caSelector       string
	caKeys           []string
	metricNames      []string
	weightedNames    []string
	costFile         string
	useFilter        bool
	flags            *pflag.FlagSet
	maxBodyBytes     int64
	compat           gcmxFlags
	selfSigned       selfcert.Flags
}

// AddFlags registers the provider's flags; the API server's own flags
// (--secure-port, --tls-cert-file, --authentication-kubeconfig, ...) come
// from the custom-metrics-apiserver library.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
	o.addOwnFlags(fs)
	o.server = provider.NewServer(fs, "kscale-custom-metrics")
}

// addOwnFlags registers the provider's own flags.
func (o *Flags) addOwnFlags(fs *pflag.FlagSet) {
	c := &o.cfg
	o.flags = fs
	o.client.AddFlags(fs, componentflags.ClientSpec{QPSFlag: "qps", QPS: 20, BurstFlag: "burst", Burst: 40,
		KubeconfigUsage: "Path to a kubeconfig of the cluster running the kube-apiserver pods; empty uses the in-cluster configuration."})
	fs.DurationVar(&c.CacheSyncTimeout, "cache-sync-timeout", DefaultCacheSyncTimeout, "How long to wait at start-up for the kube-apiserver pod and secret caches; then exit with an error.")
	fs.StringVar(&o.metricsAddress, "metrics-bind-address", ":8080", "Address serving the provider's own /metrics and its health (/health-check, /healthz, /readyz) over HTTP; empty disables it.")
	fs.StringVar(&o.healthAddress, "health-bind-address", ":8081", "Address serving the health paths (and /metrics) as gardener-custom-metrics' health server; empty disables it.")
	fs.StringVar(&o.podSelector, "pod-selector", "app=kubernetes,role=apiserver", "Label selector of the kube-apiserver pods to scrape.")
	fs.StringVar(&o.namespacePattern, "namespace-pattern", "^shoot-", "Regular expression the namespace of a scraped pod must match.")
	fs.StringVar(&c.Credentials.TokenSecretName, "token-secret-name", "shoot-access-gardener-custom-metrics", "Name of the secret holding the bearer token in each namespace.")
	fs.StringVar(&c.Credentials.TokenKey, "token-secret-key", "token", "Data key of the bearer token.")
	fs.StringVar(&o.caSelector, "ca-secret-selector", "name in (ca,ca-bundle)", "Label selector of the secrets holding the trusted CA certificates in each namespace.")
	fs.StringSliceVar(&o.caKeys, "ca-secret-keys", []string{"ca.crt", "bundle.crt"}, "Data keys holding PEM CA certificates in those secrets.")
	fs.IntVar(&c.Scrape.Port, "scrape-port", 443, "kube-apiserver port on the pod IP.")
	fs.BoolVar(&o.useFilter, "use-metrics-filter", true, "Scrape a pod through its metrics-filter sidecar (the container port named metrics-filter) with ?name=apiserver_request_total; the kube-apiserver directly when it has none, refuses the connection or answers 404, 405 or 501.")
	fs.Int64Var(&o.maxBodyBytes, "scrape-max-body-bytes", 20<<20, "Largest decompressed /metrics body; a larger one fails the scrape.")
	fs.DurationVar(&c.Schedule.Period, "scrape-period", time.Minute, "How often each pod is scraped.")
	fs.DurationVar(&c.Schedule.Timeout, "scrape-timeout", 0, "Timeout of one scrape; 0 means half the scrape period.")
	fs.IntVar(&c.Schedule.MaxInFlight, "max-concurrent-scrapes", 50, "Most scrapes running at once.")
	fs.DurationVar(&c.Rate.MinGap, "min-sample-gap", 10*time.Second, "A sample closer than this to the previous accepted one is dropped.")
	fs.DurationVar(&c.Rate.MaxAge, "max-sample-age", 90*time.Second, "A pod whose newest sample is older than this has no value.")
	fs.DurationVar(&c.Rate.MaxPairGap, "max-sample-gap", 600*time.Second, "A pod whose two samples are further apart than this has no value.")
	fs.StringSliceVar(&o.metricNames, "metric-names", provider.DefaultMetricNames, "Metric names served for the per-pod request rate.")
	fs.StringVar(&o.costFile, "request-cost-file", "", "YAML or JSON file of request costs by verb, scope and resource (docs/custom-metrics.md); when set, the cost-weighted request rate is served too.")
	fs.StringSliceVar(&o.weightedNames, "weighted-metric-names", provider.DefaultWeightedMetricNames, "Metric names served for the per-pod cost-weighted request rate; needs --request-cost-file.")
	o.addHAFlags(fs)
	o.compat.add(fs)
	o.selfSigned.AddFlags(fs, "--tls-cert-file and --tls-private-key-file, for the Service --service-name")
}

// addHAFlags registers leader election and EndpointSlice flags.
func (o *Flags) addHAFlags(fs *pflag.FlagSet) {
	h := &o.cfg.HA
	fs.BoolVar(&o.cfg.LeaderElection, "leader-election", true, "Run active/passive: only the Lease holder scrapes, serves and is listed in the Service's EndpointSlice.")
	fs.StringVar(&h.Namespace, "namespace", os.Getenv("POD_NAMESPACE"), "Namespace of the Service and its EndpointSlice (env POD_NAMESPACE).")
	fs.StringVar(&h.LeaseNamespace, "leader-election-namespace", os.Getenv("LEADER_ELECTION_NAMESPACE"), "Namespace of the Lease; default --namespace (env LEADER_ELECTION_NAMESPACE).")
	fs.StringVar(&h.LeaseName, "leader-election-id", "gardener-custom-metrics-leader-election", "Name of the Lease.")
	fs.DurationVar(&h.LeaseDuration, "leader-election-lease-duration", 15*time.Second, "Leader election lease duration.")
	fs.DurationVar(&h.RenewDeadline, "leader-election-renew-deadline", 10*time.Second, "Leader election renew deadline.")
	fs.DurationVar(&h.RetryPeriod, "leader-election-retry-period", 2*time.Second, "Leader election retry period.")
	fs.StringVar(&h.ServiceName, "service-name", "gardener-custom-metrics", "Selector-less Service the leader points at itself by writing its core/v1 Endpoints (upstream's name by default).")
	fs.StringVar(&h.Address, "access-ip", os.Getenv("POD_IP"), "This replica's IP as written into the Endpoints (env POD_IP).")
	fs.Int32Var(&h.Port, "access-port", provider.DefaultSecurePort, "Port written into the Endpoints; the --secure-port the API is served on.")
	fs.StringVar(&h.PortName, "access-port-name", "", "Name of the Service port; empty for an unnamed port.")
}

// Config returns the provider's configuration, complete after Complete.
func (o *Flags) Config() Config { return o.cfg }

// Complete converts and validates the flags; its errors name the flag.
func (o *Flags) Complete() error {
	if err := o.client.Validate(); err != nil {
		return err
	}
	if err := o.server.Validate(); err != nil {
		return err
	}
	if err := componentflags.ValidateAddress("--metrics-bind-address", o.metricsAddress, true); err != nil {
		return err
	}
	if err := o.completeSources(); err != nil {
		return err
	}
	if err := o.completeCosts(); err != nil {
		return err
	}
	if err := o.completeSchedule(); err != nil {
		return err
	}
	if err := o.compat.complete(&o.cfg.HA); err != nil {
		return err
	}
	if err := o.completeHA(); err != nil {
		return err
	}
	return o.completeSelfSigned()
}

// completeSources converts what is scraped and served: the metric names,
// the pod and CA selectors and the namespace pattern.
func (o *Flags) completeSources() error {
	if len(o.metricNames) == 0 || slices.Contains(o.metricNames, "") {
		return fmt.Errorf("--metric-names: want one or more non-empty names, got %q", o.metricNames)
	}
	sel, err := labels.Parse(o.podSelector)
	if err != nil {
		return fmt.Errorf("--pod-selector: %w", err)
	}
	o.cfg.Discovery.Selector = sel
	if o.cfg.Discovery.NamespacePattern, err = regexp.Compile(o.namespacePattern); err != nil {
		return fmt.Errorf("--namespace-pattern: %w", err)
	}
	if o.cfg.Credentials.CASelector, err = labels.Parse(o.caSelector); err != nil {
		return fmt.Errorf("--ca-secret-selector: %w", err)
	}
	o.cfg.Credentials.CAKeys, o.cfg.MetricNames, o.cfg.Scrape.MaxBodyBytes = o.caKeys, o.metricNames, o.maxBodyBytes
	o.cfg.Scrape.NoFilter = !o.useFilter
	return nil
}

// completeSchedule checks the scrape schedule and the sample store's
// limits.
func (o *Flags) completeSchedule() error {
	if err := componentflags.Positive(
		componentflags.Duration{Flag: "--scrape-period", Value: o.cfg.Schedule.Period}, componentflags.Duration{Flag: "--min-sample-gap", Value: o.cfg.Rate.MinGap},
		componentflags.Duration{Flag: "--max-sample-age", Value: o.cfg.Rate.MaxAge}, componentflags.Duration{Flag: "--max-sample-gap", Value: o.cfg.Rate.MaxPairGap},
		componentflags.Duration{Flag: "--cache-sync-timeout", Value: o.cfg.CacheSyncTimeout},
	); err != nil {
		return err
	}
	switch {
	case o.cfg.Schedule.Timeout < 0 || o.cfg.Schedule.Timeout > o.cfg.Schedule.Period:
		return fmt.Errorf("--scrape-timeout: must be between 0 and --scrape-period (%s)", o.cfg.Schedule.Period)
	case o.cfg.Schedule.MaxInFlight < 1:
		return errors.New("--max-concurrent-scrapes: must be at least 1")
	case o.maxBodyBytes < 1:
		return errors.New("--scrape-max-body-bytes: must be positive")
	case o.cfg.Scrape.Port < 1 || o.cfg.Scrape.Port > 65535:
		return fmt.Errorf("--scrape-port: %d is not a TCP port", o.cfg.Scrape.Port)
	case o.cfg.Rate.MinGap+time.Second >= o.cfg.Schedule.Period:
		return errors.New("--min-sample-gap: must be at least 1s below --scrape-period")
	}
	return nil
}

// completeCosts loads --request-cost-file and checks the weighted names.
func (o *Flags) completeCosts() error {
	if len(o.weightedNames) == 0 || slices.Contains(o.weightedNames, "") {
		return fmt.Errorf("--weighted-metric-names: want one or more non-empty names, got %q", o.weightedNames)
	}
	for _, n := range o.weightedNames {
		if slices.Contains(o.metricNames, n) {
			return fmt.Errorf("--weighted-metric-names: %q is also in --metric-names", n)
		}
	}
	if o.costFile == "" {
		if o.flags.Changed("weighted-metric-names") {
			return errors.New("--weighted-metric-names: needs --request-cost-file")
		}
		return nil
	}
	table, err := cost.Load(o.costFile)
	if err != nil {
		return fmt.Errorf("--request-cost-file: %w", err)
	}
	o.cfg.Costs, o.cfg.WeightedMetricNames = table, o.weightedNames
	return nil
}

// completeSelfSigned checks the self-signed certificate flags: the Secret
// lives in --namespace, the certificate is for the Service --service-name.
func (o *Flags) completeSelfSigned() error {
	if !o.selfSigned.Enabled() {
		return nil
	}
	h := &o.cfg.HA
	if h.Namespace == "" {
		return errors.New("--namespace: required with --self-signed-cert-secret (or set POD_NAMESPACE)")
	}
	if o.server.HasCertFiles() {
		return errors.New("--self-signed-cert-secret: excludes --tls-cert-file and --tls-private-key-file")
	}
	sc := o.selfSigned.Config(nil, h.Namespace, "custom-metrics", selfcert.ServiceDNSNames(h.ServiceName, h.Namespace), nil)
	if err := sc.Validate(); err != nil {
		return err
	}
	o.cfg.SelfSigned = &sc
	return nil
}

// haFlags are the flags of the HA settings ha.Config.ValidateSettings
// checks, by field, and what an operator may need to hear with an error.
var haFlags = map[string]struct{ flag, hint string }{
	"namespace":     {"--namespace", " with --leader-election (or set POD_NAMESPACE)"},
	"address":       {"--access-ip", " (set it or POD_IP)"},
	"port":          {"--access-port", ""},
	"leaseDuration": {"--leader-election-lease-duration", " (--leader-election-renew-deadline)"},
	"renewDeadline": {"--leader-election-renew-deadline", " (--leader-election-retry-period)"},
}

// completeHA checks the HA settings as the elector will, naming the flag
// of the first invalid one.
func (o *Flags) completeHA() error {
	if !o.cfg.LeaderElection {
		return nil
	}
	err := o.cfg.HA.ValidateSettings()
	var fe *ha.FieldError
	if errors.As(err, &fe) {
		if f, ok := haFlags[fe.Field]; ok {
			return fmt.Errorf("%s: %s%s", f.flag, fe.Detail, f.hint)
		}
	}
	return err
}

// Host builds the provider from the completed flags and returns it with
// the host's settings (its two operational addresses and its Lease). reg
// takes its metrics.
func (o *Flags) Host(_ context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error) {
	restCfg, err := o.client.RESTConfig("kscale-custom-metrics")
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	// The leader re-reads the core/v1 Endpoints every 10s, and the API
	// server warns that they are deprecated on every request: say it once.
	restCfg.WarningHandler = rest.NewWarningWriter(os.Stderr, rest.WarningWriterOptions{Deduplicate: true})
	client, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return operator.Component{}, operator.Config{}, fmt.Errorf("building clientset: %w", err)
	}
	o.cfg.Health = NewHealth(nil)
	if o.client.Kubeconfig != "" {
		o.server.SetKubeconfig(o.client.Kubeconfig)
	}
	o.cfg.Client, o.cfg.Server, o.cfg.Registerer = client, o.server, reg
	comp, election, err := NewComponent(o.cfg)
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	return comp, operator.Config{Name: "custom-metrics", Election: election, Client: client,
		Addresses: []operator.Address{{Flag: "metrics-bind-address", Address: o.metricsAddress}, {Flag: "health-bind-address", Address: o.healthAddress}}}, nil
}
