package aws

import (
	"fmt"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"

	"github.com/kscale/kscale/internal/cloudprovider/nodegroupspec"
)

// maxDiscoveryTags bounds the tags of one discovery spec; AWS accepts at
// most ten filters per DescribeAutoScalingGroups call.
const maxDiscoveryTags = 10

// TagMatch is one tag a discovered ASG must carry.
type TagMatch struct {
	// Key is the tag key.
	Key string
	// Value is the required value; empty matches any value.
	Value string
}

// Discovery is one --node-group-auto-discovery=asg:tag=... spec: an ASG
// is discovered when it carries every tag. Several specs are ORed.
type Discovery struct {
	// Tags must all match.
	Tags []TagMatch
}

// ParseDiscovery parses one --node-group-auto-discovery value in
// upstream's format: asg:tag=<k1>[=<v1>],<k2>[=<v2>]... An item without a
// value means "the tag is present".
func ParseDiscovery(s string) (Discovery, error) {
	d, err := nodegroupspec.ParseDiscovery(s, "asg")
	if err != nil {
		return Discovery{}, err
	}
	key, list, ok := strings.Cut(d.Spec, "=")
	if !ok || key != "tag" {
		return Discovery{}, fmt.Errorf("parsing %q: want asg:tag=<key>[=<value>],...; the only parameter is \"tag\"", s)
	}
	if list == "" {
		return Discovery{}, fmt.Errorf("parsing %q: tag: no tags given", s)
	}
	items := strings.Split(list, ",")
	if len(items) > maxDiscoveryTags {
		return Discovery{}, fmt.Errorf("parsing %q: tag: %d tags, at most %d", s, len(items), maxDiscoveryTags)
	}
	out := Discovery{Tags: make([]TagMatch, 0, len(items))}
	seen := map[string]bool{}
	for _, item := range items {
		k, v, _ := strings.Cut(item, "=")
		switch {
		case k == "":
			return Discovery{}, fmt.Errorf("parsing %q: tag: item %q has an empty key", s, item)
		case seen[k]:
			return Discovery{}, fmt.Errorf("parsing %q: tag: key %q is given twice", s, k)
		}
		seen[k] = true
		out.Tags = append(out.Tags, TagMatch{Key: k, Value: v})
	}
	return out, nil
}

// filters are the DescribeAutoScalingGroups filters of the spec (ANDed by
// AWS): tag:<key>=value for a value, tag-key=<key> for presence.
func (d Discovery) filters() []astypes.Filter {
	out := make([]astypes.Filter, 0, len(d.Tags))
	for _, t := range d.Tags {
		if t.Value != "" {
			out = append(out, astypes.Filter{Name: awssdk.String("tag:" + t.Key), Values: []string{t.Value}})
		} else {
			out = append(out, astypes.Filter{Name: awssdk.String("tag-key"), Values: []string{t.Key}})
		}
	}
	return out
}

// String is the spec in flag form.
func (d Discovery) String() string {
	parts := make([]string, len(d.Tags))
	for i, t := range d.Tags {
		parts[i] = t.Key
		if t.Value != "" {
			parts[i] += "=" + t.Value
		}
	}
	return "asg:tag=" + strings.Join(parts, ",")
}
