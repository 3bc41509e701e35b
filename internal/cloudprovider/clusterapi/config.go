package clusterapi

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"
)

// Architectures CAPI_SCALE_ZERO_DEFAULT_ARCH may name.
var Architectures = []string{"amd64", "arm64", "ppc64le", "s390x"}

// Config is what the provider needs.
type Config struct {
	// Client reaches the management cluster, where the Cluster API
	// objects live.
	Client dynamic.Interface
	// Discovery is the management cluster's discovery client; it resolves
	// the API version and the infrastructure template kinds.
	Discovery discovery.DiscoveryInterface
	// Nodes lists the workload cluster's nodes (labels of live nodes for
	// templates, provider ids of Machines that only carry a nodeRef).
	Nodes corelisters.NodeLister
	// Group is the Cluster API group (CAPI_GROUP); default DefaultGroup.
	Group string
	// Version forces an API version (CAPI_VERSION); empty takes the
	// group's preferred version.
	Version string
	// Specs are the auto-discovery specs; none selects every scalable
	// resource with size annotations.
	Specs []DiscoverySpec
	// DefaultArch is the architecture of templates built from scratch
	// (CAPI_SCALE_ZERO_DEFAULT_ARCH); default amd64.
	DefaultArch string
	// Clock stamps the delete-machine annotation; default the real clock.
	Clock clock.PassiveClock
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Group == "" {
		c.Group = DefaultGroup
	}
	if c.DefaultArch == "" {
		c.DefaultArch = "amd64"
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("clusterapi: Client is required")
	case c.Discovery == nil:
		return errors.New("clusterapi: Discovery is required")
	case c.Nodes == nil:
		return errors.New("clusterapi: Nodes is required")
	}
	return c.ValidateSettings()
}

// ValidateSettings checks the fields other than the clients: Group,
// Version and DefaultArch (after Default).
func (c *Config) ValidateSettings() error {
	switch {
	case !slices.Contains(Architectures, c.DefaultArch):
		return fmt.Errorf("clusterapi: default architecture %q is not one of %v", c.DefaultArch, Architectures)
	}
	if errs := validation.IsDNS1123Subdomain(c.Group); len(errs) > 0 {
		return fmt.Errorf("clusterapi: API group %q: %v", c.Group, errs)
	}
	if c.Version != "" {
		if errs := validation.IsDNS1123Label(c.Version); len(errs) > 0 {
			return fmt.Errorf("clusterapi: API version %q: %v", c.Version, errs)
		}
	}
	return nil
}
