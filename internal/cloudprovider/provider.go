package cloudprovider

import "context"

// Provider is what the node autoscaler needs from a cloud. Implementations
// must be safe for use by one goroutine at a time; the autoscaler loop is a
// singleton.
//
// The contract every implementation keeps (the suite in
// cloudprovider/providertest checks it against each provider's test
// back-end):
//   - A group or instance id the provider does not know fails with a
//     *NotFoundError (IsNotFound), and the call changes nothing.
//   - A size change that would leave the group's bounds fails with a
//     *SizeError whose Bound names the bound (BoundAboveMax,
//     BoundBelowInstances, BoundBelowMin), and the call changes nothing.
//   - A failed call to the cloud's API is an *APIError.
//   - Refresh is idempotent: calling it twice without a change in the
//     cloud reports the same groups and instances.
type Provider interface {
	// NodeGroups lists every group the autoscaler manages.
	NodeGroups(ctx context.Context) ([]NodeGroup, error)
	// Instances lists a group's instances, including one placeholder per
	// unit of target size that has no machine yet.
	Instances(ctx context.Context, groupID string) ([]Instance, error)
	// IncreaseSize raises a group's target size by delta (> 0). It fails
	// with a *SizeError (BoundAboveMax) when the result would exceed the
	// maximum size.
	IncreaseSize(ctx context.Context, groupID string, delta int) error
	// DeleteInstances terminates the given instances and lowers the target
	// size by their number. Deleting a placeholder only lowers the target.
	// It fails with a *SizeError (BoundBelowMin), deleting nothing, when
	// the target would drop below the group's min size, placeholders
	// included in the count.
	DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error
	// DecreaseTargetSize lowers a group's target size by delta (> 0) without
	// terminating anything; it fails with a *SizeError
	// (BoundBelowInstances) when that would drop below the number of
	// instances that exist, so only placeholders can be removed this way.
	DecreaseTargetSize(ctx context.Context, groupID string, delta int) error
	// Refresh updates the provider's cached view of the cloud. The
	// autoscaler calls it once at the start of every loop.
	Refresh(ctx context.Context) error
	// InstanceKnowledge says what the provider can tell about whether a
	// node's cloud instance exists (upstream's HasInstance); it is fixed
	// for the provider's lifetime and does no I/O.
	InstanceKnowledge() InstanceKnowledge
}
