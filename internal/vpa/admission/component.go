package admission

import (
	"context"
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/selfcert"
	"github.com/kscale/kscale/internal/vpa/target"
)

// ComponentConfig is the webhook as one component.
type ComponentConfig struct {
	// Config is the webhook's configuration, validated.
	Config Config
	// RESTConfig is the cluster's client configuration.
	RESTConfig *rest.Config
	// Registerer takes the webhook's metrics.
	Registerer prometheus.Registerer
	// Identity names this replica in the status Lease.
	Identity string
	// SelfSigned, when set, makes the certificates manage themselves in
	// its Secret; its Secrets and Publishers are filled here.
	SelfSigned *selfcert.Config
	// Clock is the wall clock; default the real one.
	Clock clock.WithTicker
}

// NewComponent is the webhook's assembly function: every replica serves,
// there is no leading work.
func NewComponent(cfg ComponentConfig) (operator.Component, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.RESTConfig == nil {
		return operator.Component{}, errors.New("admission: a client configuration is required")
	}
	c := &component{cfg: cfg}
	return operator.Component{Replica: []operator.Task{c.serve}}, nil
}

// component holds the configuration the webhook is built from.
type component struct{ cfg ComponentConfig }

// serve builds the webhook and serves it until ctx ends: VPAs and
// LimitRanges are read through a cache; the status Lease and the webhook
// configuration fresh (not through a cluster-wide cache and the RBAC for
// watching them); pod owners directly, since a ReplicaSet creates its
// first pods right after it is created, and a cache that has not seen it
// yet would leave those pods unmatched.
func (c *component) serve(ctx context.Context) error {
	scheme, err := target.NewScheme()
	if err != nil {
		return err
	}
	informers, err := cache.New(c.cfg.RESTConfig, cache.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("creating the controller cache: %w", err)
	}
	cached, err := client.New(c.cfg.RESTConfig, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: informers,
		DisableFor: []client.Object{&coordinationv1.Lease{}, &admissionregistrationv1.MutatingWebhookConfiguration{}}}})
	if err != nil {
		return fmt.Errorf("creating the API client: %w", err)
	}
	direct, err := client.New(c.cfg.RESTConfig, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("creating the API client: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	// failed stops what started before a setup error.
	failed := func(err error) error {
		cancel()
		_ = g.Wait()
		return err
	}
	g.Go(func() error { return informers.Start(gctx) })
	if !informers.WaitForCacheSync(gctx) {
		return g.Wait() // the context ended, or the cache failed
	}
	var certs Certificates
	if c.cfg.SelfSigned != nil {
		m, err := c.selfSigned(gctx, direct)
		if err != nil {
			return failed(err)
		}
		g.Go(func() error { return m.Run(gctx) })
		certs = selfSignedBundle{m}
	}
	srv, err := New(c.cfg.Config, Deps{Client: cached, Resolver: target.NewResolver(direct),
		Registerer: c.cfg.Registerer, Clock: c.cfg.Clock, Identity: c.cfg.Identity, Certificates: certs})
	if err != nil {
		return failed(err)
	}
	g.Go(func() error { return srv.Run(gctx) })
	return g.Wait()
}

// selfSigned syncs the self-managed certificates once, so the first
// registration carries the CA bundle; every later sync publishes the
// bundle to the webhook configuration.
func (c *component) selfSigned(ctx context.Context, direct client.Client) (*selfcert.Manager, error) {
	cs, err := kubernetes.NewForConfig(c.cfg.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the API client: %w", err)
	}
	sc := *c.cfg.SelfSigned
	sc.Secrets = cs.CoreV1().Secrets(sc.Namespace)
	sc.Publishers = append(sc.Publishers, selfcert.PublisherFunc(func(ctx context.Context, ca []byte) error {
		return PublishCABundle(ctx, direct, c.cfg.Config, ca)
	}))
	m, err := selfcert.New(sc)
	if err != nil {
		return nil, err
	}
	if err := m.Start(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// selfSignedBundle adapts selfcert.Manager to Certificates.
type selfSignedBundle struct{ *selfcert.Manager }

// CABundle returns the bundle last published.
func (b selfSignedBundle) CABundle() ([]byte, error) { return b.Manager.CABundle(), nil }
