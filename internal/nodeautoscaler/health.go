package nodeautoscaler

import (
	"context"
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// repairSizes lowers targets that drifted above what registered (keeping
// the sentinel of backed-off groups) and deletes instances that never
// registered. It reports whether it changed anything.
func (a *Autoscaler) repairSizes(ctx context.Context, obs *observation, now time.Time) (bool, error) {
	changed := false
	for _, fix := range a.state.SizeFixes(now) {
		if err := a.cfg.Provider.DecreaseTargetSize(ctx, fix.Group, fix.Delta); err != nil {
			return changed, fmt.Errorf("fixing size of node group %q: %w", fix.Group, err)
		}
		a.record(ctx, Event{Type: EventDecreaseTargetSize, Group: fix.Group, Delta: -fix.Delta,
			Reason: "IncorrectSize", Message: "target above registered nodes for longer than the provision time"})
		changed = true
	}
	if changed {
		// The state is stale now; the next loop sees the new targets.
		return true, nil
	}
	for _, st := range a.state.Groups() {
		if len(st.LongUnregistered) == 0 || st.Group.TargetSize <= st.Group.MinSize {
			continue
		}
		insts := st.LongUnregistered[:min(len(st.LongUnregistered), st.Group.TargetSize-st.Group.MinSize)]
		insts = wholeGroup(st.Group, insts, obs)
		if err := a.deleteInstances(ctx, st.Group.ID, insts, DeleteReasonLongUnregistered); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// deleteErrorInstances deletes instances whose creation failed (all but
// the sentinel in no-full-scale-down mode).
func (a *Autoscaler) deleteErrorInstances(ctx context.Context, obs *observation) error {
	toDelete := a.state.ErrorInstancesToDelete()
	for _, st := range a.state.Groups() {
		insts := toDelete[st.Group.ID]
		if len(insts) == 0 {
			continue
		}
		insts = wholeGroup(st.Group, insts, obs)
		if err := a.deleteInstances(ctx, st.Group.ID, insts, DeleteReasonCreationFailed); err != nil {
			return err
		}
	}
	return nil
}

func (a *Autoscaler) deleteInstances(ctx context.Context, group string, insts []cloudprovider.Instance, reason string) error {
	ids := make([]string, len(insts))
	for i, inst := range insts {
		ids[i] = inst.ID
	}
	if err := a.cfg.Provider.DeleteInstances(ctx, group, ids); err != nil {
		return fmt.Errorf("deleting instances of node group %q: %w", group, err)
	}
	a.record(ctx, Event{Type: EventDeleteNodes, Group: group, Delta: -len(ids), Nodes: ids, Reason: reason})
	return nil
}

// wholeGroup returns the instances to delete in place of insts: for a
// zero-or-max group every instance of the group not being deleted yet
// (placeholders too), as upstream removes a failed all-or-nothing
// scale-up whole; else insts.
func wholeGroup(g cloudprovider.NodeGroup, insts []cloudprovider.Instance, obs *observation) []cloudprovider.Instance {
	if !g.Options.ZeroOrMaxNodeScaling {
		return insts
	}
	var all []cloudprovider.Instance
	for _, inst := range obs.instances[g.ID] {
		if inst.State != cloudprovider.InstanceDeleting {
			all = append(all, inst)
		}
	}
	return all
}
