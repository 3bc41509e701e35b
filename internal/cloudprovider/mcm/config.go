package mcm

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
)

// Group is one --nodes value: a MachineDeployment and its bounds.
type Group struct {
	// Min and Max bound the MachineDeployment's replicas.
	Min, Max int
	// Namespace is the control namespace the MachineDeployment lives in.
	Namespace string
	// Name is the MachineDeployment's name and the node group id.
	Name string
}

// ParseGroups parses --nodes values of the form
// <min>:<max>:<namespace>.<machinedeployment>. Every namespace must be
// namespace (CONTROL_NAMESPACE) when that is set, and all must agree.
func ParseGroups(values []string, namespace string) ([]Group, error) {
	static, err := nodegroupspec.ParseStaticList(values)
	if err != nil {
		return nil, err
	}
	out := make([]Group, 0, len(static))
	seen := map[string]bool{}
	for _, s := range static {
		ns, name, ok := strings.Cut(s.Name, ".")
		if !ok {
			return nil, fmt.Errorf("parsing %q: want <namespace>.<machinedeployment>", s.Name)
		}
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, fmt.Errorf("parsing %q: namespace %q: %s", s.Name, ns, strings.Join(errs, "; "))
		}
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return nil, fmt.Errorf("parsing %q: MachineDeployment name %q: %s", s.Name, name, strings.Join(errs, "; "))
		}
		if namespace == "" {
			namespace = ns
		}
		if ns != namespace {
			return nil, fmt.Errorf("parsing %q: namespace %q is not the control namespace %q (CONTROL_NAMESPACE)", s.Name, ns, namespace)
		}
		if seen[name] {
			return nil, fmt.Errorf("parsing %q: MachineDeployment %q is given twice", s.Name, name)
		}
		seen[name] = true
		out = append(out, Group{Min: s.Min, Max: s.Max, Namespace: ns, Name: name})
	}
	return out, nil
}

// Config is what the provider needs.
type Config struct {
	// Client reaches the control cluster (MachineDeployments, Machines,
	// MachineClasses and MCM's Deployment).
	Client dynamic.Interface
	// Discovery is the control cluster's discovery client; the first
	// Refresh checks that MCM's API is served.
	Discovery discovery.DiscoveryInterface
	// Nodes lists the target cluster's nodes.
	Nodes corelisters.NodeLister
	// Namespace is the control namespace (CONTROL_NAMESPACE).
	Namespace string
	// Groups are the node groups (--nodes); at least one.
	Groups []Group
	// Clock stamps the scale-down annotations; default the real clock.
	Clock clock.PassiveClock
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("mcm: Client is required")
	case c.Discovery == nil:
		return errors.New("mcm: Discovery is required")
	case c.Nodes == nil:
		return errors.New("mcm: Nodes is required")
	case c.Namespace == "":
		return errors.New("mcm: Namespace (CONTROL_NAMESPACE) is required")
	case len(c.Groups) == 0:
		return errors.New("mcm: no node groups (--nodes=<min>:<max>:<namespace>.<machinedeployment>)")
	}
	for _, g := range c.Groups {
		if g.Namespace != c.Namespace {
			return fmt.Errorf("mcm: node group %s.%s is not in the control namespace %q", g.Namespace, g.Name, c.Namespace)
		}
	}
	return nil
}
