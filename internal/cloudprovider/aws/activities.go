package aws

import (
	"context"
	"regexp"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// scaleUp tracks the scaling activities of a group that is short of
// instances: activities up to the reference are history, and the newest
// failed or cancelled one after it becomes the placeholders' error.
type scaleUp struct {
	refTime time.Time
	refID   string
	failed  *cloudprovider.ErrorInfo
}

// outOfResources are message fragments of capacity and quota failures
// (lower case); AWS reports them only through scaling activities.
var outOfResources = []string{
	"insufficientinstancecapacity", "insufficientcapacity", "no spot capacity", "unfulfillablecapacity",
	"max spot instance count exceeded", "maxspotinstancecountexceeded", "instancelimitexceeded", "instance limit",
	"vcpulimitexceeded", "vcpu limit", "volumelimitexceeded",
}

// sufficientCapacity matches the on-demand stock-out text ("We currently do
// not have sufficient m5.xlarge capacity in the Availability Zone ...").
var sufficientCapacity = regexp.MustCompile(`(?i)sufficient\s+\S*\s*capacity`)

// Classify returns the error class of a failed activity's status message:
// out-of-resources for capacity, spot and quota failures, other otherwise.
func Classify(message string) cloudprovider.ErrorClass {
	lower := strings.ToLower(message)
	for _, f := range outOfResources {
		if strings.Contains(lower, f) {
			return cloudprovider.ErrorOutOfResources
		}
	}
	if sufficientCapacity.MatchString(message) {
		return cloudprovider.ErrorOutOfResources
	}
	return cloudprovider.ErrorOther
}

// newestFailure walks activities newest first down to the reference (its
// id, or anything that started before its time) and returns the first
// Failed or Cancelled one, or nil.
func newestFailure(acts []astypes.Activity, refTime time.Time, refID string) *astypes.Activity {
	for i := range acts {
		a := &acts[i]
		if refID != "" && awssdk.ToString(a.ActivityId) == refID {
			return nil
		}
		if start := awssdk.ToTime(a.StartTime); start.Before(refTime) {
			return nil
		}
		if a.StatusCode == astypes.ScalingActivityStatusCodeFailed || a.StatusCode == astypes.ScalingActivityStatusCodeCancelled {
			return a
		}
	}
	return nil
}

// failureOf is the placeholders' error for a failed activity.
func failureOf(a *astypes.Activity) *cloudprovider.ErrorInfo {
	msg := awssdk.ToString(a.StatusMessage)
	if msg == "" {
		msg = awssdk.ToString(a.Description)
	}
	return &cloudprovider.ErrorInfo{Class: Classify(msg), Code: string(a.StatusCode), Message: msg}
}

// checkActivities forgets the tracking of groups that are no longer short
// (or gone), starts it for newly short groups at their newest activity,
// and reads the activities of tracked groups for new failures. A failed
// call keeps the group's state, as if it had no news.
func (p *Provider) checkActivities(ctx context.Context) {
	if p.cfg.UpstreamScalingActivities {
		p.checkActivitiesUpstream(ctx)
		return
	}
	for name := range p.scaleUps {
		if g := p.groups[name]; g == nil || !g.short() {
			delete(p.scaleUps, name)
		}
	}
	for _, g := range p.groups {
		if !g.short() {
			continue
		}
		s := p.scaleUps[g.name]
		if s == nil {
			p.scaleUps[g.name] = p.reference(ctx, g.name)
			continue
		}
		acts, err := p.activities(ctx, g.name, 0)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Reading scaling activities failed", "nodeGroup", g.name)
			continue
		}
		a := newestFailure(acts, s.refTime, s.refID)
		if a == nil {
			continue
		}
		f := failureOf(a)
		if s.failed == nil || s.failed.Message != f.Message {
			klog.FromContext(ctx).Info("Scaling activity failed", "nodeGroup", g.name, "status", f.Code, "message", f.Message, "class", f.Class)
		}
		s.failed, s.refTime, s.refID = f, awssdk.ToTime(a.StartTime), awssdk.ToString(a.ActivityId)
	}
}

// reference starts tracking a group at its newest activity, so that
// history is not taken for a failure of this scale-up. When the call fails
// the reference is the local time.
func (p *Provider) reference(ctx context.Context, group string) *scaleUp {
	acts, err := p.activities(ctx, group, 1)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reading scaling activities failed", "nodeGroup", group)
		return &scaleUp{refTime: p.cfg.Clock.Now()}
	}
	if len(acts) == 0 {
		return &scaleUp{}
	}
	return &scaleUp{refTime: awssdk.ToTime(acts[0].StartTime), refID: awssdk.ToString(acts[0].ActivityId)}
}

// activities reads the first page of a group's activities (newest first);
// limit 0 takes AWS's default page.
func (p *Provider) activities(ctx context.Context, group string, limit int32) ([]astypes.Activity, error) {
	in := &autoscaling.DescribeScalingActivitiesInput{AutoScalingGroupName: awssdk.String(group)}
	if limit > 0 {
		in.MaxRecords = awssdk.Int32(limit)
	}
	out, err := p.cfg.AutoScaling.DescribeScalingActivities(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.Activities, nil
}

// upstreamFailureCode and upstreamFailureMessage are what upstream's
// placeholders of an unavailable group report.
const (
	upstreamFailureCode    = "placeholder-cannot-be-fulfilled"
	upstreamFailureMessage = "AWS cannot provision any more instances for this node group"
)

// checkActivitiesUpstream applies upstream 1.36's rule on every refresh: a
// short group is unavailable while the first page of its activities holds
// a Failed one that started no earlier than the provider's last
// SetDesiredCapacity of the group (any Failed one on the page when this
// process never set it); Cancelled ones never count. Nothing is carried
// between refreshes, and a failed call leaves the group available.
func (p *Provider) checkActivitiesUpstream(ctx context.Context) {
	clear(p.scaleUps)
	for _, g := range p.groups {
		if !g.short() {
			continue
		}
		acts, err := p.activities(ctx, g.name, 0)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Reading scaling activities failed", "nodeGroup", g.name)
			continue
		}
		if a := upstreamFailure(acts, p.lastSet[g.name]); a != nil {
			klog.FromContext(ctx).Info("Scaling activity failed", "nodeGroup", g.name, "status", a.StatusCode,
				"description", awssdk.ToString(a.Description), "class", cloudprovider.ErrorOutOfResources)
			p.scaleUps[g.name] = &scaleUp{failed: &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOutOfResources,
				Code: upstreamFailureCode, Message: upstreamFailureMessage}}
		}
	}
}

// upstreamFailure walks activities newest first until one started before
// since and returns the first Failed one, or nil.
func upstreamFailure(acts []astypes.Activity, since time.Time) *astypes.Activity {
	for i := range acts {
		a := &acts[i]
		if awssdk.ToTime(a.StartTime).Before(since) {
			return nil
		}
		if a.StatusCode == astypes.ScalingActivityStatusCodeFailed {
			return a
		}
	}
	return nil
}
