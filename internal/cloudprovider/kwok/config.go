package kwok

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/scenario"
)

// DefaultBootTime is a group's boot time when its entry sets none, the same
// as in scenario files.
const DefaultBootTime = 2 * time.Minute

// CloudConfig is the --cloud-config file of the kwok provider: the node
// groups, written exactly like the nodeGroups section of a scenario file.
type CloudConfig struct {
	// NodeGroups are the groups of the kwok cloud.
	NodeGroups []scenario.NodeGroup `yaml:"nodeGroups"`
}

// ParseCloudConfig decodes and validates a cloud config file. Unknown
// fields, bad values and duplicate groups are errors naming the group and
// field.
func ParseCloudConfig(data []byte) (*CloudConfig, error) {
	if err := configMapHint(data); err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil && len(root.Content) > 0 {
		if err := scenario.WholeNumbers(root.Content[0], CloudConfig{}); err != nil {
			return nil, fmt.Errorf("parsing kwok cloud config: %w", err)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c CloudConfig
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("parsing kwok cloud config: empty file, want a nodeGroups list")
		}
		return nil, fmt.Errorf("parsing kwok cloud config: %w", err)
	}
	if len(c.NodeGroups) == 0 {
		return nil, errors.New("parsing kwok cloud config: nodeGroups: at least one group is required")
	}
	seen := map[string]bool{}
	var errs []error
	for i, g := range c.NodeGroups {
		if seen[g.Name] {
			errs = append(errs, fmt.Errorf("nodeGroups[%d].name: %q defined twice", i, g.Name))
		}
		seen[g.Name] = true
		if g.Unmanaged {
			errs = append(errs, fmt.Errorf("nodeGroups[%d].unmanaged: only scenario files have unmanaged groups; a cloud's groups are its managed ones", i))
		}
		if _, err := groupConfig(g); err != nil {
			errs = append(errs, fmt.Errorf("nodeGroups[%d]: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("parsing kwok cloud config: %w", err)
	}
	return &c, nil
}

// groupConfig turns a node group entry into the in-memory cloud's config.
func groupConfig(g scenario.NodeGroup) (inmemory.GroupConfig, error) {
	cfg := inmemory.GroupConfig{ID: g.Name, MinSize: g.Min, MaxSize: g.Max, TargetSize: g.InitialTarget(),
		BootTime: DefaultBootTime, Capacity: inmemory.Unlimited}
	if errs := validation.IsDNS1123Subdomain(g.Name); len(errs) > 0 {
		return cfg, fmt.Errorf("name: %q is not a valid name: %v", g.Name, errs)
	}
	if g.Max == 0 {
		return cfg, fmt.Errorf("group %q: max: must be set and positive", g.Name)
	}
	if g.Min < 0 || g.Min > g.Max {
		return cfg, fmt.Errorf("group %q: min: need 0 <= min (%d) <= max (%d)", g.Name, g.Min, g.Max)
	}
	if g.Target != 0 && g.Target < g.Min || g.Target > g.Max {
		return cfg, fmt.Errorf("group %q: target: %d outside [min %d, max %d] (without target the group starts at min)", g.Name, g.Target, g.Min, g.Max)
	}
	tmpl, err := groupTemplate(g)
	if err != nil {
		return cfg, err
	}
	cfg.Template = tmpl
	// The group's own autoscaling options, as the offline world applies
	// them (the snapshot fidelity test found them ignored here).
	if cfg.Options, err = scenario.GroupOptions(g); err != nil {
		return cfg, fmt.Errorf("group %q: %w", g.Name, err)
	}
	if g.BootTime != nil {
		if g.BootTime.Duration < 0 {
			return cfg, fmt.Errorf("group %q: bootTime: must not be negative", g.Name)
		}
		cfg.BootTime = g.BootTime.Duration
	}
	if g.Capacity != nil {
		cfg.Capacity = g.Capacity.Limit
	}
	if e := g.StockoutError; e != nil {
		info := cloudprovider.ErrorInfo{Class: cloudprovider.ErrorClass(e.Class), Code: e.Code, Message: e.Message}
		if info.Class == "" {
			info.Class = cloudprovider.ErrorOutOfResources
		}
		if info.Code == "" {
			info.Code = "Failed"
		}
		cfg.StockoutError = &info
	}
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// groupTemplate describes a group's instances by the cluster-autoscaler tag
// convention.
func groupTemplate(g scenario.NodeGroup) (cloudprovider.Template, error) {
	t := cloudprovider.Template{Tags: map[string]string{}, PricePerHour: g.PricePerHour}
	if (len(g.InstanceTypes) == 0) == (len(g.Resources) == 0) {
		return t, fmt.Errorf("group %q: set exactly one of instanceTypes and resources", g.Name)
	}
	for _, name := range g.InstanceTypes {
		it, err := inmemory.LookupInstanceType(name)
		if err != nil {
			return t, fmt.Errorf("group %q: instanceTypes: %w", g.Name, err)
		}
		t.InstanceTypes = append(t.InstanceTypes, it)
	}
	if len(g.Resources) > 0 {
		capacity := g.Resources.List()
		if capacity.Cpu().IsZero() || capacity.Memory().IsZero() {
			return t, fmt.Errorf("group %q: resources: need cpu and memory", g.Name)
		}
		if _, ok := capacity[corev1.ResourcePods]; !ok {
			capacity[corev1.ResourcePods] = resource.MustParse(inmemory.DefaultMaxPods)
		}
		name := fmt.Sprintf("custom-%dm-%dMi", capacity.Cpu().MilliValue(), capacity.Memory().Value()>>20)
		t.InstanceTypes = append(t.InstanceTypes, cloudprovider.InstanceType{Name: name, Capacity: capacity})
	}
	if g.Zone != "" {
		t.Zones = []string{g.Zone}
	}
	for k, v := range g.Labels {
		t.Tags[cloudprovider.TagLabelPrefix+k] = v
	}
	for _, taint := range g.Taints.Value {
		t.Tags[cloudprovider.TagTaintPrefix+taint.Key] = taint.Value + ":" + string(taint.Effect)
	}
	return t, nil
}

// configMapKey is the key of the example ConfigMap that holds the cloud
// config (deploy/node-autoscaler/cloud-config.yaml).
const configMapKey = "cloud-config.yaml"

// configMapHint recognises a ConfigMap manifest passed where its content
// belongs and says which key to use.
func configMapHint(data []byte) error {
	var head struct {
		Kind string         `yaml:"kind"`
		Data map[string]any `yaml:"data"`
	}
	if yaml.Unmarshal(data, &head) != nil || head.Kind != "ConfigMap" {
		return nil
	}
	if _, ok := head.Data[configMapKey]; ok {
		return fmt.Errorf("parsing kwok cloud config: this file is a ConfigMap manifest; --cloud-config wants the content of its %q key "+
			"(the Deployment mounts that key as a file)", configMapKey)
	}
	return errors.New("parsing kwok cloud config: this file is a ConfigMap manifest; --cloud-config wants a file with a nodeGroups list")
}
