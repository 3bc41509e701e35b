package operator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/opsserver"
)

// Task is work that runs until its context ends; an error ends the run.
type Task func(ctx context.Context) error

// Component is what a component's assembly function returns.
type Component struct {
	// Replica runs on every replica for the whole run (webhook servers,
	// certificate managers, informers every replica needs).
	Replica []Task
	// Prepare runs on every replica after the Replica tasks started and
	// before leader election: it waits for what the component needs
	// first (caches filled by Replica tasks, certificates synced once) and
	// may return more tasks for every replica. An error ends the run.
	Prepare func(ctx context.Context) ([]Task, error)
	// Lead builds the work of one leader term; it is called at the start
	// of every term (once, at start, without leader election) and must
	// build everything fresh from the cluster. On an error it releases
	// what it built itself. The run ends when the term's tasks end. Nil:
	// the component has no leading work, and no leader election.
	Lead func(ctx context.Context) (*Term, error)
	// Health answers the health paths of the operational endpoints; nil
	// always answers healthy.
	Health opsserver.Checker
}

// Term is the work of one leader term.
type Term struct {
	// Tasks run until the term ends; the first error ends it.
	Tasks []Task
	// Cleanup runs after every task returned, in reverse order (informer
	// factories shut down, event broadcasters, files closed).
	Cleanup []func()
}

// Address is one address the operational endpoints listen on.
type Address struct {
	// Flag names the flag that sets the address, without dashes.
	Flag string
	// Address is host:port; empty leaves this listener out.
	Address string
}

// Config configures Run.
type Config struct {
	// Name names the logger of the run; empty keeps the context's logger
	// as it is.
	Name string
	// Addresses are where the operational endpoints listen.
	Addresses []Address
	// Gatherer is served on /metrics; required when Addresses has one.
	Gatherer prometheus.Gatherer
	// Profiling serves /debug/pprof on the addresses (--profiling).
	Profiling bool
	// Election configures leader election around Lead.
	Election leaderelection.Config
	// Client writes the Lease; required when Election is enabled.
	Client kubernetes.Interface
	// NoSignals leaves SIGTERM and SIGINT to the caller (tests that run
	// several components in one process).
	NoSignals bool
}

// Validate reports the first missing piece.
func (c *Config) Validate(comp Component) error {
	for _, a := range c.Addresses {
		if a.Flag == "" {
			return errors.New("operator: every address needs its flag's name")
		}
		if a.Address != "" && c.Gatherer == nil {
			return errors.New("operator: a Gatherer is required to serve /metrics")
		}
	}
	if comp.Lead != nil && c.Election.Enabled && c.Client == nil {
		return errors.New("operator: leader election needs a client")
	}
	if comp.Lead == nil && comp.Prepare == nil && len(comp.Replica) == 0 {
		return errors.New("operator: the component has nothing to run")
	}
	return nil
}

// Run runs comp until ctx ends, a signal arrives, a task fails, or the
// leading work ends. Listening on an address fails first, naming its flag.
func Run(ctx context.Context, cfg Config, comp Component) error {
	if err := cfg.Validate(comp); err != nil {
		return err
	}
	if !cfg.NoSignals {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if cfg.Name != "" {
		ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithName(cfg.Name))
	}
	listeners, err := listen(cfg.Addresses)
	if err != nil {
		return err
	}
	ops := opsserver.Config{Gatherer: cfg.Gatherer, Health: comp.Health, Profiling: cfg.Profiling}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	for _, ln := range listeners {
		g.Go(func() error { return opsserver.Serve(gctx, ln, ops) })
	}
	for _, task := range comp.Replica {
		g.Go(func() error { return task(gctx) })
	}
	if comp.Prepare != nil || comp.Lead != nil {
		g.Go(func() error { return prepareAndLead(gctx, cancel, cfg, comp, g) })
	}
	return g.Wait()
}

// prepareAndLead runs Prepare, starts the tasks it returns, then runs the
// leader election around Lead.
func prepareAndLead(ctx context.Context, cancel context.CancelFunc, cfg Config, comp Component, g *errgroup.Group) error {
	if comp.Prepare != nil {
		more, err := comp.Prepare(ctx)
		if err != nil {
			return err
		}
		for _, task := range more {
			g.Go(func() error { return task(ctx) })
		}
	}
	if comp.Lead == nil {
		return nil
	}
	// The leading work is the component's purpose: when it ends, the
	// replica ends, and a standby (or a restart) takes over.
	defer cancel()
	var termErr error
	err := leaderelection.Run(ctx, cfg.Client, cfg.Election, func(ctx context.Context) { termErr = term(ctx, comp.Lead) })
	return errors.Join(err, termErr)
}

// listen opens every non-empty address; on an error it closes those
// opened and names the flag.
func listen(addrs []Address) ([]net.Listener, error) {
	var out []net.Listener
	for _, a := range addrs {
		if a.Address == "" {
			continue
		}
		ln, err := net.Listen("tcp", a.Address)
		if err != nil {
			for _, l := range out {
				_ = l.Close()
			}
			return nil, fmt.Errorf("--%s: %w", a.Flag, err)
		}
		out = append(out, ln)
	}
	return out, nil
}

// term builds one leader term's work and runs it until ctx ends or a task
// fails.
func term(ctx context.Context, lead func(context.Context) (*Term, error)) error {
	// The term's context ends with its first failing task, so what Lead
	// started on it (informers) stops before the cleanups wait for it.
	g, gctx := errgroup.WithContext(ctx)
	t, err := lead(gctx)
	if err != nil {
		return err
	}
	defer func() {
		for i := len(t.Cleanup) - 1; i >= 0; i-- {
			t.Cleanup[i]()
		}
	}()
	for _, task := range t.Tasks {
		g.Go(func() error { return task(gctx) })
	}
	err = g.Wait()
	// g.Wait cancels gctx; the deferred cleanups run after it.
	return err
}
