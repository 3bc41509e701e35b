package aws

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// EKS managed node groups: EKS tags the ASGs it creates for a managed node
// group with eks:cluster-name and eks:nodegroup-name, which the eks: tag
// rule turns into the template labels cluster-name and nodegroup-name. A
// group whose template has both is read with EKS DescribeNodegroup, as
// upstream does: the node group's labels (and diskSize, amiType,
// eks.amazonaws.com/capacityType, k8sVersion, eks.amazonaws.com/nodegroup)
// override the ASG's label tags, its taints are added, and its
// node-template resource tags override the ASG's.

// Template labels that mark an EKS managed node group.
const (
	labelNodegroupName = "nodegroup-name"
	labelClusterName   = "cluster-name"
)

// DefaultEKSCacheTTL is how long a DescribeNodegroup result is reused, as
// upstream's managed node group cache (without its 5–60 s jitter).
const DefaultEKSCacheTTL = 6 * time.Minute

// nodegroupEntry caches what one managed node group adds to a template.
type nodegroupEntry struct {
	labels  map[string]string
	taints  []corev1.Taint
	tags    map[string]string
	expires time.Time
}

// applyManagedNodegroup adds a managed node group's labels, taints and
// resource tags to the template of g; a failed lookup is logged and leaves
// the template as the ASG's tags make it.
func (p *Provider) applyManagedNodegroup(ctx context.Context, g *asg) {
	name, cluster := g.templateTags[cloudprovider.TagLabelPrefix+labelNodegroupName], g.templateTags[cloudprovider.TagLabelPrefix+labelClusterName]
	if name == "" || cluster == "" {
		return
	}
	e, err := p.nodegroup(ctx, cluster, name)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reading the EKS managed node group failed; its labels and taints are missing from the template",
			"nodeGroup", g.name, "cluster", cluster, "eksNodegroup", name)
		return
	}
	for k, v := range e.labels {
		g.templateTags[cloudprovider.TagLabelPrefix+k] = v
	}
	for k, v := range e.tags {
		if strings.HasPrefix(k, cloudprovider.TagResourcePrefix) && checkTemplateTag(k, v) == nil {
			g.templateTags[k] = v
		}
	}
	g.taints = append(g.taints[:0:0], e.taints...)
}

// nodegroup returns the cached or freshly described node group.
func (p *Provider) nodegroup(ctx context.Context, cluster, name string) (nodegroupEntry, error) {
	key, now := cluster+"/"+name, p.cfg.Clock.Now()
	if e, ok := p.nodegroups[key]; ok && now.Before(e.expires) {
		return e, nil
	}
	out, err := p.cfg.EKS.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: awssdk.String(cluster), NodegroupName: awssdk.String(name)})
	if err != nil {
		return nodegroupEntry{}, fmt.Errorf("describing EKS node group %s of cluster %s: %w", name, cluster, err)
	}
	if out.Nodegroup == nil {
		return nodegroupEntry{}, fmt.Errorf("describing EKS node group %s of cluster %s: empty reply", name, cluster)
	}
	e, err := nodegroupOf(out.Nodegroup)
	if err != nil {
		return nodegroupEntry{}, fmt.Errorf("EKS node group %s of cluster %s: %w", name, cluster, err)
	}
	e.expires = now.Add(p.cfg.EKSCacheTTL)
	p.nodegroups[key] = e
	return e, nil
}

// nodegroupOf reads the labels, taints and tags of a described node group
// as upstream's getManagedNodegroupInfo does.
func nodegroupOf(ng *ekstypes.Nodegroup) (nodegroupEntry, error) {
	e := nodegroupEntry{labels: map[string]string{}, tags: maps.Clone(ng.Tags)}
	if ng.DiskSize != nil {
		e.labels["diskSize"] = strconv.Itoa(int(*ng.DiskSize))
	}
	if ng.AmiType != "" {
		e.labels["amiType"] = string(ng.AmiType)
	}
	if ng.CapacityType != "" {
		e.labels["eks.amazonaws.com/capacityType"] = string(ng.CapacityType)
	}
	if v := awssdk.ToString(ng.Version); v != "" {
		e.labels["k8sVersion"] = v
	}
	if n := awssdk.ToString(ng.NodegroupName); n != "" {
		e.labels["eks.amazonaws.com/nodegroup"] = n
	}
	maps.Copy(e.labels, ng.Labels)
	for _, t := range ng.Taints {
		if t.Key == nil {
			continue
		}
		effect, err := taintEffect(t.Effect)
		if err != nil {
			return nodegroupEntry{}, fmt.Errorf("taint %q: %w", awssdk.ToString(t.Key), err)
		}
		e.taints = append(e.taints, corev1.Taint{Key: *t.Key, Value: awssdk.ToString(t.Value), Effect: effect})
	}
	return e, nil
}

// taintEffect maps EKS's taint effect names to Kubernetes'.
func taintEffect(e ekstypes.TaintEffect) (corev1.TaintEffect, error) {
	switch e {
	case ekstypes.TaintEffectNoSchedule:
		return corev1.TaintEffectNoSchedule, nil
	case ekstypes.TaintEffectNoExecute:
		return corev1.TaintEffectNoExecute, nil
	case ekstypes.TaintEffectPreferNoSchedule:
		return corev1.TaintEffectPreferNoSchedule, nil
	}
	return "", fmt.Errorf("unknown effect %q", e)
}
