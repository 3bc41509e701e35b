package testenv

import (
	"context"
	"net/http"
	"path/filepath"
	"time"
)

// Component is a process a test runs beside the control plane, such as a
// real machine-API controller manager built by `make testbin`. The
// environment stops it with the control plane and keeps its log in Dir.
type Component struct {
	// Name names the component in logs and in Logs; unique per environment.
	Name string
	// Binary is the path of the executable.
	Binary string
	// Args are its command-line arguments.
	Args []string
	// Ready returns nil once the component serves; nil means started is
	// ready.
	Ready func(ctx context.Context) error
}

// StartComponent starts c and waits until it is ready (at most the
// environment's StartTimeout). Starting a name again after StopComponent
// restarts it with the new arguments and appends to the same log.
func (e *Env) StartComponent(ctx context.Context, c Component) error {
	ready := c.Ready
	if ready == nil {
		ready = func(context.Context) error { return nil }
	}
	return e.launchAt(ctx, c.Name, c.Binary, c.Args, ready)
}

// StopComponent stops a component started by StartComponent (SIGTERM,
// then SIGKILL after 15 seconds); a component not running is left alone.
func (e *Env) StopComponent(name string) {
	if p, ok := e.processes[name]; ok {
		p.stop(15 * time.Second)
	}
}

// LoopbackServingCert returns the directory and file names of a serving
// certificate and key for localhost and 127.0.0.1 signed by the
// environment's CA (CAData), for a component's webhook server that
// kube-apiserver calls.
func (e *Env) LoopbackServingCert() (dir, certName, keyName string) {
	f := e.files.loopbackServer
	return filepath.Dir(f.Cert), filepath.Base(f.Cert), filepath.Base(f.Key)
}

// FreePorts returns n loopback TCP ports that were free a moment ago, for
// a component's listeners.
func FreePorts(n int) ([]int, error) { return freePorts(n) }

// HTTPReady returns a Component.Ready check that url (plain HTTP, such as
// a loopback health endpoint) answers 200.
func HTTPReady(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := httpGet(ctx, http.DefaultClient, url)
		return err
	}
}
