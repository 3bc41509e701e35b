// Package externalgrpctest serves a kscale cloud provider (the in-memory
// cloud in the tests) over the external gRPC cloud-provider protocol, as an
// upstream externalgrpc server would, with faults to inject: a call that
// fails or hangs. It is kscale's own server for testing the externalgrpc
// provider; it is not a product.
package externalgrpctest

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/grpctest"
)

// Server implements the CloudProvider service over a kscale provider.
type Server struct {
	protos.UnimplementedCloudProviderServer
	cloud    cloudprovider.Provider
	gpuLabel string

	mu     sync.Mutex
	hide   bool
	faults map[string]Fault
	calls  map[string]int
	// deleted records the nodes each NodeGroupDeleteNodes named.
	deleted []*protos.ExternalGrpcNode
}

// Fault is what a call does instead of its work.
type Fault struct {
	// Err, when set, is returned.
	Err error
	// Hang blocks the call until its client gives up.
	Hang bool
}

// New serves cloud; gpuLabel is what GPULabel answers.
func New(cloud cloudprovider.Provider, gpuLabel string) *Server {
	return &Server{cloud: cloud, gpuLabel: gpuLabel, faults: map[string]Fault{}, calls: map[string]int{}}
}

// Start serves s on a loopback port, with TLS when tc is set, until the
// test ends, and returns the address.
func (s *Server) Start(tb testing.TB, tc *tls.Config) string {
	tb.Helper()
	return grpctest.Serve(tb, tc, func(g *grpc.Server) { protos.RegisterCloudProviderServer(g, s) }, grpc.UnaryInterceptor(s.Interceptor))
}

// Interceptor counts calls and applies injected faults.
func (s *Server) Interceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	method := info.FullMethod[strings.LastIndex(info.FullMethod, "/")+1:]
	s.mu.Lock()
	s.calls[method]++
	f, ok := s.faults[method]
	s.mu.Unlock()
	switch {
	case ok && f.Hang:
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	case ok && f.Err != nil:
		return nil, f.Err
	}
	return handler(ctx, req)
}

// SetFault makes a method (for example "NodeGroupIncreaseSize") fail or
// hang; a zero Fault clears it.
func (s *Server) SetFault(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == (Fault{}) {
		delete(s.faults, method)
		return
	}
	s.faults[method] = f
}

// HidePlaceholders makes NodeGroupNodes list only real machines, as a
// server whose cloud has no record of undelivered capacity does; the
// client then makes the placeholders itself.
func (s *Server) HidePlaceholders() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hide = true
}

// Calls returns how often a method was called.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Deleted returns the nodes NodeGroupDeleteNodes was asked to delete.
func (s *Server) Deleted() []*protos.ExternalGrpcNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deleted)
}

// group finds a group of the served cloud.
func (s *Server) group(ctx context.Context, id string) (cloudprovider.NodeGroup, error) {
	groups, err := s.cloud.NodeGroups(ctx)
	if err != nil {
		return cloudprovider.NodeGroup{}, status.Error(codes.Unavailable, err.Error())
	}
	for _, g := range groups {
		if g.ID == id {
			return g, nil
		}
	}
	return cloudprovider.NodeGroup{}, status.Errorf(codes.NotFound, "node group %q not found", id)
}

// asStatus maps a provider error to a gRPC status.
func asStatus(err error) error {
	switch {
	case err == nil:
		return nil
	case cloudprovider.IsNotFound(err):
		return status.Error(codes.NotFound, err.Error())
	case cloudprovider.IsSizeError(err):
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return status.Error(codes.Unavailable, err.Error())
}

// NodeGroups lists the cloud's groups.
func (s *Server) NodeGroups(ctx context.Context, _ *protos.NodeGroupsRequest) (*protos.NodeGroupsResponse, error) {
	groups, err := s.cloud.NodeGroups(ctx)
	if err != nil {
		return nil, asStatus(err)
	}
	out := &protos.NodeGroupsResponse{}
	for _, g := range groups {
		out.NodeGroups = append(out.NodeGroups, &protos.NodeGroup{Id: g.ID, MinSize: int32(g.MinSize), MaxSize: int32(g.MaxSize), Debug: g.ID})
	}
	return out, nil
}

// GPULabel answers the configured label.
func (s *Server) GPULabel(context.Context, *protos.GPULabelRequest) (*protos.GPULabelResponse, error) {
	return &protos.GPULabelResponse{Label: s.gpuLabel}, nil
}

// Refresh refreshes the cloud.
func (s *Server) Refresh(ctx context.Context, _ *protos.RefreshRequest) (*protos.RefreshResponse, error) {
	return &protos.RefreshResponse{}, asStatus(s.cloud.Refresh(ctx))
}

// Cleanup does nothing.
func (s *Server) Cleanup(context.Context, *protos.CleanupRequest) (*protos.CleanupResponse, error) {
	return &protos.CleanupResponse{}, nil
}

// NodeGroupTargetSize reads a group's target.
func (s *Server) NodeGroupTargetSize(ctx context.Context, req *protos.NodeGroupTargetSizeRequest) (*protos.NodeGroupTargetSizeResponse, error) {
	g, err := s.group(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	return &protos.NodeGroupTargetSizeResponse{TargetSize: int32(g.TargetSize)}, nil
}

// NodeGroupIncreaseSize raises a group's target.
func (s *Server) NodeGroupIncreaseSize(ctx context.Context, req *protos.NodeGroupIncreaseSizeRequest) (*protos.NodeGroupIncreaseSizeResponse, error) {
	return &protos.NodeGroupIncreaseSizeResponse{}, asStatus(s.cloud.IncreaseSize(ctx, req.GetId(), int(req.GetDelta())))
}

// NodeGroupDecreaseTargetSize lowers a group's target by -delta.
func (s *Server) NodeGroupDecreaseTargetSize(ctx context.Context, req *protos.NodeGroupDecreaseTargetSizeRequest) (*protos.NodeGroupDecreaseTargetSizeResponse, error) {
	if req.GetDelta() >= 0 {
		return nil, status.Errorf(codes.InvalidArgument, "delta must be negative, got %d", req.GetDelta())
	}
	return &protos.NodeGroupDecreaseTargetSizeResponse{}, asStatus(s.cloud.DecreaseTargetSize(ctx, req.GetId(), int(-req.GetDelta())))
}

// NodeGroupDeleteNodes deletes the instances whose provider ids the nodes
// carry.
func (s *Server) NodeGroupDeleteNodes(ctx context.Context, req *protos.NodeGroupDeleteNodesRequest) (*protos.NodeGroupDeleteNodesResponse, error) {
	insts, err := s.cloud.Instances(ctx, req.GetId())
	if err != nil {
		return nil, asStatus(err)
	}
	var ids []string
	for _, n := range req.GetNodes() {
		i := slices.IndexFunc(insts, func(in cloudprovider.Instance) bool { return in.ProviderID == n.GetProviderID() })
		if i < 0 {
			return nil, status.Errorf(codes.InvalidArgument, "node %q (%s) is not in node group %q", n.GetName(), n.GetProviderID(), req.GetId())
		}
		ids = append(ids, insts[i].ID)
	}
	s.mu.Lock()
	s.deleted = append(s.deleted, req.GetNodes()...)
	s.mu.Unlock()
	return &protos.NodeGroupDeleteNodesResponse{}, asStatus(s.cloud.DeleteInstances(ctx, req.GetId(), ids))
}

// NodeGroupNodes lists a group's instances by provider id, placeholders
// included as creating instances (with their creation error), as an
// upstream provider such as AWS's lists the capacity it has not delivered.
func (s *Server) NodeGroupNodes(ctx context.Context, req *protos.NodeGroupNodesRequest) (*protos.NodeGroupNodesResponse, error) {
	insts, err := s.cloud.Instances(ctx, req.GetId())
	if err != nil {
		return nil, asStatus(err)
	}
	s.mu.Lock()
	hide := s.hide
	s.mu.Unlock()
	out := &protos.NodeGroupNodesResponse{}
	for _, in := range insts {
		if hide && in.Placeholder {
			continue
		}
		st := &protos.InstanceStatus{InstanceState: map[cloudprovider.InstanceState]protos.InstanceStatus_InstanceState{
			cloudprovider.InstanceRunning: protos.InstanceStatus_instanceRunning, cloudprovider.InstanceCreating: protos.InstanceStatus_instanceCreating,
			cloudprovider.InstanceDeleting: protos.InstanceStatus_instanceDeleting}[in.State]}
		if in.Error != nil {
			class := int32(99)
			if in.Error.Class == cloudprovider.ErrorOutOfResources {
				class = 1
			}
			st.ErrorInfo = &protos.InstanceErrorInfo{ErrorCode: in.Error.Code, ErrorMessage: in.Error.Message, InstanceErrorClass: class}
		}
		out.Instances = append(out.Instances, &protos.Instance{Id: in.ProviderID, Status: st})
	}
	return out, nil
}

// NodeGroupTemplateNodeInfo builds the group's template node as kscale
// would and sends it in Kubernetes' protobuf encoding.
func (s *Server) NodeGroupTemplateNodeInfo(ctx context.Context, req *protos.NodeGroupTemplateNodeInfoRequest) (*protos.NodeGroupTemplateNodeInfoResponse, error) {
	g, err := s.group(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	node, err := nodetemplate.FromProvider(g, nodetemplate.NewEstimator(), nil)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	data, err := node.Marshal()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &protos.NodeGroupTemplateNodeInfoResponse{NodeBytes: data}, nil
}

// NodeGroupGetOptions answers the group's own options over the defaults.
func (s *Server) NodeGroupGetOptions(ctx context.Context, req *protos.NodeGroupAutoscalingOptionsRequest) (*protos.NodeGroupAutoscalingOptionsResponse, error) {
	g, err := s.group(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	out := &protos.NodeGroupAutoscalingOptions{}
	if d := req.GetDefaults(); d != nil {
		*out = protos.NodeGroupAutoscalingOptions{ScaleDownUtilizationThreshold: d.GetScaleDownUtilizationThreshold(),
			ScaleDownGpuUtilizationThreshold: d.GetScaleDownGpuUtilizationThreshold(), ScaleDownUnneededDuration: d.GetScaleDownUnneededDuration(),
			ScaleDownUnreadyDuration: d.GetScaleDownUnreadyDuration(), MaxNodeProvisionDuration: d.GetMaxNodeProvisionDuration(),
			IgnoreDaemonSetsUtilization: d.GetIgnoreDaemonSetsUtilization()}
	}
	o := g.Options
	setFloat(&out.ScaleDownUtilizationThreshold, o.ScaleDownUtilizationThreshold)
	setFloat(&out.ScaleDownGpuUtilizationThreshold, o.ScaleDownGPUUtilizationThreshold)
	setDuration(&out.ScaleDownUnneededDuration, o.ScaleDownUnneededTime)
	setDuration(&out.ScaleDownUnreadyDuration, o.ScaleDownUnreadyTime)
	setDuration(&out.MaxNodeProvisionDuration, o.MaxNodeProvisionTime)
	if o.IgnoreDaemonSetsUtilization != nil {
		out.IgnoreDaemonSetsUtilization = *o.IgnoreDaemonSetsUtilization
	}
	return &protos.NodeGroupAutoscalingOptionsResponse{NodeGroupAutoscalingOptions: out}, nil
}

func setFloat(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
}

func setDuration(dst **durationpb.Duration, v *time.Duration) {
	if v != nil {
		*dst = durationpb.New(*v)
	}
}
