package nodeautoscaler

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/simulator"
)

// Scale-down event types.
const (
	// EventScaleDownFailed is a node deletion that failed (taints removed).
	EventScaleDownFailed EventType = "ScaleDownFailed"
	// EventScaleDownBlocked is a node scale-down keeps, with the reason; it
	// is recorded when the reason changes.
	EventScaleDownBlocked EventType = "ScaleDownBlocked"
)

// scaleDownState is the loop's scale-down part.
type scaleDownState struct {
	ctrl        *actuation.Controller
	cluster     ScaleDownCluster
	lastScaleUp time.Time
	// groupScaleUp is lastScaleUp per node group.
	groupScaleUp map[string]time.Time
	blocked      map[string]scaledown.Reason
	// latency is nil without --node-removal-latency-tracking-enabled.
	latency *removalLatencyTracker
}

func newScaleDown(cfg Config) (*scaleDownState, error) {
	if cfg.ScaleDown == nil {
		return nil, nil
	}
	ctrl, err := actuation.NewController(actuation.ControllerConfig{
		ScaleDown: scaledown.FromOptions(cfg.Options), Actuation: actuation.ConfigFromOptions(cfg.Options),
		Cluster: cfg.ScaleDown, Deleter: cfg.Provider, Registerer: cfg.Registerer, Clock: cfg.Clock,
	})
	if err != nil {
		return nil, err
	}
	sd := &scaleDownState{ctrl: ctrl, cluster: cfg.ScaleDown, blocked: map[string]scaledown.Reason{}, groupScaleUp: map[string]time.Time{}}
	if cfg.Options.NodeRemovalLatencyTrackingEnabled {
		sd.latency = newRemovalLatencyTracker()
	}
	return sd, nil
}

// scaledUp notes a successful scale-up of the group at now.
func (a *Autoscaler) scaledUp(group string, now time.Time) {
	a.lastScaleUp = now
	if a.scaleDowner != nil {
		a.scaleDowner.lastScaleUp = now
		a.scaleDowner.groupScaleUp[group] = now
	}
}

// scaleDown runs one scale-down round on what this loop observed.
func (a *Autoscaler) scaleDown(ctx context.Context, obs *observation, now time.Time) error {
	sd := a.scaleDowner
	if sd == nil || !a.cfg.Options.ScaleDown.Enabled {
		return nil
	}
	rules := readinessRules(&a.cfg.Options)
	in := scaledown.InputFrom(scaledown.Observation{Groups: obs.groups, Instances: obs.instances, Nodes: obs.nodes,
		Pods: obs.bound, PodsOn: obs.podsOn, PDBs: obs.pdbs, Now: now,
		Namespaces: obs.objects.namespaces, PersistentVolumes: obs.objects.pvs, PersistentVolumeClaims: obs.objects.pvcs,
		StorageClasses: obs.objects.classes, CSINodes: obs.objects.csiNodes,
		Controllers: obs.objects.controllers,
		Ready:       func(n *corev1.Node) bool { return rules.Bucket(n, now) == clusterstate.Ready }})
	in.LastScaleUp, in.GroupLastScaleUp = sd.lastScaleUp, sd.groupScaleUp
	var err error
	if in.Snapshot, err = a.readySnapshot(obs, obs.bound, now); err != nil {
		return err
	}
	in.Placed = placePending(in.Snapshot, obs.pending, now)
	in.SchedulablePending = len(in.Placed) > 0
	st, err := sd.ctrl.RunOnce(ctx, in)
	if err != nil {
		return fmt.Errorf("scaling down: %w", err)
	}
	a.recordScaleDown(ctx, st, now)
	a.trackRemovalLatency(st, now)
	return nil
}

// trackRemovalLatency feeds the round to the removal latency tracker, if
// any, and observes the nodes it stopped following.
func (a *Autoscaler) trackRemovalLatency(st actuation.Status, now time.Time) {
	if a.scaleDowner.latency == nil {
		return
	}
	started := make([]string, len(st.Started))
	for i, s := range st.Started {
		started[i] = s.Node
	}
	o := a.cfg.Options.ScaleDown
	for _, l := range a.scaleDowner.latency.round(latencyRound{plan: st.Plan, started: started,
		unneededTime: o.UnneededTime, unreadyTime: o.UnreadyTime, now: now}) {
		a.metrics.removalLatency.WithLabelValues(strconv.FormatBool(l.Deleted), l.DelayReason).Observe(l.Latency.Seconds())
	}
}

// placePending finds the pending pods that fit on the snapshot's ready
// nodes, leaving the snapshot as it was; scale-down counts them as running
// there.
func placePending(snap *simulator.Snapshot, pending []*corev1.Pod, now time.Time) []simulator.Placement {
	if len(pending) == 0 {
		return nil
	}
	snap.Fork()
	defer snap.Revert()
	return simulator.FilterSchedulable(snap, pending, simulator.FilterOptions{Now: now}).Placements
}
