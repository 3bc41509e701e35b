package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// AdminUser is the name of the environment's built-in cluster-admin user.
const AdminUser = "kscale-testenv-admin"

// User is an extra identity the API server accepts through its token file.
type User struct {
	// Name is the user name; it must be unique.
	Name string
	// Token is the bearer token that authenticates the user.
	Token string
	// Groups are the user's groups, for example system:masters.
	Groups []string
}

// Options selects the components of an environment and their extra flags.
// The zero value runs etcd and kube-apiserver only.
type Options struct {
	// Scheduler starts kube-scheduler.
	Scheduler bool
	// ControllerManager starts kube-controller-manager.
	ControllerManager bool
	// Kwok starts the real kwok controller (built by `make testbin` from
	// hack/kwok) with kscale's Stages (deploy/kwok): it plays the kubelet of
	// every node annotated kwok.x-k8s.io/node=fake and of their pods.
	Kwok bool
	// KwokFlags are extra kwok flags, merged like the others (for example a
	// shorter --node-lease-duration-seconds than the default 40).
	KwokFlags []string
	// Controllers is kube-controller-manager's --controllers list; default "*".
	Controllers []string
	// APIServerFlags are extra kube-apiserver flags as "--name=value"; a flag
	// the environment sets by default is replaced, others are appended.
	APIServerFlags []string
	// SchedulerFlags are extra kube-scheduler flags, merged the same way.
	SchedulerFlags []string
	// ControllerManagerFlags are extra kube-controller-manager flags, merged the same way.
	ControllerManagerFlags []string
	// ServingDNSNames and ServingIPs are added to kube-apiserver's serving certificate.
	ServingDNSNames []string
	// ServingIPs are extra IP SANs of kube-apiserver's serving certificate.
	ServingIPs []net.IP
	// Users are extra token-authenticated identities.
	Users []User
	// StartTimeout bounds how long each component may take to become ready; default 2m.
	StartTimeout time.Duration
}

// Default fills unset fields with their defaults.
func (o *Options) Default() {
	if len(o.Controllers) == 0 {
		o.Controllers = []string{"*"}
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 2 * time.Minute
	}
}

// Validate reports the first invalid field.
func (o *Options) Validate() error {
	seen := map[string]bool{AdminUser: true}
	for i, u := range o.Users {
		if u.Name == "" || u.Token == "" {
			return fmt.Errorf("users[%d]: name and token are required", i)
		}
		if seen[u.Name] {
			return fmt.Errorf("users[%d]: duplicate user name %q", i, u.Name)
		}
		seen[u.Name] = true
	}
	if o.StartTimeout < 0 {
		return errors.New("startTimeout: must not be negative")
	}
	return nil
}

// Env is a running control plane.
type Env struct {
	// Config authenticates as a cluster admin (group system:masters).
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface
	// Dir holds the environment's files: PKI, kubeconfig, etcd data and logs.
	Dir string
	// KubeconfigPath is a kubeconfig file for the admin user.
	KubeconfigPath string
	// CAData is the PEM of the CA that signed kube-apiserver's serving certificate.
	CAData []byte
	// APIServerURL is kube-apiserver's https URL on loopback.
	APIServerURL string

	opts      Options
	etcdURL   string
	binDir    string
	pki       *pki
	files     envFiles
	processes map[string]*process
	order     []string
}

// envFiles are the paths of the files the components share.
type envFiles struct {
	caCert, frontProxyCA       string
	apiServing, loopbackServer certFiles
	frontProxyClient           certFiles
	saKey, saPub, tokens       string
}

// startAttempts bounds how often Start tries a control plane: ports are
// picked free and then handed to the components, so another test binary
// starting its own control plane at the same moment can take one first.
const startAttempts = 3

// Start runs a control plane for the test and stops it in t.Cleanup. It
// fails the test (never skips) when a binary is missing or a component does
// not become ready in startAttempts tries.
func Start(tb testing.TB, opts Options) *Env {
	tb.Helper()
	var env *Env
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		if env, err = New(tb.Context(), opts); err == nil || tb.Context().Err() != nil {
			break
		}
		tb.Logf("starting test control plane, attempt %d of %d: %v", attempt, startAttempts, err)
	}
	if err != nil {
		tb.Fatalf("starting test control plane: %v", err)
	}
	tb.Cleanup(env.Stop)
	return env
}

// New runs a control plane. The caller must call Stop, also on failure paths.
// On error, everything started so far is already stopped.
func New(ctx context.Context, opts Options) (env *Env, err error) {
	opts.Default()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("validating options: %w", err)
	}
	if opts.Kwok {
		if _, err := kwokBinary(); err != nil {
			return nil, err
		}
	}
	binDir := BinDir()
	for _, name := range []string{binEtcd, binAPIServer, binScheduler, binControllerManager} {
		if _, err := binary(binDir, name); err != nil {
			return nil, err
		}
	}
	sweepStaleDirs()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("creating environment directory: %w", err)
	}
	e := &Env{Dir: dir, opts: opts, binDir: binDir, processes: map[string]*process{}}
	env = e
	defer func() {
		// A failed start stops what did start; the named result env is
		// already nil then, so stop through e.
		if err != nil {
			e.Stop()
			env = nil
		}
	}()
	if err := env.writeFiles(); err != nil {
		return nil, err
	}
	if err := env.startEtcd(ctx); err != nil {
		return nil, err
	}
	if err := env.startAPIServer(ctx); err != nil {
		return nil, err
	}
	if opts.Scheduler {
		if err := env.startScheduler(ctx); err != nil {
			return nil, err
		}
	}
	if opts.ControllerManager {
		if err := env.startControllerManager(ctx); err != nil {
			return nil, err
		}
	}
	if opts.Kwok {
		if err := env.startKwok(ctx); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// Stop terminates every component in reverse start order and removes Dir.
// It is safe to call more than once.
func (e *Env) Stop() {
	for i := len(e.order) - 1; i >= 0; i-- {
		e.processes[e.order[i]].stop(15 * time.Second)
	}
	if e.Dir != "" {
		_ = os.RemoveAll(e.Dir)
	}
}

// UserConfig returns a rest.Config that authenticates as one of Options.Users.
func (e *Env) UserConfig(u User) *rest.Config {
	cfg := rest.CopyConfig(e.Config)
	cfg.BearerToken = u.Token
	return cfg
}

// Logs returns the tail of a component's log ("etcd", "kube-apiserver",
// "kube-scheduler", "kube-controller-manager", "kwok"), for failure messages.
func (e *Env) Logs(component string) string {
	p, ok := e.processes[component]
	if !ok {
		return ""
	}
	return p.logTail()
}

func (e *Env) path(name string) string { return filepath.Join(e.Dir, name) }

// launch starts a control-plane component and waits until check passes.
func (e *Env) launch(ctx context.Context, name string, args []string, check func(context.Context) error) error {
	bin, err := binary(e.binDir, name)
	if err != nil {
		return err
	}
	return e.launchAt(ctx, name, bin, args, check)
}

// launchAt starts the binary at bin as component name and waits until check passes.
func (e *Env) launchAt(ctx context.Context, name, bin string, args []string, check func(context.Context) error) error {
	p, ok := e.processes[name]
	if !ok {
		p = &process{name: name, path: bin, logPath: e.path(name + ".log")}
		e.processes[name] = p
		e.order = append(e.order, name)
	}
	p.args = args
	if err := p.start(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.StartTimeout)
	defer cancel()
	return p.waitFor(ctx, check)
}

// PIDs returns the process ID of each running component, by component name.
func (e *Env) PIDs() map[string]int {
	pids := map[string]int{}
	for name, p := range e.processes {
		if p.running() {
			pids[name] = p.cmd.Process.Pid
		}
	}
	return pids
}
