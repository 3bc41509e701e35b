package externalgrpc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
)

func TestTemplateFromNode(t *testing.T) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Labels: map[string]string{"kubernetes.io/hostname": "tmpl",
			"node.kubernetes.io/instance-type": "big.metal", "kubernetes.io/arch": "arm64", "topology.kubernetes.io/zone": "z1",
			"topology.kubernetes.io/region": "r1", "team": "a"}},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7")}},
	}
	tm := externalgrpc.TemplateFromNode(n)
	it := tm.InstanceTypes[0]
	if it.Name != "big.metal" || it.Architecture != "arm64" || !it.Capacity.Cpu().Equal(resource.MustParse("7")) {
		t.Errorf("instance type = %+v, want big.metal arm64 with the allocatable 7 CPUs (no capacity given)", it)
	}
	if _, ok := tm.Tags[cloudprovider.TagLabelPrefix+"kubernetes.io/hostname"]; ok {
		t.Error("the hostname label became a template label")
	}
	if tm.Tags[cloudprovider.TagLabelPrefix+"team"] != "a" || tm.Zones[0] != "z1" || tm.Region != "r1" || len(tm.Taints) != 1 {
		t.Errorf("template = %+v", tm)
	}
}

// optionsClient answers NodeGroups and NodeGroupGetOptions only (the
// other methods of the embedded nil interface are never called).
type optionsClient struct {
	protos.CloudProviderClient
	opts *protos.NodeGroupAutoscalingOptions
}

func (c optionsClient) NodeGroups(context.Context, *protos.NodeGroupsRequest, ...grpc.CallOption) (*protos.NodeGroupsResponse, error) {
	return &protos.NodeGroupsResponse{NodeGroups: []*protos.NodeGroup{{Id: "g", MaxSize: 1}}}, nil
}

func (c optionsClient) NodeGroupTemplateNodeInfo(context.Context, *protos.NodeGroupTemplateNodeInfoRequest, ...grpc.CallOption) (*protos.NodeGroupTemplateNodeInfoResponse, error) {
	return &protos.NodeGroupTemplateNodeInfoResponse{}, nil
}

func (c optionsClient) NodeGroupGetOptions(context.Context, *protos.NodeGroupAutoscalingOptionsRequest, ...grpc.CallOption) (*protos.NodeGroupAutoscalingOptionsResponse, error) {
	return &protos.NodeGroupAutoscalingOptionsResponse{NodeGroupAutoscalingOptions: c.opts}, nil
}

func (c optionsClient) NodeGroupTargetSize(context.Context, *protos.NodeGroupTargetSizeRequest, ...grpc.CallOption) (*protos.NodeGroupTargetSizeResponse, error) {
	return &protos.NodeGroupTargetSizeResponse{}, nil
}

func (c optionsClient) Refresh(context.Context, *protos.RefreshRequest, ...grpc.CallOption) (*protos.RefreshResponse, error) {
	return &protos.RefreshResponse{}, nil
}

func TestOptions(t *testing.T) {
	defaults := externalgrpc.Defaults{ScaleDownUtilizationThreshold: 0.5, ScaleDownUnneededTime: 10 * time.Minute, MaxNodeProvisionTime: 15 * time.Minute}
	tests := []struct {
		name    string
		opts    *protos.NodeGroupAutoscalingOptions
		check   func(cloudprovider.Options) bool
		invalid string
	}{
		{"echoed defaults override nothing", &protos.NodeGroupAutoscalingOptions{ScaleDownUtilizationThreshold: 0.5,
			ScaleDownUnneededDuration: durationpb.New(10 * time.Minute), MaxNodeProvisionDuration: durationpb.New(15 * time.Minute)},
			func(o cloudprovider.Options) bool { return !o.Set() }, ""},
		{"changed values override", &protos.NodeGroupAutoscalingOptions{ScaleDownUtilizationThreshold: 0.2, IgnoreDaemonSetsUtilization: true,
			ScaleDownUnneededDuration: durationpb.New(time.Minute)},
			func(o cloudprovider.Options) bool {
				return *o.ScaleDownUtilizationThreshold == 0.2 && *o.IgnoreDaemonSetsUtilization && *o.ScaleDownUnneededTime == time.Minute &&
					o.MaxNodeProvisionTime == nil
			}, ""},
		{"zero-or-max scaling is carried", &protos.NodeGroupAutoscalingOptions{ScaleDownUtilizationThreshold: 0.5, ZeroOrMaxNodeScaling: true},
			func(o cloudprovider.Options) bool {
				return o.ZeroOrMaxNodeScaling && o.ScaleDownUtilizationThreshold == nil
			}, ""},
		{"out of range", &protos.NodeGroupAutoscalingOptions{ScaleDownUtilizationThreshold: 2},
			func(o cloudprovider.Options) bool { return !o.Set() }, "scaleDownUtilizationThreshold"},
		{"no options", nil, func(o cloudprovider.Options) bool { return !o.Set() }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := externalgrpc.New(externalgrpc.Config{Client: optionsClient{opts: tt.opts}, Defaults: defaults})
			if err != nil {
				t.Fatal(err)
			}
			groups, err := p.NodeGroups(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			g := groups[0]
			if !tt.check(g.Options) {
				t.Errorf("options = %+v", g.Options)
			}
			if (tt.invalid == "") != (g.OptionsInvalid == "") || !strings.Contains(g.OptionsInvalid, tt.invalid) {
				t.Errorf("invalid = %q, want one naming %q", g.OptionsInvalid, tt.invalid)
			}
			if g.Template.UnavailableReason == "" {
				t.Error("a template answer without a node: want the template unavailable")
			}
		})
	}
}
