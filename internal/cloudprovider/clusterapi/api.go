package clusterapi

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

// apiResources are the Cluster API resources the server serves.
type apiResources struct {
	version string
	// deployments and pools are nil when the server does not serve them.
	deployments, pools *schema.GroupVersionResource
	sets, machines     schema.GroupVersionResource
}

// ErrAPINotServed reports a management cluster without the Cluster API
// group, version or a mandatory resource.
var ErrAPINotServed = errors.New("the Cluster API is not served")

// resolveAPI picks the version (forced, or the group's preferred one) and
// checks that machinesets and machines are served; machinedeployments and
// machinepools are used when they are.
func resolveAPI(dc discovery.DiscoveryInterface, group, version string) (*apiResources, error) {
	groups, err := dc.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("discovering API groups: %w", err)
	}
	var found *metav1.APIGroup
	for i := range groups.Groups {
		if groups.Groups[i].Name == group {
			found = &groups.Groups[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: the server has no API group %q (are the CRDs installed?)", ErrAPINotServed, group)
	}
	if version == "" {
		version = found.PreferredVersion.Version
	} else if !servesVersion(found, version) {
		return nil, fmt.Errorf("%w: API group %q has no version %q (CAPI_VERSION)", ErrAPINotServed, group, version)
	}
	gv := schema.GroupVersion{Group: group, Version: version}
	list, err := dc.ServerResourcesForGroupVersion(gv.String())
	if err != nil {
		return nil, fmt.Errorf("discovering resources of %s: %w", gv, err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	for _, r := range []string{"machinesets", "machines"} {
		if !served[r] {
			return nil, fmt.Errorf("%w: %s does not serve %s", ErrAPINotServed, gv, r)
		}
	}
	out := &apiResources{version: version, sets: gv.WithResource("machinesets"), machines: gv.WithResource("machines")}
	if served["machinedeployments"] {
		r := gv.WithResource("machinedeployments")
		out.deployments = &r
	}
	if served["machinepools"] {
		r := gv.WithResource("machinepools")
		out.pools = &r
	}
	return out, nil
}

func servesVersion(g *metav1.APIGroup, version string) bool {
	for _, v := range g.Versions {
		if v.Version == version {
			return true
		}
	}
	return false
}

// infraResolver finds the resource of an infrastructure template kind:
// the group's preferred version from discovery and, as Cluster API's
// contract wants, the lower-case kind plus "s".
type infraResolver struct {
	client dynamic.Interface
	dc     discovery.DiscoveryInterface

	mu       sync.Mutex
	versions map[string]string
}

func newInfraResolver(client dynamic.Interface, dc discovery.DiscoveryInterface) *infraResolver {
	return &infraResolver{client: client, dc: dc, versions: map[string]string{}}
}

// resource returns the GVR of a template kind; ref is either a v1beta2
// apiGroup or a v1beta1 apiVersion.
func (r *infraResolver) resource(apiGroup, apiVersion, kind string) (schema.GroupVersionResource, error) {
	plural := strings.ToLower(kind) + "s"
	if apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return schema.GroupVersionResource{}, fmt.Errorf("infrastructureRef.apiVersion %q: %w", apiVersion, err)
		}
		return gv.WithResource(plural), nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.versions[apiGroup]
	if !ok {
		groups, err := r.dc.ServerGroups()
		if err != nil {
			return schema.GroupVersionResource{}, fmt.Errorf("discovering API groups: %w", err)
		}
		for _, g := range groups.Groups {
			if g.Name == apiGroup {
				v = g.PreferredVersion.Version
			}
		}
		if v == "" {
			return schema.GroupVersionResource{}, fmt.Errorf("infrastructure API group %q is not served", apiGroup)
		}
		r.versions[apiGroup] = v
	}
	return schema.GroupVersionResource{Group: apiGroup, Version: v, Resource: plural}, nil
}
