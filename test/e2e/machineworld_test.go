package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kscale/kscale/internal/testenv"
)

// machineWorld is a workload cluster (real kube-scheduler, deployment and
// replicaset controllers) and a separate management cluster with a
// machine API's real CRDs, joined by the machine API's real controllers
// (Cluster API's through capienv, MCM's through mcmenv), with the real
// kwok controller as the workload nodes' kubelets. The Cluster API and MCM end-to-end tests
// share it.
type machineWorld struct {
	workload, management *testenv.Env
	dyn                  dynamic.Interface
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
