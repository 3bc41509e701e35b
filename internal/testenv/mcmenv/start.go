package mcmenv

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/testenv"
)

// SecretName names the Secret Start creates in the namespace for the
// MachineClasses' secretRef: MCM's machine controller reconciles a
// Machine only when its class's Secret has a userData key (it adds a
// bootstrap token and the machine name to it before calling the driver).
const SecretName = "mcmenv-cloud"

// Config configures Start.
type Config struct {
	// Control runs the controllers and holds the MCM objects; it has the
	// MCM CRDs and the namespace.
	Control *testenv.Env
	// Target is the cluster whose Nodes the Machines become.
	Target *testenv.Env
	// Namespace is the shoot's control namespace.
	Namespace string
	// CreationTimeout is MCM's --machine-creation-timeout; default 20m.
	CreationTimeout time.Duration
	// Cloud configures the test cloud; its Workload client is filled in.
	Cloud CloudConfig
}

// Env is the running MCM controllers and the test cloud.
type Env struct {
	// Controllers are MCM's two processes.
	Controllers *Controllers
	// Cloud is the test cloud behind the driver.
	Cloud *Cloud
}

// Start creates the class Secret, starts the test cloud and MCM's
// controllers for the test, and stops them at cleanup; errors the cloud
// met fail the test then.
func Start(t testing.TB, cfg Config) *Env {
	t.Helper()
	ctx := t.Context()
	if err := createSecret(ctx, cfg.Control, cfg.Namespace); err != nil {
		t.Fatal(err)
	}
	cfg.Cloud.Workload = cfg.Target.Client
	cloud, err := NewCloud(cfg.Cloud)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	url, err := cloud.Serve(runCtx)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cloud.Run(runCtx); close(done) }()
	t.Cleanup(func() {
		stop()
		<-done
		if errs := cloud.Errors(); len(errs) > 0 {
			t.Errorf("test cloud errors: %v", errors.Join(errs...))
		}
	})
	ctrl, err := StartControllers(ctx, ControllersConfig{Control: cfg.Control, TargetKubeconfig: cfg.Target.KubeconfigPath,
		Namespace: cfg.Namespace, CloudURL: url, CreationTimeout: cfg.CreationTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("MCM log tails:\n%s", ctrl.Logs())
		}
	})
	return &Env{Controllers: ctrl, Cloud: cloud}
}

// createSecret creates the MachineClasses' Secret with a userData key.
func createSecret(ctx context.Context, control *testenv.Env, namespace string) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: namespace},
		Data: map[string][]byte{"userData": []byte("#!/bin/sh\n# the test cloud boots no operating system\n")}}
	if _, err := control.Client.CoreV1().Secrets(namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the MachineClass Secret: %w", err)
	}
	return nil
}
