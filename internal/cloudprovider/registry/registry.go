// Package registry is the one boundary between the node autoscaler's
// command line and its cloud providers: each provider package exposes a
// Builder (its own flags, their validation, and building the provider for a
// leader term), and the providers package lists the builders. The command
// registers the shared cloud flags and every provider's flags through Flags
// and gets back the selected provider's Builder, validated.
package registry

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Common are the cloud flags every provider shares, with upstream's names:
// --cloud-provider, --cloud-config, --nodes and --node-group-auto-discovery.
type Common struct {
	// Provider is --cloud-provider.
	Provider string
	// Config is --cloud-config.
	Config string
	// Nodes is --nodes (min:max:name, repeatable).
	Nodes []string
	// AutoDiscovery is --node-group-auto-discovery (repeatable).
	AutoDiscovery []string
}

// Deps is what a provider may use when it is built for a leader term.
type Deps struct {
	// Client reaches the cluster whose nodes the autoscaler manages.
	Client kubernetes.Interface
	// RESTConfig is Client's configuration (--kubeconfig, QPS, burst).
	RESTConfig *rest.Config
	// Factory is the shared informer factory of the loop's cluster view; a
	// provider may take listers from it before it starts.
	Factory informers.SharedInformerFactory
	// WaitForSync blocks until the loop's caches are filled; it returns
	// an error when ctx ends first.
	WaitForSync func(ctx context.Context) error
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
	GroupDefaults GroupDefaults
	// Prices is set when the price expander is in --expander: a provider
	// whose prices cost calls to its cloud (externalgrpc's pricing calls)
	// asks them only then.
	Prices bool
}

// GroupDefaults are the global values of the options a node group may
// override.
type GroupDefaults struct {
	// ScaleDownUtilizationThreshold is --scale-down-utilization-threshold.
	ScaleDownUtilizationThreshold float64
	// ScaleDownGPUUtilizationThreshold is --scale-down-gpu-utilization-threshold.
	ScaleDownGPUUtilizationThreshold float64
	// ScaleDownUnneededTime is --scale-down-unneeded-time.
	ScaleDownUnneededTime time.Duration
	// ScaleDownUnreadyTime is --scale-down-unready-time.
	ScaleDownUnreadyTime time.Duration
	// MaxNodeProvisionTime is --max-node-provision-time.
	MaxNodeProvisionTime time.Duration
	// IgnoreDaemonSetsUtilization is --ignore-daemonsets-utilization.
	IgnoreDaemonSetsUtilization bool
}

// Built is a provider built for one leader term, with the background
// tasks that must run beside the loop while it leads.
type Built struct {
	// Provider is the cloud the loop scales.
	Provider cloudprovider.Provider
	// Tasks run beside the loop until the term ends; an error ends it.
	Tasks []func(ctx context.Context) error
	// GPULabel, when set, is the GPU node label the provider learned from
	// its cloud at build time (externalgrpc asks its server); it replaces
	// the Builder's static one for the term.
	GPULabel string
}

// Builder is one --cloud-provider. AddFlags registers its own flags
// (every provider's flags exist whichever is selected, as upstream's);
// Complete validates the flags and reads files once, before anything
// starts, when it is selected (its errors are usage errors); Build runs at
// the start of every leader term.
type Builder interface {
	// AddFlags registers the provider's own flags on fs.
	AddFlags(fs *pflag.FlagSet)
	// Unselected rejects the provider's own flags when another provider
	// (selected) is chosen; nil when they keep their defaults.
	Unselected(selected string) error
	// Complete validates the shared flags and the provider's own for a
	// run with this provider.
	Complete(c Common) error
	// Build makes the provider for one leader term.
	Build(ctx context.Context, deps Deps) (*Built, error)
}

// StartupTainter is a Builder whose provider's nodes carry taints of their
// own while they start; the autoscaler treats them as startup taints.
type StartupTainter interface {
	// StartupTaints returns the taint keys.
	StartupTaints() []string
}

// GPULabeler is a Builder whose provider names a label of GPU nodes
// (upstream's CloudProvider.GPULabel): a node with it whose GPUs are not
// allocatable yet is still starting.
type GPULabeler interface {
	// GPULabel returns the label key.
	GPULabel() string
}

// KubeProxyTemplater is a Builder whose upstream counterpart puts a fake
// kube-proxy pod on every template it builds (upstream 1.36's aws,
// clusterapi and kwok providers, Gardener's mcm): only for these does
// --template-kube-proxy-pod select upstream's behaviour.
type KubeProxyTemplater interface {
	// UpstreamAddsKubeProxy marks the Builder; it does nothing.
	UpstreamAddsKubeProxy()
}

// Entry registers one provider: its --cloud-provider name and a
// constructor of a fresh Builder.
type Entry struct {
	// Name is the --cloud-provider value.
	Name string
	// New returns a Builder with its flags' defaults.
	New func() Builder
}

// UnsupportedError is a --cloud-provider no entry has.
type UnsupportedError struct {
	// Provider is the value given.
	Provider string
	// Supported lists the registered names, sorted.
	Supported []string
}

// Error names the flag, the value and the supported providers.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("--cloud-provider: %q is not supported; supported: %s", e.Provider, strings.Join(e.Supported, ", "))
}

// Flags are the cloud flags of one command: the shared ones and every
// registered provider's own.
type Flags struct {
	// Common holds the shared flags' values after parsing.
	Common   Common
	builders map[string]Builder
	names    []string
}

// NewFlags returns the flags of the given providers; the names must be
// unique and non-empty (a programming error otherwise).
func NewFlags(entries []Entry) (*Flags, error) {
	f := &Flags{builders: make(map[string]Builder, len(entries))}
	for _, e := range entries {
		if e.Name == "" || e.New == nil {
			return nil, fmt.Errorf("registering cloud provider %q: name and constructor are required", e.Name)
		}
		if _, dup := f.builders[e.Name]; dup {
			return nil, fmt.Errorf("registering cloud provider %q: registered twice", e.Name)
		}
		f.builders[e.Name] = e.New()
		f.names = append(f.names, e.Name)
	}
	slices.Sort(f.names)
	return f, nil
}

// Names lists the registered providers, sorted.
func (f *Flags) Names() []string { return slices.Clone(f.names) }

// AddFlags registers the shared flags with defaultProvider as
// --cloud-provider's default, then every provider's own flags.
func (f *Flags) AddFlags(fs *pflag.FlagSet, defaultProvider string) {
	c := &f.Common
	fs.StringVar(&c.Provider, "cloud-provider", defaultProvider, "Cloud provider: "+strings.Join(f.names, ", ")+".")
	fs.StringVar(&c.Config, "cloud-config", "", "The cloud provider's configuration file; for kwok the node groups, as in the nodeGroups section of a scenario file.")
	fs.StringArrayVar(&c.Nodes, "nodes", nil, "A node group to manage as min:max:name (repeatable); the name is the provider's.")
	fs.StringArrayVar(&c.AutoDiscovery, "node-group-auto-discovery", nil, "Find node groups in the cloud as <discoverer>:<spec> (repeatable), e.g. asg:tag=k8s.io/cluster-autoscaler/enabled.")
	for _, name := range f.names {
		f.builders[name].AddFlags(fs)
	}
}

// Complete returns the Builder of --cloud-provider after every other
// provider checked that its flags are unset and the selected one validated
// the flags.
func (f *Flags) Complete() (Builder, error) {
	b, ok := f.builders[f.Common.Provider]
	if !ok {
		return nil, &UnsupportedError{Provider: f.Common.Provider, Supported: f.Names()}
	}
	for _, name := range f.names {
		if name == f.Common.Provider {
			continue
		}
		if err := f.builders[name].Unselected(f.Common.Provider); err != nil {
			return nil, err
		}
	}
	if err := b.Complete(f.Common); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadCloudConfig is Complete's shared part for a provider whose node
// groups come from --cloud-config alone: it refuses --nodes and
// --node-group-auto-discovery with why (what names the groups instead),
// requires --cloud-config (holding what) and returns the file's content.
func ReadCloudConfig(c Common, why, what string) ([]byte, error) {
	switch {
	case len(c.Nodes) > 0:
		return nil, fmt.Errorf("--nodes: not supported by --cloud-provider=%s; %s", c.Provider, why)
	case len(c.AutoDiscovery) > 0:
		return nil, fmt.Errorf("--node-group-auto-discovery: not supported by --cloud-provider=%s; %s", c.Provider, why)
	case c.Config == "":
		return nil, fmt.Errorf("--cloud-config: required for the %s provider (%s)", c.Provider, what)
	}
	data, err := os.ReadFile(c.Config)
	if err != nil {
		return nil, fmt.Errorf("--cloud-config: %w", err)
	}
	return data, nil
}
