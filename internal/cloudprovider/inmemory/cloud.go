package inmemory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// ProviderIDPrefix starts every provider id this cloud hands out.
const ProviderIDPrefix = "inmemory:///"

// Cloud is the simulated cloud. It is safe for concurrent use.
type Cloud struct {
	mu     sync.Mutex
	clock  clock.PassiveClock
	groups map[string]*group
	order  []string
	nextID int
	taken  map[string]bool
	// gen counts changes to groups and machines (not reads).
	gen uint64
	// refresh, views and refreshedAt emulate a cached instance list.
	refresh     time.Duration
	views       map[string][]cloudprovider.Instance
	refreshedAt time.Time
}

var _ cloudprovider.Provider = (*Cloud)(nil)

// New returns an empty cloud reading time from clk.
func New(clk clock.PassiveClock) *Cloud {
	return &Cloud{clock: clk, groups: map[string]*group{}, taken: map[string]bool{}}
}

// ProviderID returns the provider id of an instance of a group.
func ProviderID(groupID, instanceID string) string {
	return ProviderIDPrefix + groupID + "/" + instanceID
}

// AddGroup adds a node group; its initial target is requested at once.
func (c *Cloud) AddGroup(cfg GroupConfig) error {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("adding node group: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if _, ok := c.groups[cfg.ID]; ok {
		return fmt.Errorf("adding node group: %q already exists", cfg.ID)
	}
	c.groups[cfg.ID] = &group{cfg: cfg, target: cfg.TargetSize}
	c.order = append(c.order, cfg.ID)
	c.syncLocked()
	return nil
}

// RemoveGroup removes a node group with all its instances.
func (c *Cloud) RemoveGroup(id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if _, err := c.groupLocked(id); err != nil {
		return err
	}
	delete(c.groups, id)
	c.order = slices.DeleteFunc(c.order, func(s string) bool { return s == id })
	return nil
}

// NodeGroups lists the groups in the order they were added.
func (c *Cloud) NodeGroups(_ context.Context) ([]cloudprovider.NodeGroup, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncLocked()
	out := make([]cloudprovider.NodeGroup, 0, len(c.order))
	for _, id := range c.order {
		g := c.groups[id]
		out = append(out, cloudprovider.NodeGroup{
			ID: id, MinSize: g.cfg.MinSize, MaxSize: g.cfg.MaxSize, TargetSize: g.target,
			Template: cloneTemplate(g.cfg.Template), Options: g.cfg.Options,
		})
	}
	return out, nil
}

// Instances lists a group's machines followed by its placeholders.
func (c *Cloud) Instances(_ context.Context, groupID string) ([]cloudprovider.Instance, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refresh > 0 {
		if _, err := c.groupLocked(groupID); err != nil {
			return nil, err
		}
		if view, ok := c.views[groupID]; ok {
			return slices.Clone(view), nil
		}
	}
	return c.instancesLocked(groupID)
}

// instancesLocked lists a group's instances as they are now.
func (c *Cloud) instancesLocked(groupID string) ([]cloudprovider.Instance, error) {
	c.syncLocked()
	g, err := c.groupLocked(groupID)
	if err != nil {
		return nil, err
	}
	now := c.clock.Now()
	out := make([]cloudprovider.Instance, 0, max(g.target, len(g.machines)))
	for _, m := range g.machines {
		state := cloudprovider.InstanceRunning
		switch {
		case m.deleting:
			state = cloudprovider.InstanceDeleting
		case now.Before(m.readyAt):
			state = cloudprovider.InstanceCreating
		}
		out = append(out, cloudprovider.Instance{ID: m.id, ProviderID: m.providerID, State: state})
	}
	perr := g.placeholderError()
	for k := range g.target - g.live() {
		id := placeholderID(groupID, k)
		inst := cloudprovider.Instance{ID: id, ProviderID: ProviderID(groupID, id),
			State: cloudprovider.InstanceCreating, Placeholder: true}
		if perr != nil {
			e := *perr
			inst.Error = &e
		}
		out = append(out, inst)
	}
	return out, nil
}

// IncreaseSize raises the target; machines are requested at once.
func (c *Cloud) IncreaseSize(_ context.Context, groupID string, delta int) error {
	return c.mutateGroup(groupID, func(g *group) error {
		if g.apiErr != nil {
			return &cloudprovider.APIError{Op: "IncreaseSize", Group: groupID, Err: g.apiErr}
		}
		if delta <= 0 {
			return fmt.Errorf("increasing size of node group %q: delta %d must be positive", groupID, delta)
		}
		if g.target+delta > g.cfg.MaxSize {
			return &cloudprovider.SizeError{Group: groupID, Requested: g.target + delta, Limit: g.cfg.MaxSize, Bound: cloudprovider.BoundAboveMax}
		}
		g.target += delta
		c.syncLocked()
		return nil
	})
}

// DecreaseTargetSize lowers the target without terminating machines.
func (c *Cloud) DecreaseTargetSize(_ context.Context, groupID string, delta int) error {
	return c.mutateGroup(groupID, func(g *group) error {
		if delta <= 0 {
			return fmt.Errorf("decreasing target size of node group %q: delta %d must be positive", groupID, delta)
		}
		if g.target-delta < g.live() {
			return &cloudprovider.SizeError{Group: groupID, Requested: g.target - delta, Limit: g.live(), Bound: cloudprovider.BoundBelowInstances}
		}
		g.target -= delta
		return nil
	})
}

// DeleteInstances deletes machines and placeholders, lowering the target by
// their number. Nothing changes when any id is unknown.
func (c *Cloud) DeleteInstances(_ context.Context, groupID string, ids []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.views = nil
	c.syncLocked()
	g, err := c.groupLocked(groupID)
	if err != nil {
		return err
	}
	var ms []*machine
	placeholders := 0
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return fmt.Errorf("deleting instances of node group %q: %q listed twice", groupID, id)
		}
		seen[id] = true
		if k, ok := parsePlaceholder(groupID, id); ok && k < g.target-g.live() {
			placeholders++
			continue
		}
		i := slices.IndexFunc(g.machines, func(m *machine) bool { return m.id == id && !m.deleting })
		if i < 0 {
			return &cloudprovider.NotFoundError{Kind: "instance", Name: id}
		}
		ms = append(ms, g.machines[i])
	}
	if g.target-len(ids) < g.cfg.MinSize {
		return &cloudprovider.SizeError{Group: groupID, Requested: g.target - len(ids), Limit: g.cfg.MinSize, Bound: cloudprovider.BoundBelowMin}
	}
	now := c.clock.Now()
	for _, m := range ms {
		m.deleting, m.deleteAt = true, now.Add(g.cfg.DeleteTime)
	}
	g.target -= len(ids)
	c.syncLocked()
	return nil
}

// Refresh regenerates the instance lists Instances reports when an
// instance refresh interval is set (SetInstanceRefresh) and it has passed,
// or a deletion invalidated them; without an interval the lists are always
// current and Refresh does nothing.
func (c *Cloud) Refresh(_ context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	if c.refresh <= 0 || (c.views != nil && now.Sub(c.refreshedAt) < c.refresh) {
		return nil
	}
	c.views = map[string][]cloudprovider.Instance{}
	for _, id := range c.order {
		view, err := c.instancesLocked(id)
		if err != nil {
			return err
		}
		c.views[id] = view
	}
	c.refreshedAt = now
	return nil
}

// SetInstanceRefresh makes Instances report lists regenerated at most every
// d by Refresh, as AWS's describe calls are cached by the cluster
// autoscaler's AWS provider; a deletion invalidates them at once.
func (c *Cloud) SetInstanceRefresh(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refresh, c.views = d, nil
}

// syncLocked requests machines for unfulfilled target and forgets machines
// whose deletion finished.
func (c *Cloud) syncLocked() {
	now := c.clock.Now()
	for _, id := range c.order {
		g := c.groups[id]
		before := len(g.machines)
		g.machines = slices.DeleteFunc(g.machines, func(m *machine) bool { return m.deleting && !now.Before(m.deleteAt) })
		if len(g.machines) != before {
			c.gen++
		}
		for g.live() < g.target && g.injected == nil && g.cfg.Capacity != 0 {
			id := c.newIDLocked()
			g.machines = append(g.machines, &machine{
				id: id, providerID: ProviderID(g.cfg.ID, id), instanceType: g.instanceType(g.launched), zone: g.zone(),
				readyAt: now.Add(g.cfg.BootTime),
			})
			g.launched++
			c.gen++
			if g.cfg.Capacity > 0 {
				g.cfg.Capacity--
			}
		}
	}
}

func (c *Cloud) newIDLocked() string {
	for {
		c.nextID++
		id := "i-" + strconv.Itoa(c.nextID)
		if !c.taken[id] {
			c.taken[id] = true
			return id
		}
	}
}

func (c *Cloud) groupLocked(id string) (*group, error) {
	g, ok := c.groups[id]
	if !ok {
		return nil, &cloudprovider.NotFoundError{Kind: "node group", Name: id}
	}
	return g, nil
}

func placeholderID(groupID string, k int) string {
	return groupID + "-placeholder-" + strconv.Itoa(k)
}

func parsePlaceholder(groupID, id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, groupID+"-placeholder-")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	return k, err == nil && k >= 0
}

func cloneTemplate(t cloudprovider.Template) cloudprovider.Template {
	out := cloudprovider.Template{Zones: slices.Clone(t.Zones), Region: t.Region, Tags: make(map[string]string, len(t.Tags)),
		Taints: slices.Clone(t.Taints), UnavailableReason: t.UnavailableReason, PricePerHour: t.PricePerHour}
	for k, v := range t.Tags {
		out.Tags[k] = v
	}
	for _, it := range t.InstanceTypes {
		out.InstanceTypes = append(out.InstanceTypes, cloudprovider.InstanceType{Name: it.Name, Capacity: it.Capacity.DeepCopy()})
	}
	return out
}

// InstanceKnowledge implements cloudprovider.Provider.
// A listed instance exists; about a node of no listed instance the cloud
// cannot tell, as upstream's aws provider answers for the auto scaling
// groups the in-memory cloud stands for.
func (*Cloud) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	return cloudprovider.KnowsListedInstances
}
