package inmemory

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// catalogEntry is one built-in instance type: vCPUs, memory and GPUs.
type catalogEntry struct {
	cpu    string
	memory string
	gpu    string
}

// catalog holds a small AWS-like set of instance types, enough for
// realistic scenarios. Memory is what the cloud advertises.
var catalog = map[string]catalogEntry{
	"m5.large":     {"2", "8Gi", ""},
	"m5.xlarge":    {"4", "16Gi", ""},
	"m5.2xlarge":   {"8", "32Gi", ""},
	"m5.4xlarge":   {"16", "64Gi", ""},
	"m5.8xlarge":   {"32", "128Gi", ""},
	"c5.large":     {"2", "4Gi", ""},
	"c5.xlarge":    {"4", "8Gi", ""},
	"c5.2xlarge":   {"8", "16Gi", ""},
	"c5.4xlarge":   {"16", "32Gi", ""},
	"c4.xlarge":    {"4", "7680Mi", ""},
	"r4.large":     {"2", "15616Mi", ""},
	"r5.large":     {"2", "16Gi", ""},
	"r5.xlarge":    {"4", "32Gi", ""},
	"r5.2xlarge":   {"8", "64Gi", ""},
	"r5.4xlarge":   {"16", "128Gi", ""},
	"p2.xlarge":    {"4", "62464Mi", "1"},
	"p2.8xlarge":   {"32", "499712Mi", "8"},
	"p2.16xlarge":  {"64", "732Gi", "16"},
	"g4dn.xlarge":  {"4", "16Gi", "1"},
	"g4dn.2xlarge": {"8", "32Gi", "1"},
}

// ResourceGPU is the extended resource name the catalog uses for GPUs.
const ResourceGPU corev1.ResourceName = "nvidia.com/gpu"

// DefaultMaxPods is the pod capacity of every catalog type.
const DefaultMaxPods = "110"

// LookupInstanceType returns the built-in instance type with the given name.
func LookupInstanceType(name string) (cloudprovider.InstanceType, error) {
	e, ok := catalog[name]
	if !ok {
		return cloudprovider.InstanceType{}, fmt.Errorf("unknown instance type %q (known: %s)",
			name, strings.Join(InstanceTypeNames(), ", "))
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(e.cpu),
		corev1.ResourceMemory:           resource.MustParse(e.memory),
		corev1.ResourcePods:             resource.MustParse(DefaultMaxPods),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	if e.gpu != "" {
		capacity[ResourceGPU] = resource.MustParse(e.gpu)
	}
	return cloudprovider.InstanceType{Name: name, Capacity: capacity}, nil
}

// InstanceTypeNames lists the catalog's type names, sorted.
func InstanceTypeNames() []string {
	names := make([]string, 0, len(catalog))
	for n := range catalog {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
