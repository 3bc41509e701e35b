package externalgrpc

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
)

// Well-known labels of the server's template node that name the instance
// type, zone, region and architecture.
const (
	labelInstanceType = "node.kubernetes.io/instance-type"
	labelZone         = "topology.kubernetes.io/zone"
	labelRegion       = "topology.kubernetes.io/region"
	labelArch         = "kubernetes.io/arch"
	// labelHostname names one node; kscale names its template nodes itself.
	labelHostname = "kubernetes.io/hostname"
)

// template reads a group's template node, priced with Config.Prices. A
// server that does not implement the call, or answers without a node,
// leaves the group without a template (it grows only from a copy of a
// live node).
func (p *Provider) template(ctx context.Context, id string) (cloudprovider.Template, error) {
	resp, err := call(ctx, p, "NodeGroupTemplateNodeInfo", id, p.cfg.Client.NodeGroupTemplateNodeInfo,
		&protos.NodeGroupTemplateNodeInfoRequest{Id: id})
	switch {
	case unimplemented(err):
		return cloudprovider.Template{UnavailableReason: "the external gRPC cloud provider does not implement NodeGroupTemplateNodeInfo"}, nil
	case err != nil:
		return cloudprovider.Template{}, err
	case len(resp.GetNodeBytes()) == 0:
		return cloudprovider.Template{UnavailableReason: "the external gRPC cloud provider returned no template node"}, nil
	}
	var node corev1.Node
	if err := node.Unmarshal(resp.GetNodeBytes()); err != nil {
		return cloudprovider.Template{UnavailableReason: fmt.Sprintf("decoding the template node of the external gRPC cloud provider: %v", err)}, nil
	}
	t := TemplateFromNode(&node)
	if p.cfg.Prices {
		t.PricePerHour = p.nodePrice(ctx, id, &node)
	}
	return t, nil
}

// TemplateFromNode turns a template node into a provider template: its
// capacity (allocatable when it has no capacity), every label but the
// hostname as a label tag, its taints, and the instance type, zone, region and architecture
// from their well-known labels.
func TemplateFromNode(n *corev1.Node) cloudprovider.Template {
	capacity := n.Status.Capacity
	if len(capacity) == 0 {
		capacity = n.Status.Allocatable
	}
	t := cloudprovider.Template{
		InstanceTypes: []cloudprovider.InstanceType{{Name: n.Labels[labelInstanceType], Capacity: capacity.DeepCopy(),
			Architecture: n.Labels[labelArch]}},
		Region: n.Labels[labelRegion],
		Tags:   map[string]string{},
	}
	if z := n.Labels[labelZone]; z != "" {
		t.Zones = []string{z}
	}
	for k, v := range n.Labels {
		if k != labelHostname {
			t.Tags[cloudprovider.TagLabelPrefix+k] = v
		}
	}
	t.Taints = append(t.Taints, n.Spec.Taints...)
	return t
}

// options asks for a group's own options, sending the global ones as
// defaults; a value equal to its default keeps the global flag. A server
// that does not implement the call gives the group none.
func (p *Provider) options(ctx context.Context, id string) (cloudprovider.Options, string, error) {
	d := p.cfg.Defaults
	defaults := &protos.NodeGroupAutoscalingOptions{
		ScaleDownUtilizationThreshold:    d.ScaleDownUtilizationThreshold,
		ScaleDownGpuUtilizationThreshold: d.ScaleDownGPUUtilizationThreshold,
		ScaleDownUnneededDuration:        durationpb.New(d.ScaleDownUnneededTime),
		ScaleDownUnreadyDuration:         durationpb.New(d.ScaleDownUnreadyTime),
		MaxNodeProvisionDuration:         durationpb.New(d.MaxNodeProvisionTime),
		IgnoreDaemonSetsUtilization:      d.IgnoreDaemonSetsUtilization,
	}
	resp, err := call(ctx, p, "NodeGroupGetOptions", id, p.cfg.Client.NodeGroupGetOptions,
		&protos.NodeGroupAutoscalingOptionsRequest{Id: id, Defaults: defaults})
	switch {
	case unimplemented(err):
		return cloudprovider.Options{}, "", nil
	case err != nil:
		return cloudprovider.Options{}, "", err
	}
	o, invalid := cloudprovider.GroupOptions(id, optionValues(resp.GetNodeGroupAutoscalingOptions(), d), supportedOptions)
	return o, invalid, nil
}

// supportedOptions are the option keys the protocol carries and kscale
// honours.
var supportedOptions = []string{cloudprovider.OptionScaleDownUtilizationThreshold, cloudprovider.OptionScaleDownGPUUtilizationThreshold,
	cloudprovider.OptionScaleDownUnneededTime, cloudprovider.OptionScaleDownUnreadyTime, cloudprovider.OptionMaxNodeProvisionTime,
	cloudprovider.OptionIgnoreDaemonSetsUtilization, cloudprovider.OptionZeroOrMaxNodeScaling}

// optionValues lists the fields of a response that differ from their
// defaults; a duration the server leaves unset keeps its default.
// zeroOrMaxNodeScaling has no global default: it is listed when true.
func optionValues(o *protos.NodeGroupAutoscalingOptions, d Defaults) []cloudprovider.OptionValue {
	if o == nil {
		return nil
	}
	var out []cloudprovider.OptionValue
	add := func(key, field, value string, differs bool) {
		if differs {
			out = append(out, cloudprovider.OptionValue{Key: key, Source: "NodeGroupGetOptions " + field, Value: value})
		}
	}
	float := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	dur := func(key, field string, v *durationpb.Duration, def time.Duration) {
		add(key, field, v.AsDuration().String(), v != nil && v.AsDuration() != def)
	}
	add(cloudprovider.OptionScaleDownUtilizationThreshold, "scaleDownUtilizationThreshold", float(o.GetScaleDownUtilizationThreshold()),
		o.GetScaleDownUtilizationThreshold() != d.ScaleDownUtilizationThreshold)
	add(cloudprovider.OptionScaleDownGPUUtilizationThreshold, "scaleDownGpuUtilizationThreshold", float(o.GetScaleDownGpuUtilizationThreshold()),
		o.GetScaleDownGpuUtilizationThreshold() != d.ScaleDownGPUUtilizationThreshold)
	dur(cloudprovider.OptionScaleDownUnneededTime, "scaleDownUnneededDuration", o.GetScaleDownUnneededDuration(), d.ScaleDownUnneededTime)
	dur(cloudprovider.OptionScaleDownUnreadyTime, "scaleDownUnreadyDuration", o.GetScaleDownUnreadyDuration(), d.ScaleDownUnreadyTime)
	dur(cloudprovider.OptionMaxNodeProvisionTime, "MaxNodeProvisionDuration", o.GetMaxNodeProvisionDuration(), d.MaxNodeProvisionTime)
	add(cloudprovider.OptionIgnoreDaemonSetsUtilization, "ignoreDaemonSetsUtilization", strconv.FormatBool(o.GetIgnoreDaemonSetsUtilization()),
		o.GetIgnoreDaemonSetsUtilization() != d.IgnoreDaemonSetsUtilization)
	add(cloudprovider.OptionZeroOrMaxNodeScaling, "zeroOrMaxNodeScaling", "true", o.GetZeroOrMaxNodeScaling())
	return out
}
