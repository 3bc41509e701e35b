package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// IncreaseSize raises the group's desired capacity by delta with
// SetDesiredCapacity (HonorCooldown false). Before the first raise of a
// group that is not short yet it takes the newest scaling activity as the
// reference, so only activities of this scale-up can fail it.
func (p *Provider) IncreaseSize(ctx context.Context, groupID string, delta int) error {
	if delta <= 0 {
		return fmt.Errorf("increasing node group %q: delta %d must be positive", groupID, delta)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	g, err := p.group(groupID)
	if err != nil {
		return err
	}
	size := g.desired + delta
	if size > g.max {
		return &cloudprovider.SizeError{Group: groupID, Requested: size, Limit: g.max, Bound: cloudprovider.BoundAboveMax}
	}
	if p.scaleUps[groupID] == nil {
		p.scaleUps[groupID] = p.reference(ctx, groupID)
	}
	if err := p.setDesired(ctx, "IncreaseSize", g, size); err != nil {
		return err
	}
	return nil
}

// DecreaseTargetSize lowers the desired capacity by delta without
// terminating anything; it never goes below the group's instances that
// are not terminating (placeholders do not count).
func (p *Provider) DecreaseTargetSize(ctx context.Context, groupID string, delta int) error {
	if delta <= 0 {
		return fmt.Errorf("decreasing node group %q: delta %d must be positive", groupID, delta)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	g, err := p.group(groupID)
	if err != nil {
		return err
	}
	size := g.desired - delta
	if size < g.live() {
		return &cloudprovider.SizeError{Group: groupID, Requested: size, Limit: g.live(), Bound: cloudprovider.BoundBelowInstances}
	}
	return p.setDesired(ctx, "DecreaseTargetSize", g, size)
}

// DeleteInstances removes instances of the group: placeholders lower the
// desired capacity by their number (one SetDesiredCapacity), real
// instances are terminated one by one with
// TerminateInstanceInAutoScalingGroup(ShouldDecrementDesiredCapacity
// true); instances already terminating are skipped. It refuses to go below
// the group's min size. The next Refresh
// describes the groups again.
func (p *Provider) DeleteInstances(ctx context.Context, groupID string, ids []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	g, err := p.group(groupID)
	if err != nil {
		return err
	}
	var placeholders int
	var real []int
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if i := slices.IndexFunc(g.instances, func(in instance) bool { return in.id == id }); i >= 0 {
			if g.instances[i].state != cloudprovider.InstanceDeleting {
				real = append(real, i)
			}
			continue
		}
		if !isPlaceholder(g, id) {
			return &cloudprovider.NotFoundError{Kind: "instance", Name: id}
		}
		placeholders++
	}
	if g.desired-placeholders-len(real) < g.min {
		return &cloudprovider.SizeError{Group: groupID, Requested: g.desired - placeholders - len(real), Limit: g.min, Bound: cloudprovider.BoundBelowMin}
	}
	p.stale = true
	if placeholders > 0 {
		if err := p.setDesired(ctx, "DeleteInstances", g, g.desired-placeholders); err != nil {
			return err
		}
	}
	var errs []error
	for _, i := range real {
		in := &g.instances[i]
		_, err := p.cfg.AutoScaling.TerminateInstanceInAutoScalingGroup(ctx, &autoscaling.TerminateInstanceInAutoScalingGroupInput{
			InstanceId: awssdk.String(in.id), ShouldDecrementDesiredCapacity: awssdk.Bool(true)})
		if err != nil {
			errs = append(errs, fmt.Errorf("terminating %s: %w", in.id, err))
			continue
		}
		in.state = cloudprovider.InstanceDeleting
		g.desired--
		klog.FromContext(ctx).V(1).Info("Terminating instance", "nodeGroup", groupID, "instance", in.id)
	}
	if err := errors.Join(errs...); err != nil {
		return &cloudprovider.APIError{Op: "DeleteInstances", Group: groupID, Err: err}
	}
	return nil
}

// isPlaceholder reports whether id is one of the group's current
// placeholders.
func isPlaceholder(g *asg, id string) bool {
	rest, ok := strings.CutPrefix(id, placeholderPrefix+g.name+"-")
	if !ok {
		return false
	}
	for i := g.live(); i < g.desired; i++ {
		if rest == fmt.Sprint(i) {
			return true
		}
	}
	return false
}

func (p *Provider) group(id string) (*asg, error) {
	g, ok := p.groups[id]
	if !ok {
		return nil, &cloudprovider.NotFoundError{Kind: "node group", Name: id}
	}
	return g, nil
}

// setDesired calls SetDesiredCapacity and records the new size.
func (p *Provider) setDesired(ctx context.Context, op string, g *asg, size int) error {
	_, err := p.cfg.AutoScaling.SetDesiredCapacity(ctx, &autoscaling.SetDesiredCapacityInput{
		AutoScalingGroupName: awssdk.String(g.name), DesiredCapacity: awssdk.Int32(int32(size)), HonorCooldown: awssdk.Bool(false)})
	if err != nil {
		return &cloudprovider.APIError{Op: op, Group: g.name, Err: err}
	}
	klog.FromContext(ctx).V(1).Info("Set desired capacity", "nodeGroup", g.name, "from", g.desired, "to", size)
	g.desired = size
	return nil
}
