package kwok

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kscale/kscale/internal/cloudprovider/registry"
)

// Builder builds the kwok reference provider for --cloud-provider=kwok:
// node groups from --cloud-config become Node objects; the real kwok
// controller, run beside kscale, plays their kubelets.
type Builder struct {
	groups *CloudConfig
}

// NewBuilder returns the kwok provider's Builder.
func NewBuilder() registry.Builder { return &Builder{} }

// AddFlags registers nothing: kwok has no flags of its own.
func (b *Builder) AddFlags(*pflag.FlagSet) {}

// Unselected has no flags to check.
func (b *Builder) Unselected(string) error { return nil }

// Complete reads the node groups from --cloud-config; kwok takes no
// --nodes or auto-discovery, since its groups carry templates the flags
// cannot express.
func (b *Builder) Complete(c registry.Common) error {
	data, err := registry.ReadCloudConfig(c, "its node groups come from --cloud-config", "the node groups")
	if err != nil {
		return err
	}
	if b.groups, err = ParseCloudConfig(data); err != nil {
		return fmt.Errorf("--cloud-config %s: %w", c.Config, err)
	}
	return nil
}

// kubeletQPS and kubeletBurst are the node client's limits: the kubelet's
// defaults (--kube-api-qps, --kube-api-burst).
const (
	kubeletQPS   = 50
	kubeletBurst = 100
)

// Build restores the kwok cloud from the cluster and returns it with its
// node mirror as a task.
func (b *Builder) Build(ctx context.Context, deps registry.Deps) (*registry.Built, error) {
	// The kwok cloud makes its API calls (the target sizes) through a client
	// of its own, with its own --kube-client-qps budget: a cloud's API is
	// not the autoscaler's Kubernetes client. Its nodes are written by a
	// third client with a kubelet's budget (kubeletQPS): in a real cluster
	// every new machine's kubelet registers its own node, so a launch of
	// many machines must hold back neither the loop's writes nor the
	// cloud's next call.
	client, err := kubernetes.NewForConfig(deps.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the kwok cloud's client: %w", err)
	}
	kubelets := rest.CopyConfig(deps.RESTConfig)
	kubelets.QPS, kubelets.Burst = kubeletQPS, kubeletBurst
	nodeClient, err := kubernetes.NewForConfig(kubelets)
	if err != nil {
		return nil, fmt.Errorf("creating the kwok cloud's node client: %w", err)
	}
	provider, err := New(Config{Client: client, NodeClient: nodeClient, Clock: deps.Clock, NodeGroups: b.groups.NodeGroups,
		Nodes: deps.Factory.Core().V1().Nodes().Lister(), Namespace: deps.Namespace})
	if err != nil {
		return nil, err
	}
	if err := provider.Start(ctx); err != nil {
		return nil, err
	}
	mirror := func(ctx context.Context) error {
		// The provider mirrors from the node informer: wait for it so it
		// does not take an empty cache for a cluster without nodes.
		if err := deps.WaitForSync(ctx); err != nil {
			return err
		}
		return provider.Run(ctx)
	}
	return &registry.Built{Provider: provider, Tasks: []func(context.Context) error{mirror}}, nil
}

// UpstreamAddsKubeProxy marks the provider as one whose upstream adds a
// fake kube-proxy pod to its templates (--template-kube-proxy-pod).
func (b *Builder) UpstreamAddsKubeProxy() {}
