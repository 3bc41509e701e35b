package inmemory

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/yamlstrict"
)

// DefaultBootTime is a group's boot time when its entry sets none.
const DefaultBootTime = 2 * time.Minute

// MaxPricePerHour bounds an instance's price, so costs stay finite.
const MaxPricePerHour = 1e6

// NodeGroupEntry is one node group as YAML files write it: an entry of a
// scenario file's nodeGroups list and of the kwok provider's cloud config.
// GroupConfig is its one conversion to the in-memory cloud's group, and
// Problems its one validation; both readers honour every field.
type NodeGroupEntry struct {
	// Name is the group id.
	Name string `yaml:"name"`
	// Min is the minimum size (default 0).
	Min int `yaml:"min"`
	// Max is the maximum size.
	Max int `yaml:"max"`
	// Target is the initial target size; the group starts with at least
	// its min size and its initial nodes (InitialTarget).
	Target int `yaml:"target"`
	// InstanceTypes names built-in catalog types; several mean a mixed group.
	InstanceTypes []string `yaml:"instanceTypes"`
	// Resources defines one inline instance type instead of InstanceTypes.
	Resources yamlstrict.Resources `yaml:"resources"`
	// Reserved is what the kubelet reserves on real nodes
	// (allocatable = capacity - reserved); the autoscaler must learn it.
	Reserved yamlstrict.Resources `yaml:"reserved"`
	// Zone is the group's availability zone.
	Zone string `yaml:"zone"`
	// Labels are template node labels (provider tags).
	Labels map[string]string `yaml:"labels"`
	// Taints are template node taints (provider tags).
	Taints yamlstrict.K8s[[]corev1.Taint] `yaml:"taints"`
	// BootTime is how long an instance takes from request to a ready node
	// (default DefaultBootTime).
	BootTime *yamlstrict.Duration `yaml:"bootTime"`
	// DeleteTime is how long a deleted instance stays "deleting" before
	// it is gone (default 0: at once). Its node stays registered until
	// then, as a cloud controller removes a node only once its instance
	// is gone.
	DeleteTime *yamlstrict.Duration `yaml:"deleteTime"`
	// Capacity is how many more instances the cloud can deliver.
	Capacity *yamlstrict.Capacity `yaml:"capacity"`
	// StockoutError is reported on waiting placeholders once capacity ran
	// out; without it the autoscaler only notices by timeout.
	StockoutError *CloudError `yaml:"stockoutError"`
	// RealNodes says how the group's registered nodes differ from its
	// template; the autoscaler is not told.
	RealNodes *RealNodes `yaml:"realNodes"`
	// AutoscalingOptions are the group's own values of the settings a
	// provider lets a group override, by upstream's keys
	// (scaledownunneededtime, scaledownutilizationthreshold, ...), as the
	// clusterapi annotations or AWS tags carry them.
	AutoscalingOptions map[string]string `yaml:"autoscalingOptions"`
	// Unmanaged makes the group's nodes nodes of no node group: the cloud
	// does not report the group, so the autoscaler neither adds nor
	// removes its nodes and scale-down finds them not autoscaled. It
	// holds nodes that run outside the autoscaler's groups (control-plane
	// nodes, hand-made ones); its size stays its initial nodes. Scenario
	// files only (the offline world hides the group); a kwok cloud config
	// refuses it.
	Unmanaged bool `yaml:"unmanaged"`
	// PricePerHour is what one of the group's instances costs per hour,
	// in any currency: the group's template price (the price expander)
	// and the report's cost per group.
	PricePerHour float64 `yaml:"pricePerHour"`
}

// EntryProblem is one invalid field of an entry.
type EntryProblem struct {
	// Path leads from the entry to the field (map keys and list indices),
	// for a reader that reports line numbers.
	Path []any
	// Msg says what is wrong, naming the field.
	Msg string
}

// InitialTarget is the target size a group starts with, before its
// initial nodes are counted: the written target, raised to the min size
// as a cloud keeps a group's desired size at least at its minimum.
func (g NodeGroupEntry) InitialTarget() int { return max(g.Target, g.Min) }

// Problems validates the entry and returns every invalid field.
func (g NodeGroupEntry) Problems() []EntryProblem {
	var out []EntryProblem
	fail := func(cond bool, path []any, format string, args ...any) {
		if cond {
			out = append(out, EntryProblem{Path: path, Msg: fmt.Sprintf(format, args...)})
		}
	}
	at := func(p ...any) []any { return p }
	fail(len(validation.IsDNS1123Subdomain(g.Name)) > 0, at("name"), "name: %q is not a valid name (lowercase letters, digits, '-', '.')", g.Name)
	fail(g.Min < 0 || g.Max < g.Min, at("min"), "min: need 0 <= min (%d) <= max (%d)", g.Min, g.Max)
	fail(g.Max == 0, at("max"), "max: must be set and positive")
	fail(g.Target != 0 && g.Target < g.Min || g.Target > g.Max, at("target"), "target: %d outside [min %d, max %d] (without target the group starts at min)", g.Target, g.Min, g.Max)
	fail((len(g.InstanceTypes) == 0) == (len(g.Resources) == 0), nil, "instanceTypes, resources: set exactly one of them")
	for _, it := range g.InstanceTypes {
		_, err := LookupInstanceType(it)
		fail(err != nil, at("instanceTypes"), "instanceTypes: %v", err)
	}
	if len(g.Resources) > 0 {
		_, cpu := g.Resources[corev1.ResourceCPU]
		_, mem := g.Resources[corev1.ResourceMemory]
		fail(!cpu || !mem, at("resources"), "resources: need cpu and memory")
	}
	fail(g.BootTime != nil && g.BootTime.Duration < 0, at("bootTime"), "bootTime: must not be negative")
	fail(g.DeleteTime != nil && g.DeleteTime.Duration < 0, at("deleteTime"), "deleteTime: must not be negative")
	fail(!(g.PricePerHour >= 0 && g.PricePerHour <= MaxPricePerHour), at("pricePerHour"),
		"pricePerHour: must be a number from 0 to %g, got %v", float64(MaxPricePerHour), g.PricePerHour)
	out = append(out, prefixed("stockoutError", g.StockoutError.Problems())...)
	out = append(out, prefixed("realNodes", g.RealNodes.Problems())...)
	_, err := g.Options()
	fail(err != nil, at("autoscalingOptions"), "autoscalingOptions: %v", err)
	return out
}

// prefixed puts field in front of every problem's path.
func prefixed(field string, ps []EntryProblem) []EntryProblem {
	for i := range ps {
		ps[i].Path = append([]any{field}, ps[i].Path...)
	}
	return ps
}

// Options parses the entry's autoscalingOptions.
func (g NodeGroupEntry) Options() (cloudprovider.Options, error) {
	values := make([]cloudprovider.OptionValue, 0, len(g.AutoscalingOptions))
	for _, k := range slices.Sorted(maps.Keys(g.AutoscalingOptions)) {
		values = append(values, cloudprovider.OptionValue{Key: k, Source: "autoscalingOptions." + k, Value: g.AutoscalingOptions[k]})
	}
	o, err := cloudprovider.ParseOptions(g.Name, values, cloudprovider.AllOptions)
	if err != nil {
		var oe *cloudprovider.OptionsError
		if errors.As(err, &oe) {
			return o, errors.New(strings.Join(oe.Problems, "; "))
		}
	}
	return o, err
}

// GroupConfig converts a valid entry into the cloud's group config. The
// group starts at min size 0 and target 0: its reader adds the initial
// nodes, then raises the target to InitialTarget and applies Min.
func (g NodeGroupEntry) GroupConfig() (GroupConfig, error) {
	if ps := g.Problems(); len(ps) > 0 {
		return GroupConfig{}, fmt.Errorf("node group %q: %s", g.Name, ps[0].Msg)
	}
	cfg := GroupConfig{ID: g.Name, MaxSize: g.Max, BootTime: DefaultBootTime, Capacity: Unlimited}
	tmpl, err := TemplateOf(TemplateSpec{Group: g.Name, InstanceTypes: g.InstanceTypes, Resources: g.Resources.List(),
		Zone: g.Zone, Labels: g.Labels, Taints: g.Taints.Value})
	if err != nil {
		return cfg, err
	}
	cfg.Template = tmpl
	cfg.Template.PricePerHour = g.PricePerHour
	if cfg.Options, err = g.Options(); err != nil {
		return cfg, fmt.Errorf("node group %q: autoscalingOptions: %w", g.Name, err)
	}
	if g.BootTime != nil {
		cfg.BootTime = g.BootTime.Duration
	}
	if g.DeleteTime != nil {
		cfg.DeleteTime = g.DeleteTime.Duration
	}
	if g.Capacity != nil {
		cfg.Capacity = g.Capacity.Limit
	}
	if e := g.StockoutError; e != nil {
		info := e.Info(cloudprovider.ErrorOutOfResources)
		cfg.StockoutError = &info
	}
	cfg.Default()
	return cfg, cfg.Validate()
}
