package spreademulation

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Annotation and label keys the emulation uses.
const (
	// TimeoutAnnotation releases a pending pod's zone pin once it has been
	// pending longer than its value (a Go duration).
	TimeoutAnnotation = "zalando.org/topology-spread-timeout"
	// ZoneLabel is the zone topology key.
	ZoneLabel = "topology.kubernetes.io/zone"
)

// Result is the emulated view of the pods.
type Result struct {
	// Pending are the pending pods, qualifying ones copied and pinned.
	Pending []*corev1.Pod
	// Scheduled are the scheduled pods, qualifying ones copied and pinned
	// to their node's zone.
	Scheduled []*corev1.Pod
	// Emulated counts the pods that were rewritten.
	Emulated int
}

// Options select what Emulate rewrites.
type Options struct {
	// Label is the emulated selector label; empty disables the emulation.
	Label string
	// PinScheduled also rewrites scheduled pods (pinned to their node's
	// zone), which simulations that move pods need. Scale-up does not: a
	// bound pod's own spread constraint never affects other placements.
	PinScheduled bool
}

// Emulate rewrites the pods. Scheduled pods are those with a node name that
// have not finished; they are counted per zone for the groups of the
// qualifying pending pods. Without a qualifying pending pod (and without
// PinScheduled) the pods are returned as they are, untouched and uncounted.
func Emulate(opts Options, nodes []*corev1.Node, pending, scheduled []*corev1.Pod, now time.Time) Result {
	label := opts.Label
	if label == "" {
		return Result{Pending: pending, Scheduled: scheduled}
	}
	// counts holds, per group (namespace/label value) of a qualifying
	// pending pod, its scheduled pods per zone.
	counts := map[string]map[string]int{}
	for _, p := range pending {
		if Qualifies(p, label) {
			counts[p.Namespace+"/"+p.Labels[label]] = map[string]int{}
		}
	}
	if len(counts) == 0 && !opts.PinScheduled {
		return Result{Pending: pending, Scheduled: scheduled}
	}
	zoneOf, zones := nodeZones(nodes)
	res := Result{Scheduled: scheduled, Pending: make([]*corev1.Pod, 0, len(pending))}
	if opts.PinScheduled {
		res.Scheduled = make([]*corev1.Pod, 0, len(scheduled))
	}
	for _, p := range scheduled {
		zone, known := zoneOf[p.Spec.NodeName]
		if v := p.Labels[label]; v != "" && known && len(counts) > 0 {
			if c := counts[p.Namespace+"/"+v]; c != nil {
				c[zone]++
			}
		}
		if !opts.PinScheduled {
			continue
		}
		if Qualifies(p, label) {
			res.Emulated++
			p = pinned(p, zone, known)
		}
		res.Scheduled = append(res.Scheduled, p)
	}
	for _, p := range pending {
		if !Qualifies(p, label) {
			res.Pending = append(res.Pending, p)
			continue
		}
		res.Emulated++
		if expired(p, now) || len(zones) == 0 {
			res.Pending = append(res.Pending, pinned(p, "", false))
			continue
		}
		c := counts[p.Namespace+"/"+p.Labels[label]]
		best := zones[0]
		for _, z := range zones[1:] {
			if c[z] < c[best] {
				best = z
			}
		}
		c[best]++
		res.Pending = append(res.Pending, pinned(p, best, true))
	}
	return res
}

// nodeZones maps node names to their zone and lists the zones, sorted.
func nodeZones(nodes []*corev1.Node) (map[string]string, []string) {
	zoneOf := make(map[string]string, len(nodes))
	var zones []string
	for _, n := range nodes {
		if z := n.Labels[ZoneLabel]; z != "" {
			zoneOf[n.Name] = z
			if !slices.Contains(zones, z) {
				zones = append(zones, z)
			}
		}
	}
	slices.Sort(zones)
	return zoneOf, zones
}

// Qualifies reports whether the pod's spread constraint is the emulated shape.
func Qualifies(p *corev1.Pod, label string) bool {
	if len(p.Spec.TopologySpreadConstraints) != 1 {
		return false
	}
	c := p.Spec.TopologySpreadConstraints[0]
	if c.TopologyKey != ZoneLabel || c.MaxSkew != 1 || c.WhenUnsatisfiable != corev1.DoNotSchedule || c.LabelSelector == nil {
		return false
	}
	sel := c.LabelSelector
	if len(sel.MatchExpressions) != 0 || len(sel.MatchLabels) != 1 {
		return false
	}
	v, ok := sel.MatchLabels[label]
	return ok && v != "" && p.Labels[label] == v
}

func expired(p *corev1.Pod, now time.Time) bool {
	v, ok := p.Annotations[TimeoutAnnotation]
	if !ok {
		return false
	}
	d, err := time.ParseDuration(v)
	return err == nil && p.CreationTimestamp.Add(d).Before(now)
}

// pinned returns a copy without spread constraints, pinned to zone when
// set. The copy shares everything else with the original, which nobody
// modifies.
func pinned(p *corev1.Pod, zone string, pin bool) *corev1.Pod {
	c := *p
	c.Spec.TopologySpreadConstraints = nil
	if pin {
		sel := make(map[string]string, len(c.Spec.NodeSelector)+1)
		for k, v := range c.Spec.NodeSelector {
			sel[k] = v
		}
		sel[ZoneLabel] = zone
		c.Spec.NodeSelector = sel
	}
	return &c
}
