package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"testing"

	"k8s.io/client-go/informers"

	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/externalgrpctest"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
)

// externalGRPCGroups are the kwok node groups the test's external gRPC
// server serves: two alike but for their price, so that the price
// expander, with the server's prices, always picks small.
const externalGRPCGroups = `
nodeGroups:
- {name: small, max: 3, instanceTypes: [m5.large], labels: {pool: small}, bootTime: 2s, pricePerHour: 0.1}
- {name: dear, max: 3, instanceTypes: [m5.large], labels: {pool: small}, bootTime: 2s, pricePerHour: 0.5}
`

// startExternalGRPCServer serves the kwok cloud (its nodes played by the
// real kwok controller) over the external gRPC protocol with mutual TLS,
// and returns the server and a cloud config for it in upstream's format.
func startExternalGRPCServer(t *testing.T, provider *kwok.Provider) (*externalgrpctest.Server, string) {
	t.Helper()
	ca := testpki.NewCA(t, "externalgrpc-ca")
	dir := t.TempDir()
	write := func(name string, data []byte) string { return testpki.WriteFile(t, dir, name, data) }
	cert, key := ca.ClientPEM(t, "kscale")
	srv := externalgrpctest.New(provider, "example.com/accelerator")
	addr := srv.Start(t, &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{"localhost"}, nil)}, ClientCAs: ca.Pool(),
		ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12})
	_, port, _ := strings.Cut(addr, ":")
	config := fmt.Sprintf("address: localhost:%s\ncert: %s\nkey: %s\ncacert: %s\ngrpc_timeout: 10s\n",
		port, write("tls.crt", cert), write("tls.key", key), write("ca.crt", ca.PEM))
	return srv, write("cloud.yaml", []byte(config))
}

// TestNodeAutoscalerExternalGRPC runs `kscale node-autoscaler
// --cloud-provider=externalgrpc --expander=price` against a server of ours
// that serves the kwok cloud over mutual TLS: the server's groups,
// templates, sizes and prices drive a scale-up of the cheaper of two
// groups and a scale-down on the real control plane.
func TestNodeAutoscalerExternalGRPC(t *testing.T) {
	// The command runs under deploy/node-autoscaler-externalgrpc's RBAC;
	// the kwok cloud behind the server writes the nodes with the test's
	// own client.
	env, kubeconfig, _ := naSetupUnder(t, "", "../../deploy/node-autoscaler-externalgrpc")
	ctx, stop := context.WithCancel(t.Context())
	groups, err := kwok.ParseCloudConfig([]byte(externalGRPCGroups))
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(env.Client, 0)
	nodes := factory.Core().V1().Nodes().Lister()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	provider, err := kwok.New(kwok.Config{Client: env.Client, NodeGroups: groups.NodeGroups, Nodes: nodes, Namespace: "kube-system"})
	if err != nil {
		t.Fatal(err)
	}
	if err := provider.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mirrored := make(chan error, 1)
	go func() { mirrored <- provider.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-mirrored; err != nil && ctx.Err() == nil {
			t.Errorf("kwok cloud: %v", err)
		}
		factory.Shutdown()
	})
	srv, cloudConfig := startExternalGRPCServer(t, provider)
	naRun(t, "--cloud-provider=externalgrpc", "--expander=price", "--cloud-config", cloudConfig, "--kubeconfig", kubeconfig, "--address", naFreeAddress(t),
		"--scan-interval=1s", "--scale-down-unneeded-time=3s", "--scale-down-delay-after-add=-1s", "--scale-down-delay-after-delete=1s",
		naRecheckSoon)

	t.Run("scale-up of the cheaper group through the server", func(t *testing.T) {
		naDeploy(t, env, "grpc-web", 2, "small", "1500m")
		naExpectRunning(t, env, "grpc-web", 2)
		naExpectGroupNodes(t, env, map[string]int{"small": 2})
		for _, call := range []string{"NodeGroupIncreaseSize", "PricingNodePrice", "PricingPodPrice"} {
			if n := srv.Calls(call); n == 0 {
				t.Errorf("the server saw no %s call", call)
			}
		}
	})
	t.Run("scale-down deletes the chosen node through the server", func(t *testing.T) {
		naScale(t, env, "grpc-web", 1)
		naPoll(t, "one node left in group small", func(context.Context) (bool, error) {
			return naGroupNodes(t, env)["small"] == 1, nil
		})
		deleted := srv.Deleted()
		if len(deleted) != 1 || deleted[0].GetName() == "" || !strings.HasPrefix(deleted[0].GetProviderID(), kwok.ProviderIDPrefix) {
			t.Errorf("server was asked to delete %v, want one node named with its kwok provider id", deleted)
		}
		naExpectRunning(t, env, "grpc-web", 1)
	})
}
