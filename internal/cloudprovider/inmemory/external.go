package inmemory

import (
	"fmt"
	"slices"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Machine describes a real instance for whoever plays the kubelet: the
// offline world registers a Node for every running machine.
type Machine struct {
	// Group is the node group id.
	Group string
	// ID is the instance id (also used as the node name).
	ID string
	// ProviderID is the node's spec.providerID.
	ProviderID string
	// InstanceType is the launched type.
	InstanceType cloudprovider.InstanceType
	// Zone is the machine's availability zone.
	Zone string
	// ReadyAt is when the machine finishes (or finished) booting.
	ReadyAt time.Time
	// Running is true once the boot time has passed.
	Running bool
	// Deleting is true once deletion was requested.
	Deleting bool
}

// Machines lists every real instance of every group, in group order.
func (c *Cloud) Machines() []Machine {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncLocked()
	now := c.clock.Now()
	var out []Machine
	for _, id := range c.order {
		for _, m := range c.groups[id].machines {
			out = append(out, Machine{Group: id, ID: m.id, ProviderID: m.providerID,
				InstanceType: m.instanceType, Zone: m.zone, ReadyAt: m.readyAt, Running: !now.Before(m.readyAt), Deleting: m.deleting})
		}
	}
	return out
}

// Group returns the current configuration and target of a group.
func (c *Cloud) Group(id string) (GroupConfig, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, err := c.groupLocked(id)
	if err != nil {
		return GroupConfig{}, 0, err
	}
	return g.cfg, g.target, nil
}

// UpdateGroup applies an external change to a group's configuration (max
// size, template, boot time, capacity, ...). The target is clamped into the
// new bounds, as a cloud console would.
func (c *Cloud) UpdateGroup(id string, change func(*GroupConfig)) error {
	return c.mutateGroup(id, func(g *group) error {
		cfg := g.cfg
		cfg.Template = cloneTemplate(g.cfg.Template)
		change(&cfg)
		cfg.ID = id
		cfg.TargetSize = min(max(g.target, cfg.MinSize), cfg.MaxSize)
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("updating node group: %w", err)
		}
		g.cfg, g.target = cfg, cfg.TargetSize
		c.syncLocked()
		return nil
	})
}

// SetTargetSize sets a group's target from outside (an operator or another
// tool). Lowering it below the live machines terminates the newest ones.
func (c *Cloud) SetTargetSize(id string, target int) error {
	return c.mutateGroup(id, func(g *group) error {
		if target < 0 || target > g.cfg.MaxSize {
			return fmt.Errorf("setting target of node group %q: %d outside [0, %d]", id, target, g.cfg.MaxSize)
		}
		now := c.clock.Now()
		for i := len(g.machines) - 1; i >= 0 && g.live() > target; i-- {
			if m := g.machines[i]; !m.deleting {
				m.deleting, m.deleteAt = true, now.Add(g.cfg.DeleteTime)
			}
		}
		g.target = target
		c.syncLocked()
		return nil
	})
}

// AddInstance adds a machine by hand. With incrementTarget the target grows
// by one; otherwise the machine fulfils one placeholder. A zero bootTime
// makes it running at once.
func (c *Cloud) AddInstance(groupID, instanceID string, incrementTarget bool, bootTime time.Duration) error {
	return c.mutateGroup(groupID, func(g *group) error {
		if instanceID == "" {
			instanceID = c.newIDLocked()
		} else if c.taken[instanceID] {
			return fmt.Errorf("adding instance to node group %q: id %q already used", groupID, instanceID)
		}
		if incrementTarget {
			if g.target+1 > g.cfg.MaxSize {
				return &cloudprovider.SizeError{Group: groupID, Requested: g.target + 1, Limit: g.cfg.MaxSize, Bound: cloudprovider.BoundAboveMax}
			}
			g.target++
		} else if g.live() >= g.target {
			return fmt.Errorf("adding instance to node group %q: no placeholder to fulfil (target %d)", groupID, g.target)
		}
		c.taken[instanceID] = true
		g.machines = append(g.machines, &machine{id: instanceID, providerID: ProviderID(groupID, instanceID), instanceType: g.instanceType(g.launched),
			zone: g.zone(), readyAt: c.clock.Now().Add(bootTime)})
		g.launched++
		return nil
	})
}

// RemoveInstance makes a machine vanish (terminated outside the autoscaler);
// with decrementTarget the target drops with it, otherwise the cloud will
// replace it.
func (c *Cloud) RemoveInstance(groupID, instanceID string, decrementTarget bool) error {
	return c.mutateGroup(groupID, func(g *group) error {
		i := slices.IndexFunc(g.machines, func(m *machine) bool { return m.id == instanceID })
		if i < 0 {
			return &cloudprovider.NotFoundError{Kind: "instance", Name: instanceID}
		}
		g.machines = slices.Delete(g.machines, i, i+1)
		if decrementTarget && g.target > 0 {
			g.target--
		}
		c.syncLocked()
		return nil
	})
}

// SetCreationError makes the group fail to create instances: its
// placeholders report info until ClearCreationError.
func (c *Cloud) SetCreationError(groupID string, info cloudprovider.ErrorInfo) error {
	return c.withGroup(groupID, func(g *group) { g.injected = &info })
}

// ClearCreationError lets the group create instances again.
func (c *Cloud) ClearCreationError(groupID string) error {
	return c.withGroup(groupID, func(g *group) { g.injected = nil })
}

// SetAPIError makes IncreaseSize calls for the group fail with err; nil
// clears it.
func (c *Cloud) SetAPIError(groupID string, err error) error {
	return c.withGroup(groupID, func(g *group) { g.apiErr = err })
}

// withGroup applies an external change that cannot fail to a group and
// lets the cloud react to it.
func (c *Cloud) withGroup(id string, f func(*group)) error {
	return c.mutateGroup(id, func(g *group) error {
		f(g)
		c.syncLocked()
		return nil
	})
}

// mutateGroup runs f on the group under the lock, counting it as a change
// (see Changes). f decides itself whether the cloud reacts (syncLocked).
func (c *Cloud) mutateGroup(id string, f func(*group) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	g, err := c.groupLocked(id)
	if err != nil {
		return err
	}
	return f(g)
}

// Changes returns a counter that moves whenever groups or machines change,
// and the next time a machine finishes booting or deleting (zero when
// none is pending), so a caller can tell when nothing can have changed.
func (c *Cloud) Changes() (uint64, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.syncLocked()
	now := c.clock.Now()
	var next time.Time
	for _, g := range c.groups {
		for _, m := range g.machines {
			pending := []time.Time{m.readyAt}
			if m.deleting {
				pending = append(pending, m.deleteAt)
			}
			for _, t := range pending {
				if t.After(now) && (next.IsZero() || t.Before(next)) {
					next = t
				}
			}
		}
	}
	return c.gen, next
}
