package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

// kwokCloud builds the kwok reference provider: node groups from
// --cloud-config become Node objects; the real kwok controller, run beside
// kscale, plays their kubelets.
type kwokCloud struct {
	groups *kwok.CloudConfig
}

// complete reads the node groups from --cloud-config; kwok takes no
// --nodes or auto-discovery, since its groups carry templates the flags
// cannot express.
func (k *kwokCloud) complete(f *cloudFlags) error {
	switch {
	case len(f.nodes) > 0:
		return errors.New("--nodes: not supported by --cloud-provider=kwok; its node groups come from --cloud-config")
	case len(f.autoDiscovery) > 0:
		return errors.New("--node-group-auto-discovery: not supported by --cloud-provider=kwok; its node groups come from --cloud-config")
	case f.config == "":
		return errors.New("--cloud-config: required for the kwok provider (the node groups)")
	}
	data, err := os.ReadFile(f.config)
	if err != nil {
		return fmt.Errorf("--cloud-config: %w", err)
	}
	if k.groups, err = kwok.ParseCloudConfig(data); err != nil {
		return fmt.Errorf("--cloud-config %s: %w", f.config, err)
	}
	return nil
}

// build restores the kwok cloud from the cluster and returns it with its
// node mirror as a task.
func (k *kwokCloud) build(ctx context.Context, deps cloudDeps) (*cloud, error) {
	// The kwok cloud writes its nodes through a client of its own, with its
	// own --kube-client-qps budget: a cloud's API is not the autoscaler's
	// Kubernetes client, and launching many machines must not hold the
	// loop's requests back.
	client, err := kubernetes.NewForConfig(deps.RESTConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the kwok cloud's client: %w", err)
	}
	provider, err := kwok.New(kwok.Config{Client: client, Clock: deps.Clock, NodeGroups: k.groups.NodeGroups,
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
		if err := deps.Cluster.WaitForSync(ctx); err != nil {
			return err
		}
		return provider.Run(ctx)
	}
	return &cloud{provider: provider, tasks: []func(context.Context) error{mirror}}, nil
}
