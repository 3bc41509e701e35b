package kwok

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/klog/v2"
)

// StateConfigMapName is the ConfigMap (in Config.Namespace) where the kwok
// cloud keeps its groups' target sizes, under the key "targets.json" as a
// JSON object of group name to target.
const StateConfigMapName = "kscale-kwok-cloud"

const stateKey = "targets.json"

// loadTargets reads the persisted target sizes; none persisted yet is an
// empty map. A malformed document is an error naming the ConfigMap: the
// provider must not guess the cloud's size.
func (p *Provider) loadTargets(ctx context.Context) (map[string]int, error) {
	data, found, err := p.targets.Load(ctx)
	if err != nil || !found {
		return map[string]int{}, err
	}
	var targets map[string]int
	if err := json.Unmarshal(data, &targets); err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s key %s: %w", p.cfg.Namespace, StateConfigMapName, stateKey, err)
	}
	for g, t := range targets {
		if t < 0 {
			return nil, fmt.Errorf("reading ConfigMap %s/%s key %s: group %q: negative target %d", p.cfg.Namespace, StateConfigMapName, stateKey, g, t)
		}
	}
	return targets, nil
}

// persist writes every group's target size (skipped when unchanged).
func (p *Provider) persist(ctx context.Context) error {
	targets := map[string]int{}
	for _, g := range p.cfg.NodeGroups {
		_, t, err := p.Group(g.Name)
		if err != nil {
			return err
		}
		targets[g.Name] = t
	}
	data, err := json.Marshal(targets) // map keys are sorted: stable output
	if err != nil {
		return fmt.Errorf("encoding target sizes: %w", err)
	}
	return p.targets.Save(ctx, data)
}

// IncreaseSize raises the group's target and writes it before it returns,
// so a replacement process finds the request in the cluster; the launched
// machines' nodes (NotReady while booting) are created by Run, which the
// change starts at once, as a cloud launches instances after its API call
// returned.
func (p *Provider) IncreaseSize(ctx context.Context, group string, delta int) error {
	return p.change(ctx, func() error { return p.Cloud.IncreaseSize(ctx, group, delta) })
}

// DecreaseTargetSize lowers the group's target and persists it.
func (p *Provider) DecreaseTargetSize(ctx context.Context, group string, delta int) error {
	return p.change(ctx, func() error { return p.Cloud.DecreaseTargetSize(ctx, group, delta) })
}

// DeleteInstances deletes machines and persists the target; Run deletes
// their nodes.
func (p *Provider) DeleteInstances(ctx context.Context, group string, ids []string) error {
	return p.change(ctx, func() error { return p.Cloud.DeleteInstances(ctx, group, ids) })
}

// change applies a size change to the cloud, persists the targets (one
// write, the cloud's API call) and has Run mirror the machines as nodes at
// once, outside the caller's time. A failed write is logged and retried by
// the next Sync: the change itself stands, as a cloud API call that
// succeeded stands.
func (p *Provider) change(ctx context.Context, apply func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := apply(); err != nil {
		return err
	}
	if err := p.persist(ctx); err != nil {
		klog.FromContext(ctx).Info("Writing the kwok cloud's state failed, retrying at the next sync", "err", err.Error())
	}
	p.kick.Raise(p.cfg.Clock.Now())
	return nil
}
