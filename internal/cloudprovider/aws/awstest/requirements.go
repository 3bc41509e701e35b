package awstest

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
)

// moto 5.2.1 answers GetInstanceTypesFromInstanceRequirements with HTTP
// 500, so the proxy answers it from the provider's built-in instance type
// table. It emulates the requirements kscale's tests use and refuses any
// other with an error, so a test cannot pass on a requirement that was
// silently ignored.

// requirementsPrefix starts the request's requirement parameters.
const requirementsPrefix = "InstanceRequirements."

// typeFilter is one parsed request.
type typeFilter struct {
	arch                      map[string]bool // kubernetes.io/arch values
	cpu, memMiB, accel        [2]int64        // min, max; max -1 = none
	allowed, excluded         []string        // name patterns
	burstable, bareMetal      string          // included, excluded, required
	hasAllowed, hasAccelRange bool
}

// parseTypeFilter reads the Query-protocol form of a request.
func parseTypeFilter(form url.Values) (*typeFilter, error) {
	f := &typeFilter{arch: map[string]bool{}, cpu: [2]int64{0, -1}, memMiB: [2]int64{0, -1}, accel: [2]int64{0, -1},
		burstable: "excluded", bareMetal: "excluded"}
	for k, vs := range form {
		v := vs[0]
		switch {
		case strings.HasPrefix(k, "ArchitectureType."):
			f.arch[map[string]string{"x86_64": "amd64", "arm64": "arm64"}[v]] = true
		case k == "Action" || k == "Version" || strings.HasPrefix(k, "VirtualizationType.") || k == "NextToken" || k == "MaxResults":
		case strings.HasPrefix(k, requirementsPrefix):
			if err := f.requirement(strings.TrimPrefix(k, requirementsPrefix), v); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("parameter %s is not emulated", k)
		}
	}
	return f, nil
}

// requirement reads one InstanceRequirements parameter.
func (f *typeFilter) requirement(k, v string) error {
	bound := func(r *[2]int64, i int) error {
		n, err := strconv.ParseInt(v, 10, 64)
		r[i] = n
		return err
	}
	switch {
	case k == "VCpuCount.Min":
		return bound(&f.cpu, 0)
	case k == "VCpuCount.Max":
		return bound(&f.cpu, 1)
	case k == "MemoryMiB.Min":
		return bound(&f.memMiB, 0)
	case k == "MemoryMiB.Max":
		return bound(&f.memMiB, 1)
	case k == "AcceleratorCount.Min":
		f.hasAccelRange = true
		return bound(&f.accel, 0)
	case k == "AcceleratorCount.Max":
		f.hasAccelRange = true
		return bound(&f.accel, 1)
	case strings.HasPrefix(k, "AllowedInstanceType."):
		f.allowed, f.hasAllowed = append(f.allowed, v), true
	case strings.HasPrefix(k, "ExcludedInstanceType."):
		f.excluded = append(f.excluded, v)
	case k == "BurstablePerformance":
		f.burstable = v
	case k == "BareMetal":
		f.bareMetal = v
	default:
		return fmt.Errorf("requirement %s is not emulated", k)
	}
	return nil
}

// selects reports whether a type of the table meets the filter.
func (f *typeFilter) selects(it cloudprovider.InstanceType) bool {
	arch := it.Architecture
	if arch == "" {
		arch = "amd64"
	}
	in := func(r [2]int64, n int64) bool { return n >= r[0] && (r[1] < 0 || n <= r[1]) }
	cpu, mem, gpu := it.Capacity.Cpu().Value(), it.Capacity.Memory().Value()>>20, it.Capacity.Name(aws.ResourceGPU, "").Value()
	return f.arch[arch] && in(f.cpu, cpu) && in(f.memMiB, mem) && (!f.hasAccelRange || in(f.accel, gpu)) &&
		(!f.hasAllowed || matchesAny(f.allowed, it.Name)) && !matchesAny(f.excluded, it.Name) &&
		allowedBy(f.burstable, strings.HasPrefix(it.Name, "t")) && allowedBy(f.bareMetal, strings.HasSuffix(it.Name, ".metal"))
}

// allowedBy applies an included/excluded/required setting to a property.
func allowedBy(setting string, has bool) bool {
	switch setting {
	case "excluded":
		return !has
	case "required":
		return has
	}
	return true
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// instanceTypesFromRequirements answers the call from the built-in table,
// in one page.
func (p *Proxy) instanceTypesFromRequirements(w http.ResponseWriter, form url.Values) {
	f, err := parseTypeFilter(form)
	if err != nil {
		writeError(w, http.StatusBadRequest, "InvalidParameterValue", "kscale test proxy: "+err.Error())
		return
	}
	type item struct {
		InstanceType string `xml:"instanceType"`
	}
	type response struct {
		XMLName   xml.Name `xml:"GetInstanceTypesFromInstanceRequirementsResponse"`
		Xmlns     string   `xml:"xmlns,attr"`
		RequestID string   `xml:"requestId"`
		Types     []item   `xml:"instanceTypeSet>item"`
	}
	out := response{Xmlns: "http://ec2.amazonaws.com/doc/2016-11-15/", RequestID: "kscale-proxy"}
	for _, it := range aws.StaticInstanceTypes() {
		if f.selects(it) {
			out.Types = append(out.Types, item{InstanceType: it.Name})
		}
	}
	writeXML(w, http.StatusOK, out)
}
