package recommender

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	vpaclientset "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	metricsclientset "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/cachesync"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/input"
	"github.com/kscale/kscale/internal/vpa/target"
)

// ComponentConfig is the recommender as one component: its validated
// configuration and the live settings the command line turned into
// values.
type ComponentConfig struct {
	// Config is the recommender's configuration.
	Config Config
	// History reads usage history from Prometheus at start (--storage=
	// prometheus); nil loads checkpoints.
	History *input.HistoryConfig
	// RESTConfig is the cluster's client configuration.
	RESTConfig *rest.Config
	// Client reaches the cluster (built from RESTConfig).
	Client kubernetes.Interface
	// Registerer takes the recommender's metrics.
	Registerer prometheus.Registerer
	// WatchEvictionEvents is --watch-eviction-events.
	WatchEvictionEvents bool
	// CacheSyncTimeout is --cache-sync-timeout.
	CacheSyncTimeout time.Duration
	// Clock is the wall clock; default the real one.
	Clock clock.WithTicker
}

// NewComponent is the recommender's assembly function: each leader term
// builds the clients, the caches and the recommender fresh, waits for the
// caches and runs the loop; the health check asks the current term's
// recommender (healthy on a standby).
func NewComponent(cfg ComponentConfig) (operator.Component, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	switch {
	case cfg.RESTConfig == nil || cfg.Client == nil:
		return operator.Component{}, errors.New("recommender: a client and its configuration are required")
	case cfg.CacheSyncTimeout <= 0:
		return operator.Component{}, errors.New("recommender: the cache sync timeout must be positive")
	}
	c := &component{cfg: cfg}
	health := func() error {
		if r := c.current.Load(); r != nil {
			return r.Healthy(cfg.Clock.Now())
		}
		return nil
	}
	return operator.Component{Lead: c.lead, Health: checkerFunc(health)}, nil
}

// checkerFunc adapts a function to the host's health checker.
type checkerFunc func() error

// Check calls f.
func (f checkerFunc) Check() error { return f() }

// component holds the configuration a term is built from and the term's
// recommender.
type component struct {
	cfg     ComponentConfig
	current atomic.Pointer[Recommender]
}

// lead builds one leader term: the pod watcher and the controller cache,
// each waited for with the --cache-sync-timeout deadline, then the loop.
func (c *component) lead(ctx context.Context) (*operator.Term, error) {
	informers, err := cache.New(c.cfg.RESTConfig, cache.Options{})
	if err != nil {
		return nil, fmt.Errorf("creating the controller cache: %w", err)
	}
	deps, watcher, err := c.deps(informers)
	if err != nil {
		return nil, err
	}
	r, err := New(c.cfg.Config, deps)
	if err != nil {
		return nil, err
	}
	run := func(ctx context.Context) error {
		watcher.Start(ctx)
		if err := cachesync.Wait(ctx, "pods and events", c.cfg.CacheSyncTimeout, "--cache-sync-timeout", watcher.WaitForSync); err != nil {
			return err
		}
		go func() { _ = informers.Start(ctx) }()
		if err := cachesync.Wait(ctx, "VPA target controllers", c.cfg.CacheSyncTimeout, "--cache-sync-timeout", informers.WaitForCacheSync); err != nil {
			return err
		}
		c.current.Store(r)
		if err := r.Run(ctx); err != nil && ctx.Err() == nil {
			return fmt.Errorf("running the recommender: %w", err)
		}
		return nil
	}
	// The informers stop when the term's context ends; Shutdown waits.
	return &operator.Term{Tasks: []operator.Task{run}, Cleanup: []func(){watcher.Shutdown}}, nil
}

// deps builds the recommender's clients.
func (c *component) deps(informers cache.Cache) (Deps, *input.PodWatcher, error) {
	vpas, err := vpaclientset.NewForConfig(c.cfg.RESTConfig)
	if err != nil {
		return Deps{}, nil, fmt.Errorf("creating VPA client: %w", err)
	}
	mc, err := metricsclientset.NewForConfig(c.cfg.RESTConfig)
	if err != nil {
		return Deps{}, nil, fmt.Errorf("creating metrics client: %w", err)
	}
	cr, err := client.New(c.cfg.RESTConfig, client.Options{})
	if err != nil {
		return Deps{}, nil, fmt.Errorf("creating controller client: %w", err)
	}
	watcher, err := input.NewPodWatcher(c.cfg.Client, c.cfg.WatchEvictionEvents)
	if err != nil {
		return Deps{}, nil, err
	}
	deps := Deps{
		VPAs: vpas.AutoscalingV1(), Pods: watcher, OOMs: watcher,
		Usage:   input.NewMetricsSource(mc.MetricsV1beta1()),
		Targets: target.NewResolver(target.NewCachedReader(informers, cr)), Clock: c.cfg.Clock, Registerer: c.cfg.Registerer,
	}
	if c.cfg.History != nil {
		h, err := input.NewPrometheusHistory(*c.cfg.History, c.cfg.Clock, c.cfg.Registerer)
		if err != nil {
			return Deps{}, nil, err
		}
		deps.History = h
	}
	return deps, watcher, nil
}
