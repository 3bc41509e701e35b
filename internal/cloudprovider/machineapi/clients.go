package machineapi

import (
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Clients builds the dynamic and discovery clients of a machine API's
// cluster; which names the cluster ("management", "control") in errors.
func Clients(cfg *rest.Config, which string) (dynamic.Interface, discovery.DiscoveryInterface, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("building the %s cluster's client: %w", which, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("building the %s cluster's discovery client: %w", which, err)
	}
	return dyn, dc, nil
}
