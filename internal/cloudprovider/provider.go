package cloudprovider

import "context"

// Provider is what the node autoscaler needs from a cloud. Implementations
// must be safe for use by one goroutine at a time; the autoscaler loop is a
// singleton.
type Provider interface {
	// NodeGroups lists every group the autoscaler manages.
	NodeGroups(ctx context.Context) ([]NodeGroup, error)
	// Instances lists a group's instances, including one placeholder per
	// unit of target size that has no machine yet.
	Instances(ctx context.Context, groupID string) ([]Instance, error)
	// IncreaseSize raises a group's target size by delta (> 0). It fails
	// with a *SizeError when the result would exceed the maximum size.
	IncreaseSize(ctx context.Context, groupID string, delta int) error
	// DeleteInstances terminates the given instances and lowers the target
	// size by their number. Deleting a placeholder only lowers the target.
	DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error
	// DecreaseTargetSize lowers a group's target size by delta (> 0) without
	// terminating anything; it fails with a *SizeError when that would drop
	// below the number of instances that exist.
	DecreaseTargetSize(ctx context.Context, groupID string, delta int) error
	// Refresh updates the provider's cached view of the cloud. The
	// autoscaler calls it once at the start of every loop.
	Refresh(ctx context.Context) error
}
