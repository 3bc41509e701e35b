package e2e

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// machineWorld is a workload cluster (real kube-scheduler, deployment and
// replicaset controllers) and a separate management cluster with a
// machine API's real CRDs, joined by the machine API's controllers (Cluster
// API's real ones through capienv; for MCM the machinesim stand-in, runSim),
// with the real kwok controller as the workload nodes' kubelets. The Cluster API and MCM end-to-end tests
// share it.
type machineWorld struct {
	workload, management *testenv.Env
	dyn                  dynamic.Interface
	sim                  *machinesim.Simulator
}

// startMachineWorld starts both clusters, installs the machine API's CRDs
// in the management cluster and creates namespace there.
func startMachineWorld(t *testing.T, install func(context.Context, *testenv.Env) error, namespace string) *machineWorld {
	t.Helper()
	return startMachineWorldWith(t, install, namespace, nil, nil)
}

// startMachineWorldWith is startMachineWorld with extra kube-apiserver
// flags for the workload and the management cluster.
func startMachineWorldWith(t *testing.T, install func(context.Context, *testenv.Env) error, namespace string, workloadFlags, managementFlags []string) *machineWorld {
	t.Helper()
	w := &machineWorld{
		// The real kwok plays the kubelets of the simulator's nodes (they
		// carry its annotation); no node lifecycle controller is needed.
		workload: testenv.Start(t, testenv.Options{Scheduler: true, ControllerManager: true, Kwok: true,
			Controllers: []string{"deployment", "replicaset", "serviceaccount"}, APIServerFlags: workloadFlags}),
		management: testenv.Start(t, testenv.Options{APIServerFlags: managementFlags}),
	}
	ctx := t.Context()
	if err := install(ctx, w.management); err != nil {
		t.Fatal(err)
	}
	if _, err := w.management.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.dyn = dynamic.NewForConfigOrDie(w.management.Config)
	return w
}

// runSim starts the stand-in controller (cfg without clients: the
// world's are filled in); the workload cluster's kwok runs the pods bound
// to its nodes. It stops at cleanup, and errors the controller met fail
// the test then.
func (w *machineWorld) runSim(t *testing.T, cfg machinesim.Config) {
	t.Helper()
	cfg.Management, cfg.Workload = w.dyn, w.workload.Client
	sim, err := machinesim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.sim = sim
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { _ = sim.Run(ctx); close(done) }()
	t.Cleanup(func() {
		stop()
		<-done
		if errs := sim.Errors(); len(errs) > 0 {
			t.Errorf("machine simulator errors: %v", errors.Join(errs...))
		}
	})
}

// naRun runs `kscale node-autoscaler` with args until the test ends; an
// error it returns then fails the test.
func naRun(t *testing.T, args ...string) {
	t.Helper()
	ctx, stop := context.WithCancel(t.Context())
	cmd := command("node-autoscaler")
	cmd.SetArgs(args)
	cmd.SetContext(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("node-autoscaler: %v", err)
		}
	})
}
