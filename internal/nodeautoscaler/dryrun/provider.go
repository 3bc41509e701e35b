package dryrun

import (
	"context"
	"sync"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Names of the calls the dry run does not make (the call label of
// kscale_shadow_suppressed_calls_total).
const (
	CallIncreaseSize       = "increase_size"
	CallDeleteInstances    = "delete_instances"
	CallDecreaseTargetSize = "decrease_target_size"
	CallAddTaint           = "add_taint"
	CallRemoveTaints       = "remove_taints"
	CallCordon             = "cordon"
	CallEvictPod           = "evict_pod"
)

// Provider is a cloud provider whose reads go to the real one and whose
// writes are logged, counted and answered as accepted without being made.
// It remembers the target sizes the cloud last reported.
type Provider struct {
	cloudprovider.Provider
	metrics *Metrics
	mu      sync.Mutex
	targets map[string]int
}

var _ cloudprovider.Provider = (*Provider)(nil)

// NewProvider wraps p; metrics count the calls not made.
func NewProvider(p cloudprovider.Provider, metrics *Metrics) *Provider {
	return &Provider{Provider: p, metrics: metrics}
}

// NodeGroups implements cloudprovider.Provider: the real provider's
// groups, whose target sizes are remembered.
func (p *Provider) NodeGroups(ctx context.Context) ([]cloudprovider.NodeGroup, error) {
	groups, err := p.Provider.NodeGroups(ctx)
	if err != nil {
		return nil, err
	}
	targets := make(map[string]int, len(groups))
	for _, g := range groups {
		targets[g.ID] = g.TargetSize
	}
	p.mu.Lock()
	p.targets = targets
	p.mu.Unlock()
	return groups, nil
}

// Targets returns the target size per group the cloud last reported (the
// loop's own accepted-but-not-made changes are not in it).
func (p *Provider) Targets() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.targets
}

// IncreaseSize implements cloudprovider.Provider without calling the cloud.
func (p *Provider) IncreaseSize(ctx context.Context, groupID string, delta int) error {
	p.suppress(ctx, CallIncreaseSize, "nodeGroup", groupID, "delta", delta)
	return nil
}

// DeleteInstances implements cloudprovider.Provider without calling the cloud.
func (p *Provider) DeleteInstances(ctx context.Context, groupID string, instanceIDs []string) error {
	p.suppress(ctx, CallDeleteInstances, "nodeGroup", groupID, "instances", instanceIDs)
	return nil
}

// DecreaseTargetSize implements cloudprovider.Provider without calling the cloud.
func (p *Provider) DecreaseTargetSize(ctx context.Context, groupID string, delta int) error {
	p.suppress(ctx, CallDecreaseTargetSize, "nodeGroup", groupID, "delta", delta)
	return nil
}

func (p *Provider) suppress(ctx context.Context, call string, kv ...any) {
	p.metrics.suppress(call)
	klog.FromContext(ctx).V(2).Info("Dry run: cloud call not made", append([]any{"call", call}, kv...)...)
}
