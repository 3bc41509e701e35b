package updater

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/target"
)

// ComponentConfig is the updater as one component.
type ComponentConfig struct {
	// Config is the updater's configuration, validated.
	Config Config
	// RESTConfig is the cluster's client configuration.
	RESTConfig *rest.Config
	// Client writes the updater's events (built from RESTConfig).
	Client kubernetes.Interface
	// Registerer takes the updater's metrics.
	Registerer prometheus.Registerer
	// Clock is the wall clock; default the real one.
	Clock clock.WithTicker
}

// NewComponent is the updater's assembly function: each leader term
// builds the controller cache, the clients, the event recorder and the
// updater fresh and runs its loop; the health check asks the current
// term's updater (healthy on a standby).
func NewComponent(cfg ComponentConfig) (operator.Component, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.RESTConfig == nil || cfg.Client == nil {
		return operator.Component{}, errors.New("updater: a client and its configuration are required")
	}
	c := &component{cfg: cfg}
	health := func() error {
		if u := c.current.Load(); u != nil {
			return u.Healthy()
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
// updater.
type component struct {
	cfg     ComponentConfig
	current atomic.Pointer[Updater]
}

// lead builds one leader term: targets and pod owners are resolved from
// the informers' cache (started lazily by the first read), other kinds and
// scale subresources are read directly; the admission Lease is read fresh
// every loop, not from a cache.
func (c *component) lead(ctx context.Context) (*operator.Term, error) {
	scheme, err := target.NewScheme()
	if err != nil {
		return nil, err
	}
	informers, err := cache.New(c.cfg.RESTConfig, cache.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating the controller cache: %w", err)
	}
	cached, err := client.New(c.cfg.RESTConfig, client.Options{Scheme: scheme,
		Cache: &client.CacheOptions{Reader: informers, DisableFor: []client.Object{&coordinationv1.Lease{}}}})
	if err != nil {
		return nil, fmt.Errorf("creating the API client: %w", err)
	}
	direct, err := client.New(c.cfg.RESTConfig, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating the API client: %w", err)
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: c.cfg.Client.EventsV1()})
	u, err := New(c.cfg.Config, Deps{
		Client: cached, Resolver: target.NewResolver(NewTargetReader(informers, direct, scheme)),
		Recorder: broadcaster.NewRecorder(scheme, "vpa-updater"), Registerer: c.cfg.Registerer, Clock: c.cfg.Clock,
	})
	if err != nil {
		return nil, err
	}
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		return nil, fmt.Errorf("starting the event recorder: %w", err)
	}
	c.current.Store(u)
	loop := func(ctx context.Context) error {
		// Reads through a cache that has not started fail: wait for it.
		if !informers.WaitForCacheSync(ctx) {
			return nil // the term ended first
		}
		return u.Start(ctx)
	}
	return &operator.Term{
		Tasks:   []operator.Task{informers.Start, loop},
		Cleanup: []func(){broadcaster.Shutdown},
	}, nil
}
