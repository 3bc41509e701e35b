package kwok

import (
	"bytes"
	"errors"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/yamlstrict"
)

// CloudConfig is the --cloud-config file of the kwok provider: the node
// groups, written exactly like the nodeGroups section of a scenario file
// (inmemory.NodeGroupEntry). Every field of an entry is honoured: the
// template, bounds, boot time, capacity and stock-out error shape the
// cloud, autoscalingOptions the group's own options, pricePerHour its
// template price, reserved and realNodes the nodes the provider registers.
type CloudConfig struct {
	// NodeGroups are the groups of the kwok cloud.
	NodeGroups []inmemory.NodeGroupEntry `yaml:"nodeGroups"`
}

// ParseCloudConfig decodes and validates a cloud config file. Unknown
// fields, bad values and duplicate groups are errors naming the line,
// group and field.
func ParseCloudConfig(data []byte) (*CloudConfig, error) {
	if err := configMapHint(data); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("parsing kwok cloud config: empty file, want a nodeGroups list")
	}
	var c CloudConfig
	root, err := yamlstrict.DecodeStrict(data, &c)
	if err != nil {
		return nil, fmt.Errorf("parsing kwok cloud config: %w", err)
	}
	if len(c.NodeGroups) == 0 {
		return nil, errors.New("parsing kwok cloud config: nodeGroups: at least one group is required")
	}
	seen := map[string]bool{}
	var errs []error
	for i, g := range c.NodeGroups {
		at := []any{"nodeGroups", i}
		if seen[g.Name] {
			errs = append(errs, &yamlstrict.ParseError{Line: yamlstrict.Line(root, append(at, "name")...),
				Msg: fmt.Sprintf("nodeGroups[%d].name: %q defined twice", i, g.Name)})
		}
		seen[g.Name] = true
		if g.Unmanaged {
			errs = append(errs, &yamlstrict.ParseError{Line: yamlstrict.Line(root, append(at, "unmanaged")...),
				Msg: fmt.Sprintf("nodeGroups[%d] (%q): unmanaged: only scenario files have unmanaged groups; a cloud's groups are its managed ones", i, g.Name)})
		}
		for _, pr := range g.Problems() {
			errs = append(errs, &yamlstrict.ParseError{Line: yamlstrict.Line(root, append(at, pr.Path...)...),
				Msg: fmt.Sprintf("nodeGroups[%d] (%q): %s", i, g.Name, pr.Msg)})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("parsing kwok cloud config: %w", err)
	}
	return &c, nil
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
