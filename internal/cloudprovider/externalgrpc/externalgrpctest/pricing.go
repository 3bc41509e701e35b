package externalgrpctest

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
)

// templateProviderIDPrefix starts the provider id of the template nodes
// NodeGroupTemplateNodeInfo sends (nodetemplate.FromProvider's).
const templateProviderIDPrefix = "template:///"

// PricingNodePrice prices a node of a group of the served cloud over the
// asked period from the group's price per hour (the in-memory cloud's
// pricePerHour): the node is a template node the server sent or a live
// instance of a group. A group without a price answers FailedPrecondition.
func (s *Server) PricingNodePrice(ctx context.Context, req *protos.PricingNodePriceRequest) (*protos.PricingNodePriceResponse, error) {
	hours, err := periodHours(req.GetStartTimestamp(), req.GetEndTimestamp())
	if err != nil {
		return nil, err
	}
	g, err := s.groupOfNode(ctx, req.GetNode().GetProviderID())
	if err != nil {
		return nil, err
	}
	if g.Template.PricePerHour <= 0 {
		return nil, status.Errorf(codes.FailedPrecondition, "node group %q has no price", g.ID)
	}
	return &protos.PricingNodePriceResponse{Price: g.Template.PricePerHour * hours}, nil
}

// PricingPodPrice prices a pod over the asked period as the cheapest share
// of a priced group's node it would take: the group's price per hour times
// the larger of the pod's CPU and memory fractions of the node, the
// theoretical minimum of running it on a perfectly matching machine. No
// priced group answers FailedPrecondition.
func (s *Server) PricingPodPrice(ctx context.Context, req *protos.PricingPodPriceRequest) (*protos.PricingPodPriceResponse, error) {
	hours, err := periodHours(req.GetStartTimestamp(), req.GetEndTimestamp())
	if err != nil {
		return nil, err
	}
	var pod corev1.Pod
	if err := pod.Unmarshal(req.GetPodBytes()); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "pod_bytes: %v", err)
	}
	groups, err := s.cloud.NodeGroups(ctx)
	if err != nil {
		return nil, asStatus(err)
	}
	best := -1.0
	for _, g := range groups {
		if v, ok := podShare(g, &pod); ok && (best < 0 || v < best) {
			best = v
		}
	}
	if best < 0 {
		return nil, status.Error(codes.FailedPrecondition, "no node group has a price")
	}
	return &protos.PricingPodPriceResponse{Price: best * hours}, nil
}

// podShare is a pod's part of the price per hour of one of the group's
// nodes; false when the group has no price or no template.
func podShare(g cloudprovider.NodeGroup, pod *corev1.Pod) (float64, bool) {
	if g.Template.PricePerHour <= 0 {
		return 0, false
	}
	node, err := nodetemplate.FromProvider(g, nodetemplate.NewEstimator(), nil)
	if err != nil {
		return 0, false
	}
	var cpu, mem int64
	for _, c := range pod.Spec.Containers {
		cpu += c.Resources.Requests.Cpu().MilliValue()
		mem += c.Resources.Requests.Memory().Value()
	}
	share := 0.0
	if c := node.Status.Capacity.Cpu().MilliValue(); c > 0 {
		share = float64(cpu) / float64(c)
	}
	if m := node.Status.Capacity.Memory().Value(); m > 0 {
		share = max(share, float64(mem)/float64(m))
	}
	return g.Template.PricePerHour * share, true
}

// groupOfNode finds the group of a template node's or an instance's
// provider id.
func (s *Server) groupOfNode(ctx context.Context, providerID string) (cloudprovider.NodeGroup, error) {
	if id, ok := strings.CutPrefix(providerID, templateProviderIDPrefix); ok {
		return s.group(ctx, id)
	}
	groups, err := s.cloud.NodeGroups(ctx)
	if err != nil {
		return cloudprovider.NodeGroup{}, asStatus(err)
	}
	for _, g := range groups {
		insts, err := s.cloud.Instances(ctx, g.ID)
		if err != nil {
			return cloudprovider.NodeGroup{}, asStatus(err)
		}
		if slices.ContainsFunc(insts, func(in cloudprovider.Instance) bool { return in.ProviderID == providerID }) {
			return g, nil
		}
	}
	return cloudprovider.NodeGroup{}, status.Errorf(codes.NotFound, "no node group has node %q", providerID)
}

// periodHours is the length of the priced period in hours; an empty or
// reversed period is invalid.
func periodHours(start, end *timestamppb.Timestamp) (float64, error) {
	if start == nil || end == nil || !start.IsValid() || !end.IsValid() {
		return 0, status.Error(codes.InvalidArgument, "startTimestamp and endTimestamp are required")
	}
	d := end.AsTime().Sub(start.AsTime())
	if d <= 0 {
		return 0, status.Errorf(codes.InvalidArgument, "endTimestamp must follow startTimestamp, got a period of %s", d)
	}
	return d.Hours(), nil
}
