package aws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// maxDescribeBody bounds one DescribeAutoScalingGroups page in memory;
// 100 groups with large instance lists stay far below it.
const maxDescribeBody = 64 << 20

// withFastGroupsDecoder makes a DescribeAutoScalingGroups call decode
// successful responses with decodeGroups instead of the SDK's generic
// XML deserializer, which BenchmarkAWSRefresh shows spending ~30 ms per
// page of 100 groups with 2,500 instances; errors still go through the
// SDK's deserializer. Only the fields the provider reads are filled.
func withFastGroupsDecoder(o *autoscaling.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		orig, ok := s.Deserialize.Get("OperationDeserializer")
		if !ok {
			return errors.New("fast DescribeAutoScalingGroups decoder: no OperationDeserializer in the stack")
		}
		_, err := s.Deserialize.Swap("OperationDeserializer", &groupsDecoder{orig: orig})
		return err
	})
}

// groupsDecoder is the swapped-in deserializer.
type groupsDecoder struct {
	orig middleware.DeserializeMiddleware
}

// ID is the replaced middleware's.
func (*groupsDecoder) ID() string { return "OperationDeserializer" }

// HandleDeserialize decodes a 2xx response itself and hands everything
// else to the SDK's deserializer.
func (d *groupsDecoder) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if err != nil || !ok || resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return d.orig.HandleDeserialize(ctx, in, replay{out: out, md: md, err: err})
	}
	result, err := decodeGroupsBody(resp.Body)
	smithyhttp.CloseResponseBody(ctx, resp, false, err)
	if err != nil {
		return out, md, &smithy.DeserializationError{Err: fmt.Errorf("failed to decode response body, %w", err)}
	}
	out.Result = result
	return out, md, nil
}

// replay hands an already received response to the SDK's deserializer.
type replay struct {
	out middleware.DeserializeOutput
	md  middleware.Metadata
	err error
}

func (r replay) HandleDeserialize(context.Context, middleware.DeserializeInput) (middleware.DeserializeOutput, middleware.Metadata, error) {
	return r.out, r.md, r.err
}

func decodeGroupsBody(body io.Reader) (*autoscaling.DescribeAutoScalingGroupsOutput, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxDescribeBody+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDescribeBody {
		return nil, fmt.Errorf("response larger than %d bytes", maxDescribeBody)
	}
	return decodeGroups(data)
}

// groupsParser fills a DescribeAutoScalingGroups result from the Query
// protocol's XML, element by element.
type groupsParser struct {
	out   autoscaling.DescribeAutoScalingGroupsOutput
	group *astypes.AutoScalingGroup
	inst  astypes.Instance
	tag   astypes.TagDescription
	ov    astypes.LaunchTemplateOverrides
}

// decodeGroups parses a DescribeAutoScalingGroups response document.
func decodeGroups(data []byte) (*autoscaling.DescribeAutoScalingGroupsOutput, error) {
	p := &groupsParser{}
	if err := walkXML(data, p.start, p.end); err != nil {
		return nil, err
	}
	return &p.out, nil
}

// groupPath reports the path below an AutoScalingGroups member, or false.
func groupPath(path [][]byte) ([][]byte, bool) {
	if len(path) < 4 || string(path[1]) != "DescribeAutoScalingGroupsResult" || string(path[2]) != "AutoScalingGroups" ||
		string(path[3]) != "member" {
		return nil, false
	}
	return path[4:], true
}

func is(rel [][]byte, names ...string) bool {
	if len(rel) != len(names) {
		return false
	}
	for i, n := range names {
		if string(rel[i]) != n {
			return false
		}
	}
	return true
}

func (p *groupsParser) start(path [][]byte) {
	rel, ok := groupPath(path)
	switch {
	case !ok:
	case len(rel) == 0:
		p.group = &astypes.AutoScalingGroup{}
	case is(rel, "Instances", "member"):
		p.inst = astypes.Instance{}
	case is(rel, "Tags", "member"):
		p.tag = astypes.TagDescription{}
	case is(rel, "LaunchTemplate"):
		p.group.LaunchTemplate = &astypes.LaunchTemplateSpecification{}
	case is(rel, "MixedInstancesPolicy"):
		p.group.MixedInstancesPolicy = &astypes.MixedInstancesPolicy{LaunchTemplate: &astypes.LaunchTemplate{}}
	case is(rel, "MixedInstancesPolicy", "LaunchTemplate", "LaunchTemplateSpecification"):
		p.group.MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification = &astypes.LaunchTemplateSpecification{}
	case is(rel, "MixedInstancesPolicy", "InstancesDistribution"):
		p.group.MixedInstancesPolicy.InstancesDistribution = &astypes.InstancesDistribution{}
	case is(rel, "MixedInstancesPolicy", "LaunchTemplate", "Overrides", "member"):
		p.ov = astypes.LaunchTemplateOverrides{}
	case is(rel, "MixedInstancesPolicy", "LaunchTemplate", "Overrides", "member", "InstanceRequirements"):
		p.ov.InstanceRequirements = &astypes.InstanceRequirements{}
	}
}

// end handles a closing element; text is its content when it had no
// child elements.
func (p *groupsParser) end(path [][]byte, text string) error {
	if len(path) == 3 && string(path[1]) == "DescribeAutoScalingGroupsResult" && string(path[2]) == "NextToken" {
		p.out.NextToken = awssdk.String(text)
		return nil
	}
	rel, ok := groupPath(path)
	if !ok {
		return nil
	}
	g := p.group
	switch {
	case len(rel) == 0:
		p.out.AutoScalingGroups = append(p.out.AutoScalingGroups, *g)
	case len(rel) == 1:
		return p.groupField(string(rel[0]), text)
	case is(rel, "AvailabilityZones", "member"):
		g.AvailabilityZones = append(g.AvailabilityZones, text)
	case is(rel, "Instances", "member"):
		g.Instances = append(g.Instances, p.inst)
	case len(rel) == 3 && is(rel[:2], "Instances", "member"):
		p.instanceField(string(rel[2]), text)
	case is(rel, "Tags", "member"):
		g.Tags = append(g.Tags, p.tag)
	case is(rel, "Tags", "member", "Key"):
		p.tag.Key = awssdk.String(text)
	case is(rel, "Tags", "member", "Value"):
		p.tag.Value = awssdk.String(text)
	case len(rel) == 2 && is(rel[:1], "LaunchTemplate"):
		specField(g.LaunchTemplate, string(rel[1]), text)
	case len(rel) == 4 && is(rel[:3], "MixedInstancesPolicy", "LaunchTemplate", "LaunchTemplateSpecification"):
		specField(g.MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification, string(rel[3]), text)
	case is(rel, "MixedInstancesPolicy", "LaunchTemplate", "Overrides", "member"):
		lt := g.MixedInstancesPolicy.LaunchTemplate
		lt.Overrides = append(lt.Overrides, p.ov)
	case is(rel, "MixedInstancesPolicy", "LaunchTemplate", "Overrides", "member", "InstanceType"):
		p.ov.InstanceType = awssdk.String(text)
	case len(rel) == 3 && is(rel[:2], "MixedInstancesPolicy", "InstancesDistribution"):
		return distributionField(g.MixedInstancesPolicy.InstancesDistribution, string(rel[2]), text)
	}
	return nil
}

func (p *groupsParser) groupField(name, text string) error {
	g := p.group
	switch name {
	case "AutoScalingGroupName":
		g.AutoScalingGroupName = awssdk.String(text)
	case "LaunchConfigurationName":
		g.LaunchConfigurationName = awssdk.String(text)
	case "MinSize", "MaxSize", "DesiredCapacity":
		n, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer", name, text)
		}
		v := awssdk.Int32(int32(n))
		switch name {
		case "MinSize":
			g.MinSize = v
		case "MaxSize":
			g.MaxSize = v
		default:
			g.DesiredCapacity = v
		}
	}
	return nil
}

func (p *groupsParser) instanceField(name, text string) {
	switch name {
	case "InstanceId":
		p.inst.InstanceId = awssdk.String(text)
	case "AvailabilityZone":
		p.inst.AvailabilityZone = awssdk.String(text)
	case "LifecycleState":
		p.inst.LifecycleState = astypes.LifecycleState(text)
	case "InstanceType":
		p.inst.InstanceType = awssdk.String(text)
	}
}

func specField(s *astypes.LaunchTemplateSpecification, name, text string) {
	switch name {
	case "LaunchTemplateId":
		s.LaunchTemplateId = awssdk.String(text)
	case "LaunchTemplateName":
		s.LaunchTemplateName = awssdk.String(text)
	case "Version":
		s.Version = awssdk.String(text)
	}
}

// distributionField reads the on-demand counts of an instances
// distribution (what tells spot groups apart).
func distributionField(d *astypes.InstancesDistribution, name, text string) error {
	if name != "OnDemandBaseCapacity" && name != "OnDemandPercentageAboveBaseCapacity" {
		return nil
	}
	n, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		return fmt.Errorf("%s: %q is not an integer", name, text)
	}
	if name == "OnDemandBaseCapacity" {
		d.OnDemandBaseCapacity = awssdk.Int32(int32(n))
	} else {
		d.OnDemandPercentageAboveBaseCapacity = awssdk.Int32(int32(n))
	}
	return nil
}
