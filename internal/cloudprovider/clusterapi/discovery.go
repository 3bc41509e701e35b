package clusterapi

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
)

// DiscoveryPrefix is the --node-group-auto-discovery prefix of this
// provider.
const DiscoveryPrefix = "clusterapi"

// DiscoverySpec is one --node-group-auto-discovery=clusterapi:... value:
// scalable resources in Namespace (any when empty) of cluster ClusterName
// (any when empty) whose labels match Selector.
type DiscoverySpec struct {
	// Namespace limits the spec to one namespace.
	Namespace string
	// ClusterName is matched against spec.clusterName, else the
	// <group>/cluster-name label.
	ClusterName string
	// Selector matches the scalable resource's labels.
	Selector labels.Selector
}

// ParseDiscoverySpec parses the part after "clusterapi:": comma-separated
// key=value items where namespace and clusterName are special and every
// other key is an equality label requirement.
func ParseDiscoverySpec(spec string) (DiscoverySpec, error) {
	kvs, err := nodegroupspec.KeyValues(spec)
	if err != nil {
		return DiscoverySpec{}, err
	}
	out := DiscoverySpec{Selector: labels.Everything()}
	set := labels.Set{}
	seen := map[string]bool{}
	for _, kv := range kvs {
		k, v := kv[0], kv[1]
		if seen[k] {
			return DiscoverySpec{}, fmt.Errorf("parsing %q: key %q is given twice", spec, k)
		}
		seen[k] = true
		switch k {
		case "namespace":
			if errs := validation.IsDNS1123Label(v); len(errs) > 0 {
				return DiscoverySpec{}, fmt.Errorf("parsing %q: namespace %q: %s", spec, v, strings.Join(errs, "; "))
			}
			out.Namespace = v
		case "clusterName":
			if errs := validation.IsDNS1123Subdomain(v); len(errs) > 0 {
				return DiscoverySpec{}, fmt.Errorf("parsing %q: clusterName %q: %s", spec, v, strings.Join(errs, "; "))
			}
			out.ClusterName = v
		default:
			if errs := validation.IsQualifiedName(k); len(errs) > 0 {
				return DiscoverySpec{}, fmt.Errorf("parsing %q: label key %q: %s", spec, k, strings.Join(errs, "; "))
			}
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				return DiscoverySpec{}, fmt.Errorf("parsing %q: label %q value %q: %s", spec, k, v, strings.Join(errs, "; "))
			}
			set[k] = v
		}
	}
	if len(set) > 0 {
		out.Selector = labels.SelectorFromSet(set)
	}
	return out, nil
}

// ParseDiscovery parses every --node-group-auto-discovery value; each must
// carry the clusterapi prefix.
func ParseDiscovery(values []string) ([]DiscoverySpec, error) {
	out := make([]DiscoverySpec, 0, len(values))
	for _, v := range values {
		d, err := nodegroupspec.ParseDiscovery(v, DiscoveryPrefix)
		if err != nil {
			return nil, err
		}
		s, err := ParseDiscoverySpec(d.Spec)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// matches reports whether a scalable resource fits the spec.
func (d DiscoverySpec) matches(r *scalable) bool {
	return (d.Namespace == "" || d.Namespace == r.namespace) &&
		(d.ClusterName == "" || d.ClusterName == r.clusterName) &&
		d.Selector.Matches(labels.Set(r.labels))
}

// listNamespace is the namespace the provider lists in: the one every spec
// names, else all (""). Upstream watches the first named namespace only,
// which hides the groups of a second spec in another namespace.
func listNamespace(specs []DiscoverySpec) string {
	if len(specs) == 0 {
		return ""
	}
	ns := specs[0].Namespace
	for _, s := range specs[1:] {
		if s.Namespace != ns {
			return ""
		}
	}
	return ns
}
