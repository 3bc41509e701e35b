package aws

import (
	"context"
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

	"github.com/kscale/kscale/internal/cloudprovider"
)

// launchConfigBatch is the DescribeLaunchConfigurations batch size.
const launchConfigBatch = 50

// launchRef is where an ASG's instance types come from, in upstream's
// order: mixed-instances overrides, the launch configuration, the launch
// template (of the mixed policy or the group).
type launchRef struct {
	overrides    []string
	requirements bool
	configName   string
	templateID   string
	templateName string
	version      string
}

// launchRefOf reads an ASG's launch source.
func launchRefOf(a *astypes.AutoScalingGroup) launchRef {
	var r launchRef
	spec := a.LaunchTemplate
	if m := a.MixedInstancesPolicy; m != nil && m.LaunchTemplate != nil {
		for _, o := range m.LaunchTemplate.Overrides {
			if t := awssdk.ToString(o.InstanceType); t != "" && !slices.Contains(r.overrides, t) {
				r.overrides = append(r.overrides, t)
			}
			if o.InstanceRequirements != nil {
				r.requirements = true
			}
		}
		if m.LaunchTemplate.LaunchTemplateSpecification != nil {
			spec = m.LaunchTemplate.LaunchTemplateSpecification
		}
	}
	r.configName = awssdk.ToString(a.LaunchConfigurationName)
	if spec != nil {
		r.templateID, r.templateName, r.version = awssdk.ToString(spec.LaunchTemplateId), awssdk.ToString(spec.LaunchTemplateName), awssdk.ToString(spec.Version)
		if r.version == "" {
			r.version = "$Default"
		}
	}
	return r
}

// cacheKey names the launch source in the cache; "" when the overrides
// alone give the types. A requirements override keys its template.
func (r launchRef) cacheKey() string {
	switch {
	case len(r.overrides) > 0:
		return ""
	case r.configName != "":
		return "lc/" + r.configName
	case r.templateID != "":
		return "lt-id/" + r.templateID + "/" + r.version
	case r.templateName != "":
		return "lt/" + r.templateName + "/" + r.version
	}
	return ""
}

// mutable reports whether the source can change under the same key: a
// template's $Default and $Latest versions can, numbered versions and
// launch configurations cannot.
func (r launchRef) mutable() bool {
	return r.configName == "" && (r.version == "$Default" || r.version == "$Latest")
}

// launchEntry caches one launch source's instance type, or the
// InstanceRequirements of a launch template that names none.
type launchEntry struct {
	instanceType string
	imageID      string
	requirements *ec2types.InstanceRequirementsRequest
	err          error
	expires      time.Time // zero: never
}

// resolveTemplates sets every group's instance types and template tags,
// reading the launch configurations and template versions not cached.
func (p *Provider) resolveTemplates(ctx context.Context, groups map[string]*asg) {
	logger := klog.FromContext(ctx)
	p.fetchLaunchConfigs(ctx, groups)
	p.fetchOverrideRequirements(ctx, groups)
	errs := make(map[string]string, len(groups))
	for _, g := range groups {
		var dropped []error
		g.templateTags, dropped = templateTags(g.tags, g.zones)
		for _, err := range dropped {
			logger.V(1).Info("Ignoring a node-template tag", "nodeGroup", g.name, "reason", err.Error())
		}
		p.applyManagedNodegroup(ctx, g)
		names, err := p.typeNames(ctx, g)
		if err == nil {
			g.types, err = p.lookupTypes(g.name, names)
		}
		msg := ""
		if err != nil {
			msg, g.types = err.Error(), nil
		}
		g.price = p.groupPrice(ctx, g)
		// Log a group's template error when it appears or changes, not
		// every refresh.
		if msg != p.templateErrs[g.name] {
			if err != nil {
				logger.Error(err, "Cannot build the template of a node group; it keeps its instances but cannot scale up", "nodeGroup", g.name)
			} else {
				logger.Info("Template of node group resolved", "nodeGroup", g.name)
			}
		}
		errs[g.name] = msg
	}
	p.templateErrs = errs
}

// typeNames returns the instance types of a group's launch source.
func (p *Provider) typeNames(ctx context.Context, g *asg) ([]string, error) {
	r := g.launch
	switch {
	case len(r.overrides) > 0 && r.requirements:
		return nil, errors.New("the mixed-instances policy has both instance types and instance requirements in its overrides")
	case len(r.overrides) > 0:
		return r.overrides, nil
	}
	key := r.cacheKey()
	if key == "" {
		return nil, errors.New("the group has neither a launch configuration nor a launch template")
	}
	e, err := p.launchSource(ctx, r, key)
	switch {
	case err != nil:
		return nil, err
	case r.requirements:
		o, ok := p.overrideReqs[g.name]
		if !ok {
			return nil, errors.New("the instance requirements of the mixed-instances policy could not be read")
		}
		if o.err != nil {
			return nil, o.err
		}
		return p.selectTypes(ctx, e.imageID, o.req)
	case e.requirements != nil:
		return p.selectTypes(ctx, e.imageID, e.requirements)
	}
	return []string{e.instanceType}, nil
}

// launchSource returns the cached entry of a launch source, reading a
// template version that is not cached or expired.
func (p *Provider) launchSource(ctx context.Context, r launchRef, key string) (launchEntry, error) {
	now := p.cfg.Clock.Now()
	e, ok := p.launches[key]
	if !ok || (!e.expires.IsZero() && !now.Before(e.expires)) {
		if r.configName != "" {
			return launchEntry{}, fmt.Errorf("launch configuration %q not found", r.configName)
		}
		e = p.fetchTemplateType(ctx, r)
		if r.mutable() {
			e.expires = now.Add(p.cfg.LaunchCacheTTL)
		}
		if e.err == nil {
			p.launches[key] = e
		}
	}
	return e, e.err
}

// fetchTemplateType reads a launch template version's instance type.
func (p *Provider) fetchTemplateType(ctx context.Context, r launchRef) launchEntry {
	in := &ec2.DescribeLaunchTemplateVersionsInput{Versions: []string{r.version}}
	what := r.templateName
	if r.templateID != "" {
		in.LaunchTemplateId, what = awssdk.String(r.templateID), r.templateID
	} else {
		in.LaunchTemplateName = awssdk.String(r.templateName)
	}
	out, err := p.cfg.EC2.DescribeLaunchTemplateVersions(ctx, in)
	if err != nil {
		return launchEntry{err: fmt.Errorf("describing launch template %s version %s: %w", what, r.version, err)}
	}
	if len(out.LaunchTemplateVersions) == 0 || out.LaunchTemplateVersions[0].LaunchTemplateData == nil {
		return launchEntry{err: fmt.Errorf("launch template %s version %s not found", what, r.version)}
	}
	data := out.LaunchTemplateVersions[0].LaunchTemplateData
	image := awssdk.ToString(data.ImageId)
	if t := string(data.InstanceType); t != "" {
		return launchEntry{instanceType: t, imageID: image}
	}
	if data.InstanceRequirements != nil {
		req, err := requestFrom(data.InstanceRequirements)
		return launchEntry{imageID: image, requirements: req, err: err}
	}
	if r.requirements {
		return launchEntry{imageID: image}
	}
	return launchEntry{err: fmt.Errorf("launch template %s version %s names no instance type", what, r.version)}
}

// fetchLaunchConfigs reads the launch configurations of the groups that
// are not cached, in batches; they never change, so they are kept.
func (p *Provider) fetchLaunchConfigs(ctx context.Context, groups map[string]*asg) {
	var missing []string
	for _, g := range groups {
		name := g.launch.configName
		if name == "" || len(g.launch.overrides) > 0 || g.launch.requirements {
			continue
		}
		if _, ok := p.launches["lc/"+name]; !ok && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	for start := 0; start < len(missing); start += launchConfigBatch {
		batch := missing[start:min(start+launchConfigBatch, len(missing))]
		pages := autoscaling.NewDescribeLaunchConfigurationsPaginator(p.cfg.AutoScaling,
			&autoscaling.DescribeLaunchConfigurationsInput{LaunchConfigurationNames: batch, MaxRecords: awssdk.Int32(launchConfigBatch)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				klog.FromContext(ctx).Error(err, "Describing launch configurations failed", "names", batch)
				break
			}
			for _, lc := range page.LaunchConfigurations {
				p.launches["lc/"+awssdk.ToString(lc.LaunchConfigurationName)] = launchEntry{instanceType: awssdk.ToString(lc.InstanceType)}
			}
		}
	}
}

// lookupTypes maps names to catalogue entries.
func (p *Provider) lookupTypes(group string, names []string) ([]cloudprovider.InstanceType, error) {
	out := make([]cloudprovider.InstanceType, 0, len(names))
	for _, n := range names {
		it, ok := p.catalogue.instanceType(n)
		if !ok {
			return nil, fmt.Errorf("ASG %q uses the unknown EC2 instance type %q", group, n)
		}
		out = append(out, it)
	}
	return out, nil
}
