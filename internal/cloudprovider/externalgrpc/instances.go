package externalgrpc

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// Error classes of InstanceErrorInfo.instanceErrorClass (upstream's
// cloudprovider.InstanceErrorClass values).
const (
	errorClassOutOfResources = 1
	errorClassOther          = 99
)

// Instances lists a group's instances from NodeGroupNodes, with one
// placeholder per unit of target size no live instance fills yet.
func (p *Provider) Instances(ctx context.Context, groupID string) ([]cloudprovider.Instance, error) {
	if _, err := p.group(ctx, groupID); err != nil {
		return nil, err
	}
	resp, err := call(ctx, p, "NodeGroupNodes", groupID, p.cfg.Client.NodeGroupNodes, &protos.NodeGroupNodesRequest{Id: groupID})
	if err != nil {
		return nil, err
	}
	target, err := p.targetSize(ctx, groupID)
	if err != nil {
		return nil, err
	}
	out := make([]cloudprovider.Instance, 0, len(resp.GetInstances()))
	live := 0
	for _, in := range resp.GetInstances() {
		inst := instance(in)
		if inst.State != cloudprovider.InstanceDeleting {
			live++
		}
		out = append(out, inst)
	}
	return append(out, machineapi.Placeholders(placeholderPrefix, groupID, target, live)...), nil
}

// instance converts one listed instance; an unspecified state counts as
// running (upstream leaves the status nil).
func instance(in *protos.Instance) cloudprovider.Instance {
	inst := cloudprovider.Instance{ID: in.GetId(), ProviderID: in.GetId(), State: cloudprovider.InstanceRunning}
	st := in.GetStatus()
	switch st.GetInstanceState() {
	case protos.InstanceStatus_instanceCreating:
		inst.State = cloudprovider.InstanceCreating
	case protos.InstanceStatus_instanceDeleting:
		inst.State = cloudprovider.InstanceDeleting
	}
	if e := st.GetErrorInfo(); e.GetErrorCode() != "" && inst.State == cloudprovider.InstanceCreating {
		class := cloudprovider.ErrorOther
		if e.GetInstanceErrorClass() == errorClassOutOfResources {
			class = cloudprovider.ErrorOutOfResources
		}
		inst.Error = &cloudprovider.ErrorInfo{Class: class, Code: e.GetErrorCode(), Message: e.GetErrorMessage()}
	}
	return inst
}

// IncreaseSize checks the group's maximum and asks the server for delta
// more nodes.
func (p *Provider) IncreaseSize(ctx context.Context, groupID string, delta int) error {
	c, err := p.group(ctx, groupID)
	if err != nil {
		return err
	}
	if delta <= 0 {
		return fmt.Errorf("increasing node group %q: delta must be positive, got %d", groupID, delta)
	}
	target, err := p.targetSize(ctx, groupID)
	if err != nil {
		return err
	}
	if maxSize := int(c.group.GetMaxSize()); target+delta > maxSize {
		return &cloudprovider.SizeError{Group: groupID, Requested: target + delta, Limit: maxSize, Bound: cloudprovider.BoundAboveMax}
	}
	_, err = call(ctx, p, "NodeGroupIncreaseSize", groupID, p.cfg.Client.NodeGroupIncreaseSize,
		&protos.NodeGroupIncreaseSizeRequest{Id: groupID, Delta: int32(delta)})
	return err
}

// DecreaseTargetSize lowers the target by delta unless that would drop
// below the live instances; the protocol's delta is negative.
func (p *Provider) DecreaseTargetSize(ctx context.Context, groupID string, delta int) error {
	if delta <= 0 {
		return fmt.Errorf("decreasing node group %q: delta must be positive, got %d", groupID, delta)
	}
	insts, err := p.Instances(ctx, groupID)
	if err != nil {
		return err
	}
	target, live := 0, 0
	for _, in := range insts {
		if in.Placeholder || in.State != cloudprovider.InstanceDeleting {
			target++
		}
		if !in.Placeholder && in.State != cloudprovider.InstanceDeleting {
			live++
		}
	}
	if target-delta < live {
		return &cloudprovider.SizeError{Group: groupID, Requested: target - delta, Limit: live, Bound: cloudprovider.BoundBelowInstances}
	}
	_, err = call(ctx, p, "NodeGroupDecreaseTargetSize", groupID, p.cfg.Client.NodeGroupDecreaseTargetSize,
		&protos.NodeGroupDecreaseTargetSizeRequest{Id: groupID, Delta: int32(-delta)})
	return err
}

// DeleteInstances deletes the listed instances with NodeGroupDeleteNodes
// and drops kscale's placeholders by lowering the target. An id the group
// does not list, or a target below the min size, fails before any call.
func (p *Provider) DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error {
	c, err := p.group(ctx, groupID)
	if err != nil {
		return err
	}
	insts, err := p.Instances(ctx, groupID)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	target := 0
	for _, in := range insts {
		known[in.ID] = true
		if in.Placeholder || in.State != cloudprovider.InstanceDeleting {
			target++
		}
	}
	var nodes []*protos.ExternalGrpcNode
	placeholders := 0
	for _, id := range instanceIDs {
		switch {
		case !known[id]:
			return &cloudprovider.NotFoundError{Kind: "instance", Name: id}
		case machineapi.IsPlaceholder(placeholderPrefix, id):
			placeholders++
		default:
			nodes = append(nodes, p.node(id))
		}
	}
	if minSize := int(c.group.GetMinSize()); target-len(instanceIDs) < minSize {
		return &cloudprovider.SizeError{Group: groupID, Requested: target - len(instanceIDs), Limit: minSize, Bound: cloudprovider.BoundBelowMin}
	}
	if len(nodes) > 0 {
		if _, err := call(ctx, p, "NodeGroupDeleteNodes", groupID, p.cfg.Client.NodeGroupDeleteNodes,
			&protos.NodeGroupDeleteNodesRequest{Id: groupID, Nodes: nodes}); err != nil {
			return err
		}
	}
	if placeholders > 0 {
		_, err := call(ctx, p, "NodeGroupDecreaseTargetSize", groupID, p.cfg.Client.NodeGroupDecreaseTargetSize,
			&protos.NodeGroupDecreaseTargetSizeRequest{Id: groupID, Delta: int32(-placeholders)})
		return err
	}
	return nil
}

// node describes the instance with this provider id as upstream sends it:
// the node's name, labels and annotations when the cluster has its node.
func (p *Provider) node(providerID string) *protos.ExternalGrpcNode {
	out := &protos.ExternalGrpcNode{ProviderID: providerID}
	if p.cfg.Nodes == nil {
		return out
	}
	nodes, err := p.cfg.Nodes.List(labels.Everything())
	if err != nil {
		return out
	}
	for _, n := range nodes {
		if n.Spec.ProviderID == providerID {
			return externalNode(n)
		}
	}
	return out
}

// externalNode is the protocol's view of a node.
func externalNode(n *corev1.Node) *protos.ExternalGrpcNode {
	return &protos.ExternalGrpcNode{ProviderID: n.Spec.ProviderID, Name: n.Name, Labels: n.Labels, Annotations: n.Annotations}
}
