package custommetrics

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	cmprovider "sigs.k8s.io/custom-metrics-apiserver/pkg/provider"

	"github.com/kscale/kscale/internal/cachesync"
	"github.com/kscale/kscale/internal/custommetrics/cost"
	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/ha"
	"github.com/kscale/kscale/internal/custommetrics/metrics"
	"github.com/kscale/kscale/internal/custommetrics/provider"
	"github.com/kscale/kscale/internal/custommetrics/rate"
	"github.com/kscale/kscale/internal/custommetrics/scrape"
	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/selfcert"
)

// APIServer serves a custom metrics provider until ctx ends.
type APIServer interface {
	Serve(ctx context.Context, p cmprovider.CustomMetricsProvider) error
}

// Config is everything Run needs. Client fields of the sub-configs are
// filled by Run from Client.
type Config struct {
	// Client talks to the cluster hosting the kube-apiserver pods.
	Client kubernetes.Interface
	// Server serves the custom metrics API.
	Server APIServer
	// Registerer receives the provider's own metrics.
	Registerer prometheus.Registerer
	// Discovery selects the pods to scrape.
	Discovery discovery.Config
	// Credentials selects the CA and token secrets.
	Credentials credentials.Config
	// Scrape configures a single scrape.
	Scrape scrape.ClientConfig
	// Schedule configures the scrape schedule.
	Schedule scrape.SchedulerConfig
	// Rate configures the sample rules.
	Rate rate.Config
	// MetricNames are the served names of the request rate.
	MetricNames []string
	// Costs, when set, turns on the cost-weighted request rate: each
	// series of the counter counts times the cost of its request category.
	Costs *cost.Table
	// WeightedMetricNames are the served names of the weighted rate;
	// default provider.DefaultWeightedMetricNames. Requires Costs.
	WeightedMetricNames []string
	// LeaderElection turns on active/passive HA; HA configures it.
	LeaderElection bool
	// HA configures leader election and the Service's Endpoints.
	HA ha.Config
	// Clock tells the time for the stale-targets gauge; default the real clock.
	Clock clock.PassiveClock
	// Health, when set, learns whether scraping makes progress.
	Health *Health
	// CacheSyncTimeout bounds the wait for the pod and secret caches at
	// start-up; default DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration
	// SelfSigned, when set, gives the server certificates that manage
	// themselves instead of --tls-cert-file: Run fills its Secrets client
	// (from Client) and adds a publisher to the custom metrics APIServices
	// that point at HA.ServiceName in HA.Namespace. Every replica keeps them,
	// leader or not. The Server must then implement ServingCertSetter.
	SelfSigned *selfcert.Config
}

// ServingCertSetter is an APIServer whose serving certificate can change
// while it runs.
type ServingCertSetter interface {
	SetServingCert(src provider.CertSource) error
}

// DefaultCacheSyncTimeout is Config.CacheSyncTimeout's default.
const DefaultCacheSyncTimeout = 2 * time.Minute

// NewComponent is the provider's assembly function. Discovery and
// credential informers run on every replica, so a new leader starts with
// warm caches; before the election every replica syncs its self-signed
// certificates once and waits for those caches (--cache-sync-timeout);
// scraping and serving, beside the Endpoints that point the Service at
// the leader, run only while leading (always, without leader election).
// It returns the host's leader election for cfg.
func NewComponent(cfg Config) (operator.Component, leaderelection.Config, error) {
	if cfg.Client == nil || cfg.Server == nil || cfg.Registerer == nil {
		return operator.Component{}, leaderelection.Config{}, errors.New("client, server and registerer: required")
	}
	c, err := build(cfg)
	if err != nil {
		return operator.Component{}, leaderelection.Config{}, err
	}
	comp := operator.Component{
		Replica: []operator.Task{
			func(ctx context.Context) error { c.discovery.Run(ctx); return nil },
			func(ctx context.Context) error { c.creds.Run(ctx); return nil },
		},
		Prepare: c.prepare,
		Lead: func(context.Context) (*operator.Term, error) {
			return &operator.Term{Tasks: []operator.Task{c.lead}}, nil
		},
	}
	if cfg.Health != nil {
		comp.Health = cfg.Health
	}
	if !cfg.LeaderElection {
		return comp, leaderelection.Config{}, nil
	}
	cfg.HA.Client = cfg.Client
	endpoints, err := ha.New(cfg.HA)
	if err != nil {
		return operator.Component{}, leaderelection.Config{}, err
	}
	comp.Lead = func(ctx context.Context) (*operator.Term, error) { return endpoints.LeadTerm(ctx, c.lead), nil }
	return comp, endpoints.Config().Election(), nil
}

// Run runs the provider through the host until ctx ends, leaving signals
// to the caller and serving no operational endpoints (tests).
func Run(ctx context.Context, cfg Config) error {
	comp, election, err := NewComponent(cfg)
	if err != nil {
		return err
	}
	return operator.Run(ctx, operator.Config{Election: election, Client: cfg.Client, NoSignals: true}, comp)
}

// prepare syncs the self-signed certificates once (their renewal then
// runs on every replica) and waits for the pod and secret caches.
func (c *components) prepare(ctx context.Context) ([]operator.Task, error) {
	var tasks []operator.Task
	if c.cfg.SelfSigned != nil {
		certs, err := startSelfSigned(ctx, c.cfg)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, func(ctx context.Context) error { _ = certs.Run(ctx); return nil })
	}
	timeout := c.cfg.CacheSyncTimeout
	if timeout <= 0 {
		timeout = DefaultCacheSyncTimeout
	}
	if err := cachesync.Wait(ctx, "kube-apiserver pods", timeout, "--cache-sync-timeout", c.discovery.HasSynced); err != nil {
		return nil, err
	}
	if err := cachesync.Wait(ctx, "CA and token secrets", timeout, "--cache-sync-timeout", c.creds.HasSynced); err != nil {
		return nil, err
	}
	return tasks, nil
}

// startSelfSigned syncs the certificates once, so that the server starts
// with them, and hands them to the server.
func startSelfSigned(ctx context.Context, cfg Config) (*selfcert.Manager, error) {
	setter, ok := cfg.Server.(ServingCertSetter)
	if !ok {
		return nil, errors.New("self-signed certificates: the server cannot change its certificate")
	}
	sc := *cfg.SelfSigned
	sc.Secrets = cfg.Client.CoreV1().Secrets(sc.Namespace)
	sc.Publishers = append(sc.Publishers, &apiServices{client: cfg.Client.Discovery().RESTClient(), namespace: cfg.HA.Namespace, service: cfg.HA.ServiceName})
	certs, err := selfcert.New(sc)
	if err != nil {
		return nil, err
	}
	if err := certs.Start(ctx); err != nil {
		return nil, err
	}
	if err := setter.SetServingCert(certs); err != nil {
		return nil, err
	}
	return certs, nil
}

// components are the wired parts.
type components struct {
	cfg       Config
	discovery *discovery.Discovery
	creds     *credentials.Store
	scheduler *scrape.Scheduler
	provider  *provider.Provider
	sink      *sink
}

func build(cfg Config) (*components, error) {
	c := &components{cfg: cfg}
	var err error
	cfg.Discovery.Client, cfg.Credentials.Client = cfg.Client, cfg.Client
	if c.discovery, err = discovery.New(cfg.Discovery); err != nil {
		return nil, err
	}
	if c.creds, err = credentials.New(cfg.Credentials); err != nil {
		return nil, err
	}
	cfg.Scrape.Credentials = c.creds
	weighted, err := weightedNames(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Costs != nil {
		cfg.Scrape.Costs = cfg.Costs
	}
	client, err := scrape.NewClient(cfg.Scrape)
	if err != nil {
		return nil, err
	}
	cfg.Rate.Default()
	store, err := rate.NewStore(cfg.Rate)
	if err != nil {
		return nil, err
	}
	m, err := metrics.New(cfg.Registerer, metrics.Gauges{Targets: c.discovery.Len, Stale: staleCounter(c.discovery, store, cfg.Clock)})
	if err != nil {
		return nil, err
	}
	cfg.Health.configure(cfg.Schedule.Period, c.discovery.Len)
	c.sink = &sink{store: store, metrics: m, health: cfg.Health, pods: c.discovery, forgetTransport: client.Forget, faults: map[types.NamespacedName]int{}}
	cfg.Schedule.Targets, cfg.Schedule.Scraper, cfg.Schedule.Sink = c.discovery, client, c.sink
	if cfg.Schedule.WarmupGap == 0 {
		cfg.Schedule.WarmupGap = cfg.Rate.MinGap + time.Second
	}
	if c.scheduler, err = scrape.NewScheduler(cfg.Schedule); err != nil {
		return nil, err
	}
	c.provider, err = provider.New(provider.Config{Pods: c.discovery, Rates: store, MetricNames: cfg.MetricNames, WeightedMetricNames: weighted})
	return c, err
}

// weightedNames returns the served names of the weighted rate: none without
// costs, the defaults when costs come without names.
func weightedNames(cfg Config) ([]string, error) {
	if cfg.Costs == nil {
		if len(cfg.WeightedMetricNames) > 0 {
			return nil, errors.New("weighted metric names: need a cost table")
		}
		return nil, nil
	}
	if err := cfg.Costs.Validate(); err != nil {
		return nil, fmt.Errorf("validating cost table: %w", err)
	}
	if len(cfg.WeightedMetricNames) == 0 {
		return slices.Clone(provider.DefaultWeightedMetricNames), nil
	}
	return cfg.WeightedMetricNames, nil
}

// lead scrapes and serves until ctx ends or the server fails.
func (c *components) lead(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.sink.log = klog.FromContext(ctx).WithName("scrape")
	c.cfg.Health.lead(true)
	defer c.cfg.Health.lead(false)
	scraped := make(chan struct{})
	go func() { c.scheduler.Run(ctx); close(scraped) }()
	err := c.cfg.Server.Serve(ctx, c.provider)
	stopped := ctx.Err() != nil
	cancel()
	<-scraped
	if err != nil && !stopped {
		return fmt.Errorf("serving custom metrics: %w", err)
	}
	if !stopped {
		return errors.New("custom metrics server stopped unexpectedly")
	}
	return nil
}

func staleCounter(d *discovery.Discovery, store *rate.Store, clk clock.PassiveClock) func() int {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return func() int {
		now := clk.Now()
		n := 0
		for _, t := range d.Targets() {
			if !store.Fresh(t.Key, now) {
				n++
			}
		}
		return n
	}
}
