package externalgrpc

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// grpcCallOption is a per-call option of the generated client.
type grpcCallOption = grpc.CallOption

// callError types a failed call: NotFound is a *cloudprovider.NotFoundError
// (the group, when the call names one), anything else, a deadline
// included, a *cloudprovider.APIError naming the call.
func callError(op, group string, err error) error {
	if status.Code(err) == codes.NotFound && group != "" {
		return &cloudprovider.NotFoundError{Kind: "node group", Name: group}
	}
	return &cloudprovider.APIError{Op: op, Group: group, Err: err}
}

// unimplemented reports whether the server does not implement a call
// (the protocol's optional calls).
func unimplemented(err error) bool { return status.Code(err) == codes.Unimplemented }
