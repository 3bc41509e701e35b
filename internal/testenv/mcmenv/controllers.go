package mcmenv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/testenv"
)

// Component names of the two MCM processes.
const (
	ControllerManagerName = "mcm-controller-manager"
	MachineControllerName = "mcm-machine-controller"
)

// ControllersConfig configures the two MCM processes.
type ControllersConfig struct {
	// Control is the control cluster: it runs the processes and holds the
	// MCM objects in Namespace.
	Control *testenv.Env
	// TargetKubeconfig reaches the target cluster with the Nodes.
	TargetKubeconfig string
	// Namespace is the shoot's control namespace, the only one MCM watches.
	Namespace string
	// CloudURL is the test cloud's API, for the driver.
	CloudURL string
	// CreationTimeout is --machine-creation-timeout (how long a Machine may
	// take to join before MCM declares it Failed); default 20m, MCM's.
	CreationTimeout time.Duration
}

// Controllers are MCM's controller manager (MachineDeployment, MachineSet
// and safety controllers) and its machine controller with the test
// cloud's driver, running on the control cluster.
type Controllers struct {
	cfg   ControllersConfig
	bin   string
	ports []int
}

// StartControllers starts both processes; they stop with the control
// cluster's environment.
func StartControllers(ctx context.Context, cfg ControllersConfig) (*Controllers, error) {
	if cfg.Control == nil || cfg.TargetKubeconfig == "" || cfg.Namespace == "" || cfg.CloudURL == "" {
		return nil, errors.New("mcmenv: ControllersConfig.Control, TargetKubeconfig, Namespace and CloudURL are required")
	}
	if cfg.CreationTimeout == 0 {
		cfg.CreationTimeout = 20 * time.Minute
	}
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	ports, err := testenv.FreePorts(2)
	if err != nil {
		return nil, err
	}
	c := &Controllers{cfg: cfg, bin: bin, ports: ports}
	return c, c.Start(ctx)
}

// args returns the flags both processes share: the clusters, the
// namespace, no leader election, a loopback health port.
func (c *Controllers) args(port int) []string {
	return []string{
		"--control-kubeconfig=" + c.cfg.Control.KubeconfigPath,
		"--target-kubeconfig=" + c.cfg.TargetKubeconfig,
		"--namespace=" + c.cfg.Namespace,
		"--leader-elect=false",
		"--address=127.0.0.1",
		fmt.Sprintf("--port=%d", port),
		"--v=3",
	}
}

// Start starts both processes (again, after Stop) and waits until each
// serves its health endpoint.
func (c *Controllers) Start(ctx context.Context) error {
	cm := append([]string{"controller-manager"}, c.args(c.ports[0])...)
	mc := append(append([]string{"machine-controller"}, c.args(c.ports[1])...),
		"--machine-creation-timeout="+c.cfg.CreationTimeout.String(),
		"--cloud-url="+c.cfg.CloudURL)
	for _, p := range []struct {
		name string
		args []string
		port int
	}{{ControllerManagerName, cm, c.ports[0]}, {MachineControllerName, mc, c.ports[1]}} {
		err := c.cfg.Control.StartComponent(ctx, testenv.Component{Name: p.name, Binary: c.bin, Args: p.args,
			Ready: testenv.HTTPReady(fmt.Sprintf("http://127.0.0.1:%d/healthz", p.port))})
		if err != nil {
			return fmt.Errorf("starting %s: %w: %s", p.name, err, c.cfg.Control.Logs(p.name))
		}
	}
	return nil
}

// Stop stops both processes.
func (c *Controllers) Stop() {
	c.cfg.Control.StopComponent(MachineControllerName)
	c.cfg.Control.StopComponent(ControllerManagerName)
}

// Logs returns the tails of both processes' logs.
func (c *Controllers) Logs() string {
	return ControllerManagerName + ":\n" + c.cfg.Control.Logs(ControllerManagerName) +
		"\n" + MachineControllerName + ":\n" + c.cfg.Control.Logs(MachineControllerName)
}
