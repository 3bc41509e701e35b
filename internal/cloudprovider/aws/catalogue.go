package aws

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider"
)

//go:generate go run gen_instance_types.go -out instance_types.csv

// staticInstanceTypes is the generated table (gen_instance_types.go):
// name,vcpus,memoryMiB,gpus,architecture per line.
//
//go:embed instance_types.csv
var staticInstanceTypes []byte

// ResourceGPU is the GPU resource name of AWS templates.
const ResourceGPU corev1.ResourceName = "nvidia.com/gpu"

// maxPods is the pod capacity of every template, as upstream's.
const maxPods = 110

// typeInfo is one catalogue entry.
type typeInfo struct {
	vcpus, memoryMiB, gpus int64
	arch                   string
}

// parseCatalogue parses the static table; every line must be valid.
func parseCatalogue(data []byte) (map[string]typeInfo, error) {
	out := map[string]typeInfo{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, ",")
		if len(f) != 5 {
			return nil, fmt.Errorf("instance type table line %d: want 5 fields, got %d", line, len(f))
		}
		var nums [3]int64
		for i := range nums {
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("instance type table line %d: field %d %q is not a count", line, i+2, f[i+1])
			}
			nums[i] = n
		}
		out[f[0]] = typeInfo{vcpus: nums[0], memoryMiB: nums[1], gpus: nums[2], arch: f[4]}
	}
	return out, sc.Err()
}

// staticCatalogue parses the embedded table once; it is never modified.
var staticCatalogue = sync.OnceValues(func() (map[string]typeInfo, error) { return parseCatalogue(staticInstanceTypes) })

// catalogue resolves instance type names to capacities: the region's
// types from DescribeInstanceTypes, with the static table filling what
// the API did not return.
type catalogue struct {
	types map[string]typeInfo
}

// loadCatalogue builds the catalogue; with useAPI it reads every page of
// DescribeInstanceTypes, and an API failure falls back to the static table
// (returned as the second value for the caller to log).
func loadCatalogue(ctx context.Context, api EC2API, useAPI bool) (*catalogue, error, error) {
	static, err := staticCatalogue()
	if err != nil {
		return nil, nil, err
	}
	c := &catalogue{types: make(map[string]typeInfo, len(static))}
	for k, v := range static {
		c.types[k] = v
	}
	if !useAPI {
		return c, nil, nil
	}
	p := ec2.NewDescribeInstanceTypesPaginator(api, &ec2.DescribeInstanceTypesInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return c, fmt.Errorf("describing instance types (using the static table): %w", err), nil
		}
		for _, it := range page.InstanceTypes {
			if name, info, ok := typeInfoOf(it); ok {
				c.types[name] = info
			}
		}
	}
	return c, nil, nil
}

// typeInfoOf reads one DescribeInstanceTypes entry as upstream does:
// default vCPUs, memory, the sum of GPU counts, and arm64 when the first
// supported architecture is arm64 (amd64 otherwise).
func typeInfoOf(it ec2types.InstanceTypeInfo) (string, typeInfo, bool) {
	if it.VCpuInfo == nil || it.VCpuInfo.DefaultVCpus == nil || it.MemoryInfo == nil || it.MemoryInfo.SizeInMiB == nil {
		return "", typeInfo{}, false
	}
	info := typeInfo{vcpus: int64(*it.VCpuInfo.DefaultVCpus), memoryMiB: *it.MemoryInfo.SizeInMiB, arch: "amd64"}
	if it.GpuInfo != nil {
		for _, g := range it.GpuInfo.Gpus {
			if g.Count != nil {
				info.gpus += int64(*g.Count)
			}
		}
	}
	if it.ProcessorInfo != nil && len(it.ProcessorInfo.SupportedArchitectures) > 0 &&
		it.ProcessorInfo.SupportedArchitectures[0] == ec2types.ArchitectureTypeArm64 {
		info.arch = "arm64"
	}
	return string(it.InstanceType), info, true
}

// instanceType is the contract's view of a named type.
func (c *catalogue) instanceType(name string) (cloudprovider.InstanceType, bool) {
	info, ok := c.types[name]
	if !ok {
		return cloudprovider.InstanceType{}, false
	}
	return cloudprovider.InstanceType{Name: name, Architecture: info.arch, Capacity: corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(info.vcpus, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(info.memoryMiB<<20, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(maxPods, resource.DecimalSI),
		ResourceGPU:           *resource.NewQuantity(info.gpus, resource.DecimalSI),
	}}, true
}

// StaticInstanceType returns a type of the built-in table as the provider
// reports it (capacity with 110 pods and the GPU count, architecture).
func StaticInstanceType(name string) (cloudprovider.InstanceType, bool) {
	static, err := staticCatalogue()
	if err != nil {
		return cloudprovider.InstanceType{}, false
	}
	return (&catalogue{types: static}).instanceType(name)
}

// StaticInstanceTypes returns every type of the built-in table as the
// provider reports it, sorted by name.
func StaticInstanceTypes() []cloudprovider.InstanceType {
	static, err := staticCatalogue()
	if err != nil {
		return nil
	}
	c := &catalogue{types: static}
	out := make([]cloudprovider.InstanceType, 0, len(static))
	for _, n := range slices.Sorted(maps.Keys(static)) {
		it, _ := c.instanceType(n)
		out = append(out, it)
	}
	return out
}
