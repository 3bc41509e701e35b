package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// cloudFlags select and configure the node autoscaler's cloud provider,
// with upstream's flag names and formats.
type cloudFlags struct {
	provider      string
	config        string
	nodes         []string
	autoDiscovery []string
	aws           awsFlags
	clusterAPI    clusterAPIFlags
	mcm           mcmFlags
}

// addFlags registers the cloud flags.
func (c *cloudFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.provider, "cloud-provider", "kwok", "Cloud provider: "+strings.Join(cloudNames(), ", ")+".")
	fs.StringVar(&c.config, "cloud-config", "", "The cloud provider's configuration file; for kwok the node groups, as in the nodeGroups section of a scenario file.")
	fs.StringArrayVar(&c.nodes, "nodes", nil, "A node group to manage as min:max:name (repeatable); the name is the provider's.")
	fs.StringArrayVar(&c.autoDiscovery, "node-group-auto-discovery", nil, "Find node groups in the cloud as <discoverer>:<spec> (repeatable), e.g. asg:tag=k8s.io/cluster-autoscaler/enabled.")
	c.aws.addFlags(fs)
	c.clusterAPI.addFlags(fs)
	c.mcm.addFlags(fs)
}

// cloudDeps is what a provider may use when it is built for a leader term.
type cloudDeps struct {
	// Client reaches the cluster whose nodes the autoscaler manages.
	Client kubernetes.Interface
	// RESTConfig is Client's configuration (--kubeconfig, QPS, burst).
	RESTConfig *rest.Config
	// Factory is the shared informer factory of the loop's Cluster; a
	// provider may take listers from it before it starts.
	Factory informers.SharedInformerFactory
	// Cluster is the loop's informer-backed view; WaitForSync tells when
	// its caches are filled.
	Cluster *live.Cluster
	// Namespace is the autoscaler's namespace (--namespace).
	Namespace string
	// Clock is the wall clock.
	Clock clock.WithTicker
	// Registerer takes the provider's metrics.
	Registerer prometheus.Registerer
	// DisableInstanceCache is --disable-node-instances-cache: the provider
	// lists instances from the cloud every loop.
	DisableInstanceCache bool
	// GroupDefaults are the global values of the per-group options, for a
	// provider whose protocol sends them (externalgrpc's GetOptions).
	GroupDefaults externalgrpc.Defaults
}

// cloud is a provider built for one leader term, with the background tasks
// that must run beside the loop while it leads.
type cloud struct {
	provider cloudprovider.Provider
	tasks    []func(ctx context.Context) error
	// gpuLabel, when set, is the GPU node label the provider learned from
	// its cloud at build time (externalgrpc asks its server); it replaces
	// the builder's static one.
	gpuLabel string
}

// cloudBuilder builds one --cloud-provider. complete validates the flags
// and reads files once, before anything starts (its errors are usage
// errors); build runs at the start of every leader term.
type cloudBuilder interface {
	complete(f *cloudFlags) error
	build(ctx context.Context, deps cloudDeps) (*cloud, error)
}

// cloudBuilders returns a fresh builder for every supported provider.
func cloudBuilders() map[string]cloudBuilder {
	return map[string]cloudBuilder{
		"kwok":         &kwokCloud{},
		"aws":          &awsCloud{},
		"clusterapi":   &clusterAPICloud{},
		"mcm":          &mcmCloud{},
		"externalgrpc": &externalGRPCCloud{},
	}
}

// cloudNames lists the supported providers in a stable order.
func cloudNames() []string {
	names := make([]string, 0, len(cloudBuilders()))
	for name := range cloudBuilders() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// unsupportedCloudError is a --cloud-provider this build has no builder for.
type unsupportedCloudError struct{ provider string }

// Error names the flag, the value and the supported providers.
func (e *unsupportedCloudError) Error() string {
	return fmt.Sprintf("--cloud-provider: %q is not supported; supported: %s", e.provider, strings.Join(cloudNames(), ", "))
}

// complete picks the builder of --cloud-provider and lets it validate the
// other cloud flags.
func (c *cloudFlags) complete() (cloudBuilder, error) {
	b, ok := cloudBuilders()[c.provider]
	if !ok {
		return nil, &unsupportedCloudError{provider: c.provider}
	}
	if err := c.clusterAPI.check(c.provider); err != nil {
		return nil, err
	}
	if err := c.mcm.check(c.provider); err != nil {
		return nil, err
	}
	if err := b.complete(c); err != nil {
		return nil, err
	}
	return b, nil
}
