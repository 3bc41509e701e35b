package inmemory

import (
	"fmt"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Unlimited is the Capacity value of a group that can always deliver.
const Unlimited = -1

// GroupConfig describes one simulated node group.
type GroupConfig struct {
	// ID names the group.
	ID string
	// MinSize and MaxSize bound the target size.
	MinSize, MaxSize int
	// TargetSize is the initial target; instances for it are requested at
	// creation time like any later increase.
	TargetSize int
	// Template is what the provider reports for new instances.
	Template cloudprovider.Template
	// BootTime is how long a requested instance stays "creating".
	BootTime time.Duration
	// DeleteTime is how long a deleted instance stays "deleting".
	DeleteTime time.Duration
	// Capacity is how many more instances the cloud can deliver; Unlimited
	// (negative) means no limit. Requested capacity beyond it stays a
	// placeholder.
	Capacity int
	// StockoutError, when set, is reported on placeholders that wait for
	// capacity the cloud does not have (as AWS scaling activities do). When
	// nil such placeholders stay silent until the autoscaler times out.
	StockoutError *cloudprovider.ErrorInfo
	// Options are the group's own autoscaling options, reported as they are.
	Options cloudprovider.Options
}

// Default fills unset fields: unlimited capacity is not a default, because 0
// is a meaningful capacity; callers set Capacity explicitly.
func (c *GroupConfig) Default() {
	if c.Template.Tags == nil {
		c.Template.Tags = map[string]string{}
	}
}

// Validate checks the bounds and that the template has an instance type.
func (c *GroupConfig) Validate() error {
	switch {
	case c.ID == "":
		return fmt.Errorf("node group id is empty")
	case c.MinSize < 0 || c.MaxSize < c.MinSize:
		return fmt.Errorf("node group %q: need 0 <= min (%d) <= max (%d)", c.ID, c.MinSize, c.MaxSize)
	case c.TargetSize < c.MinSize || c.TargetSize > c.MaxSize:
		return fmt.Errorf("node group %q: target %d outside [%d, %d]", c.ID, c.TargetSize, c.MinSize, c.MaxSize)
	case len(c.Template.InstanceTypes) == 0:
		return fmt.Errorf("node group %q: template has no instance type", c.ID)
	case c.BootTime < 0 || c.DeleteTime < 0:
		return fmt.Errorf("node group %q: boot and delete times must not be negative", c.ID)
	}
	return nil
}

// machine is one real (non-placeholder) instance.
type machine struct {
	id           string
	providerID   string
	instanceType cloudprovider.InstanceType
	zone         string
	readyAt      time.Time
	deleteAt     time.Time
	deleting     bool
}

// group is the mutable state of one simulated node group.
type group struct {
	cfg      GroupConfig
	target   int
	machines []*machine
	// injected is the creation error set from outside; it wins over the
	// stock-out error.
	injected *cloudprovider.ErrorInfo
	apiErr   error
	launched int
}

// live returns the machines that are not being deleted.
func (g *group) live() int {
	n := 0
	for _, m := range g.machines {
		if !m.deleting {
			n++
		}
	}
	return n
}

// placeholderError is the error the group's placeholders carry now.
func (g *group) placeholderError() *cloudprovider.ErrorInfo {
	if g.injected != nil {
		return g.injected
	}
	if g.cfg.Capacity == 0 && g.cfg.StockoutError != nil {
		return g.cfg.StockoutError
	}
	return nil
}

// zone returns the zone new machines land in: the template's first zone,
// which is also the zone the template advertises.
func (g *group) zone() string {
	if len(g.cfg.Template.Zones) == 0 {
		return ""
	}
	return g.cfg.Template.Zones[0]
}

// instanceType returns the type a new machine gets: round-robin over the
// template's types.
func (g *group) instanceType(n int) cloudprovider.InstanceType {
	types := g.cfg.Template.InstanceTypes
	return types[n%len(types)]
}
