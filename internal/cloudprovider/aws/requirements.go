package aws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/klog/v2"
)

// Attribute-based instance type selection: an ASG whose mixed-instances
// override or launch template carries InstanceRequirements instead of an
// instance type. The provider asks EC2 which types the requirements select
// for the launch template's image (GetInstanceTypesFromInstanceRequirements
// with the image's architecture and virtualization type, as upstream does)
// and gives the template all of them, so the autoscaler assumes the minimum
// of each resource, as for a listed set of types. Upstream takes the first
// selected type and overwrites its CPU and memory with the requirements'
// minimums.

// requirementsEntry caches the InstanceRequirements override of one
// mixed-instances group.
type requirementsEntry struct {
	req     *ec2types.InstanceRequirementsRequest
	err     error
	expires time.Time
}

// selectionEntry caches the types one set of requirements selects.
type selectionEntry struct {
	names   []string
	expires time.Time
}

// requestFrom converts the InstanceRequirements of the Auto Scaling API or
// of a launch template (EC2) into the request of
// GetInstanceTypesFromInstanceRequirements. The three SDK types share
// field names and shapes, so a JSON round trip converts them; a field the
// request type lacks is an error rather than a requirement silently
// dropped.
func requestFrom(req any) (*ec2types.InstanceRequirementsRequest, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("converting instance requirements: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var out ec2types.InstanceRequirementsRequest
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("converting instance requirements: %w", err)
	}
	return &out, nil
}

// fetchOverrideRequirements reads the InstanceRequirements overrides of
// the groups that have one and no unexpired cached copy. The fast
// DescribeAutoScalingGroups decoder records only that an override carries
// requirements, so these groups are described again, by name, through the
// SDK's complete deserializer.
func (p *Provider) fetchOverrideRequirements(ctx context.Context, groups map[string]*asg) {
	now := p.cfg.Clock.Now()
	var names []string
	for _, g := range groups {
		if e, ok := p.overrideReqs[g.name]; g.launch.requirements && (!ok || !now.Before(e.expires)) {
			names = append(names, g.name)
		}
	}
	slices.Sort(names)
	for start := 0; start < len(names); start += pageSize {
		batch := names[start:min(start+pageSize, len(names))]
		pages := autoscaling.NewDescribeAutoScalingGroupsPaginator(p.cfg.AutoScaling,
			&autoscaling.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: batch, MaxRecords: awssdk.Int32(pageSize)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				klog.FromContext(ctx).Error(err, "Describing the instance requirements of Auto Scaling groups failed", "names", batch)
				break
			}
			for _, a := range page.AutoScalingGroups {
				e := requirementsEntry{expires: now.Add(p.cfg.LaunchCacheTTL)}
				e.req, e.err = overrideRequest(a.MixedInstancesPolicy)
				p.overrideReqs[awssdk.ToString(a.AutoScalingGroupName)] = e
			}
		}
	}
}

// overrideRequest converts the first InstanceRequirements override of a
// mixed-instances policy; AWS allows one.
func overrideRequest(m *astypes.MixedInstancesPolicy) (*ec2types.InstanceRequirementsRequest, error) {
	if m != nil && m.LaunchTemplate != nil {
		for _, o := range m.LaunchTemplate.Overrides {
			if o.InstanceRequirements != nil {
				return requestFrom(o.InstanceRequirements)
			}
		}
	}
	return nil, errors.New("the mixed-instances policy no longer has an InstanceRequirements override")
}

// selectTypes returns the catalogue's types that requirements select for
// the image, cached for LaunchCacheTTL per image and requirements. Types
// the catalogue does not know are left out (logged); none left is an
// error.
func (p *Provider) selectTypes(ctx context.Context, imageID string, req *ec2types.InstanceRequirementsRequest) ([]string, error) {
	if imageID == "" {
		return nil, errors.New("attribute-based selection needs the launch template's image (its architecture), and the template names none")
	}
	keyData, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding instance requirements: %w", err)
	}
	key, now := imageID+"/"+string(keyData), p.cfg.Clock.Now()
	if e, ok := p.selections[key]; ok && now.Before(e.expires) {
		return e.names, nil
	}
	img, err := p.cfg.EC2.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: []string{imageID}})
	if err != nil {
		return nil, fmt.Errorf("describing image %s: %w", imageID, err)
	}
	if len(img.Images) == 0 {
		return nil, fmt.Errorf("image %s not found", imageID)
	}
	in := &ec2.GetInstanceTypesFromInstanceRequirementsInput{InstanceRequirements: req,
		ArchitectureTypes:   []ec2types.ArchitectureType{ec2types.ArchitectureType(img.Images[0].Architecture)},
		VirtualizationTypes: []ec2types.VirtualizationType{img.Images[0].VirtualizationType}}
	var names, unknown []string
	pages := ec2.NewGetInstanceTypesFromInstanceRequirementsPaginator(p.cfg.EC2, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing the instance types of the instance requirements: %w", err)
		}
		for _, t := range page.InstanceTypes {
			n := awssdk.ToString(t.InstanceType)
			switch _, known := p.catalogue.types[n]; {
			case !known:
				unknown = append(unknown, n)
			case !slices.Contains(names, n):
				names = append(names, n)
			}
		}
	}
	if len(unknown) > 0 {
		klog.FromContext(ctx).V(1).Info("Leaving out selected instance types the catalogue does not know", "image", imageID, "types", unknown)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("the instance requirements select no known instance type for image %s", imageID)
	}
	slices.Sort(names)
	p.selections[key] = selectionEntry{names: names, expires: now.Add(p.cfg.LaunchCacheTTL)}
	return names, nil
}
