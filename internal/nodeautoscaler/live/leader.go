package live

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/leaderelection"
)

// DefaultLeaseName is the Lease the node autoscaler replicas elect on,
// upstream's name.
const DefaultLeaseName = "cluster-autoscaler"

// LeaderElection configures leader election.
type LeaderElection = leaderelection.Config

// ErrLeadershipLost is returned when this replica stopped leading before
// ctx ended; the process should exit so a fresh one rebuilds its state.
var ErrLeadershipLost = leaderelection.ErrLeadershipLost

// RunLeading runs run while this replica holds the Lease, or directly when
// election is disabled.
func RunLeading(ctx context.Context, client kubernetes.Interface, le LeaderElection, run func(ctx context.Context)) error {
	return leaderelection.Run(ctx, client, le, run)
}
