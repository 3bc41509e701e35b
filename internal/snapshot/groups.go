package snapshot

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
	"github.com/kscale/kscale/internal/scenario"
)

// unmanagedPrefix names the fixed-size groups that hold nodes outside every
// node group.
const unmanagedPrefix = "unmanaged-"

// groupOf returns the raw group of a node: from its kwok provider id with a
// cloud config, otherwise from the first group label it has.
func (b *builder) groupOf(n *corev1.Node) (string, bool) {
	if b.opts.NodeGroups != nil {
		group, _, ok := parseProviderID(n.Spec.ProviderID)
		if ok && !b.configured[group] {
			b.res.notef("node %s: its provider id names group %q, which the cloud config lacks; written as an unmanaged node", n.Name, group)
			return "", false
		}
		return group, ok
	}
	for _, l := range b.opts.GroupLabels {
		if v := n.Labels[l]; v != "" {
			return v, true
		}
	}
	return "", false
}

// parseProviderID splits a kwok provider id (kwok.ProviderIDPrefix
// group/instance) into group and instance.
func parseProviderID(id string) (group, instance string, ok bool) {
	rest, ok := strings.CutPrefix(id, kwok.ProviderIDPrefix)
	if !ok {
		return "", "", false
	}
	group, instance, ok = strings.Cut(rest, "/")
	return group, instance, ok && group != "" && instance != ""
}

// buildGroups assigns every node to a group and writes groups and nodes.
func (b *builder) buildGroups(nodes []*corev1.Node) {
	members := map[string][]*corev1.Node{}
	var order []string
	var unmanaged []*corev1.Node
	for _, n := range nodes {
		raw, ok := b.groupOf(n)
		if !ok {
			unmanaged = append(unmanaged, n)
			continue
		}
		if _, seen := members[raw]; !seen {
			order = append(order, raw)
		}
		members[raw] = append(members[raw], n)
	}
	if b.opts.NodeGroups != nil {
		b.configuredGroups(members)
	} else {
		for _, raw := range order {
			b.inferredGroup(raw, members[raw])
		}
	}
	b.unmanagedGroups(unmanaged)
}

// configuredGroups writes the cloud config's groups with their nodes.
func (b *builder) configuredGroups(members map[string][]*corev1.Node) {
	for _, g := range b.opts.NodeGroups {
		nodes := members[g.Name]
		g.Target = max(len(nodes), g.Min)
		if len(nodes) > g.Max {
			b.res.notef("group %s: %d nodes exceed its max %d; max raised to %d", g.Name, len(nodes), g.Max, len(nodes))
			g.Max = len(nodes)
		}
		for _, n := range nodes {
			if what := templateMismatch(g, n); what != "" {
				b.res.notef("node %s differs from group %s of the cloud config in %s; the simulation gives it the group's", n.Name, g.Name, what)
			}
		}
		b.addGroup(g, nodes, g.Taints.Value)
	}
}

// inferredGroup writes a group inferred from its nodes' labels.
func (b *builder) inferredGroup(raw string, nodes []*corev1.Node) {
	name := b.uniqueGroupName(raw)
	g := scenario.NodeGroup{Name: name}
	s := b.groupShape(name, nodes)
	g.InstanceTypes, g.Resources, g.Reserved = s.instanceTypes, s.resources, s.reserved
	labels, differ := commonLabels(nodes)
	if len(labels) > 0 {
		g.Labels = labels
	}
	if len(differ) > 0 {
		b.res.notef("group %s: labels %s differ between its nodes; the scenario gives all nodes of a group the same labels, so they are left out",
			name, strings.Join(differ, ", "))
	}
	g.Zone = zoneOf(nodes[0])
	for _, n := range nodes[1:] {
		if zoneOf(n) != g.Zone {
			b.res.notef("group %s: its nodes span several zones; a scenario group has one, so the zone is left out", name)
			g.Zone = ""
			break
		}
	}
	g.Taints.Value = commonTaints(nodes)
	count := len(nodes)
	g.Min, g.Max = count, count
	if b.opts.MinSize != SizeFromCluster {
		g.Min = b.opts.MinSize
	}
	if b.opts.MaxSize != SizeFromCluster {
		g.Max = b.opts.MaxSize
	}
	if count > g.Max {
		b.res.notef("group %s: %d nodes exceed the max size %d; max raised to %d", name, count, g.Max, count)
		g.Max = count
	}
	g.Min = min(g.Min, g.Max)
	g.Target = max(count, g.Min)
	b.addGroup(g, nodes, g.Taints.Value)
}

// groupShape is the hardware most of the group's nodes have; nodes that
// differ are noted.
func (b *builder) groupShape(group string, nodes []*corev1.Node) shape {
	counts := map[string]int{}
	shapes := map[string]shape{}
	best := ""
	for _, n := range nodes {
		s := shapeOf(n)
		k := s.key()
		shapes[k] = s
		counts[k]++
		if best == "" || counts[k] > counts[best] {
			best = k
		}
	}
	for _, n := range nodes {
		if shapeOf(n).key() != best {
			b.res.notef("node %s: its capacity or allocatable differs from the rest of group %s; the scenario gives it the group's", n.Name, group)
		}
	}
	return shapes[best]
}

// unmanagedGroups writes nodes outside every group as groups of fixed size
// (min = max = their count), one per kind of node, so the simulated
// autoscaler keeps them but can neither add nor remove any.
func (b *builder) unmanagedGroups(nodes []*corev1.Node) {
	if len(nodes) == 0 {
		return
	}
	b.res.notef("nodes in no node group: %d; written as unmanaged groups %s*, one per kind of node (capacity, labels, zone), "+
		"which the autoscaler neither adds to nor removes from, as live", len(nodes), unmanagedPrefix)
	byKey := map[string][]*corev1.Node{}
	var order []string
	for _, n := range nodes {
		k := fmt.Sprintf("%s|%v|%s", shapeOf(n).key(), groupLabels(n), zoneOf(n))
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], n)
	}
	for i, k := range order {
		members := byKey[k]
		s := shapeOf(members[0])
		g := scenario.NodeGroup{Name: b.uniqueGroupName(unmanagedPrefix + strconv.Itoa(i+1)),
			Min: len(members), Max: len(members), Target: len(members), Zone: zoneOf(members[0]), Unmanaged: true,
			InstanceTypes: s.instanceTypes, Resources: s.resources, Reserved: s.reserved}
		if l := groupLabels(members[0]); len(l) > 0 {
			g.Labels = l
		}
		b.addGroup(g, members, nil)
	}
}

// addGroup appends a group and its nodes; groupTaints are on the template
// and left off the nodes.
func (b *builder) addGroup(g scenario.NodeGroup, nodes []*corev1.Node, groupTaints []corev1.Taint) {
	b.res.Scenario.NodeGroups = append(b.res.Scenario.NodeGroups, g)
	for _, n := range nodes {
		sn := scenario.Node{Name: n.Name, Group: g.Name, NotReady: !ready(n)}
		if since, failed := failedSince(n); failed {
			b.res.notef("node %s has been NotReady since %s after it was Ready: the simulation registers it NotReady, never Ready, so it "+
				"counts as starting (--max-node-startup-time) where the live loop counts it unready; scale-up and the cluster's health may decide differently",
				n.Name, since.UTC().Format(time.RFC3339))
		}
		for _, t := range nodeTaints(n) {
			if !slices.Contains(groupTaints, t) {
				sn.Taints.Value = append(sn.Taints.Value, t)
			}
		}
		b.res.Scenario.Nodes = append(b.res.Scenario.Nodes, sn)
		b.nodeGroup[n.Name] = g.Name
	}
}

var invalidNameChars = regexp.MustCompile(`[^a-z0-9.-]+`)

// uniqueGroupName turns a label value into a valid group name not used yet.
func (b *builder) uniqueGroupName(raw string) string {
	name := invalidNameChars.ReplaceAllString(strings.ToLower(raw), "-")
	name = strings.Trim(name, "-.")
	if len(name) > 200 {
		name = name[:200]
	}
	if name == "" || len(validation.IsDNS1123Subdomain(name)) > 0 {
		name = "group"
	}
	base := name
	for i := 2; b.groupNames[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	if name != raw && !strings.HasPrefix(raw, unmanagedPrefix) {
		b.res.notef("group %q is written as %q, a valid and unique group name", raw, name)
	}
	b.groupNames[name] = true
	return name
}

// templateMismatch names what of a node differs from its configured
// group: capacity (instance type or inline resources), reserved resources
// or the group's labels; empty when nothing does.
func templateMismatch(g scenario.NodeGroup, n *corev1.Node) string {
	var what []string
	s := shapeOf(n)
	switch {
	case len(g.InstanceTypes) > 0:
		if !slices.Contains(g.InstanceTypes, n.Labels[nodetemplate.LabelInstanceType]) || len(s.instanceTypes) == 0 {
			what = append(what, "capacity")
		}
	default:
		want := nonZero(g.Resources.List())
		if _, ok := want[corev1.ResourcePods]; !ok {
			want[corev1.ResourcePods] = resource.MustParse(inmemory.DefaultMaxPods)
		}
		if !equality.Semantic.DeepEqual(want, nonZero(n.Status.Capacity)) {
			what = append(what, "capacity")
		}
	}
	if !equality.Semantic.DeepEqual(nonZero(g.Reserved.List()), nonZero(corev1.ResourceList(s.reserved))) {
		what = append(what, "reserved resources")
	}
	for k, v := range g.Labels {
		if n.Labels[k] != v {
			what = append(what, "labels")
			break
		}
	}
	return strings.Join(what, " and ")
}
