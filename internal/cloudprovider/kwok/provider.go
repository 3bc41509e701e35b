package kwok

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/scenario"
)

// ProviderIDPrefix starts the spec.providerID of every node the kwok
// provider creates: the in-memory cloud's prefix, then group/instance.
const ProviderIDPrefix = inmemory.ProviderIDPrefix

// Config configures a Provider.
type Config struct {
	// Client creates and deletes the Node objects.
	Client kubernetes.Interface
	// Clock drives boot times and the node reconciler.
	Clock clock.WithTicker
	// NodeGroups are the groups, as parsed by ParseCloudConfig.
	NodeGroups []scenario.NodeGroup
	// SyncInterval is how often machines are mirrored as nodes; default 1s.
	SyncInterval time.Duration
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.SyncInterval == 0 {
		c.SyncInterval = time.Second
	}
}

// Validate reports invalid fields.
func (c *Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("client: required")
	case len(c.NodeGroups) == 0:
		return errors.New("nodeGroups: at least one group is required")
	case c.SyncInterval < 0:
		return errors.New("syncInterval: must not be negative")
	}
	return nil
}

// Provider is the kwok cloud provider: an in-memory cloud (capacity limits,
// boot times, injected errors) whose running machines are mirrored as Node
// objects in the cluster. It implements cloudprovider.Provider through the
// embedded cloud; Run keeps the nodes in step.
type Provider struct {
	*inmemory.Cloud
	cfg      Config
	reserved map[string]corev1.ResourceList
}

var _ cloudprovider.Provider = (*Provider)(nil)

// New validates cfg and builds a Provider with its groups. Call Start
// before use so nodes that already exist are adopted.
func New(cfg Config) (*Provider, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring kwok provider: %w", err)
	}
	p := &Provider{Cloud: inmemory.New(cfg.Clock), cfg: cfg, reserved: map[string]corev1.ResourceList{}}
	for _, g := range cfg.NodeGroups {
		gc, err := groupConfig(g)
		if err != nil {
			return nil, fmt.Errorf("configuring kwok provider: %w", err)
		}
		gc.MinSize, gc.TargetSize = 0, 0
		if err := p.AddGroup(gc); err != nil {
			return nil, fmt.Errorf("configuring kwok provider: %w", err)
		}
		p.reserved[g.Name] = g.Reserved.List()
	}
	return p, nil
}

// Start adopts the kwok nodes that already exist (after a restart the cloud
// is rebuilt from the cluster), then applies each group's initial target
// and minimum size.
func (p *Provider) Start(ctx context.Context) error {
	nodes, err := p.cfg.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes to adopt: %w", err)
	}
	for i := range nodes.Items {
		group, id, ok := parseProviderID(nodes.Items[i].Spec.ProviderID)
		if !ok {
			continue
		}
		if err := p.AddInstance(group, id, true, 0); err != nil {
			klog.FromContext(ctx).Info("Not adopting node", "node", klog.KObj(&nodes.Items[i]), "err", err.Error())
		}
	}
	for _, g := range p.cfg.NodeGroups {
		_, target, err := p.Group(g.Name)
		if err != nil {
			return err
		}
		if g.Target > target {
			if err := p.SetTargetSize(g.Name, g.Target); err != nil {
				return fmt.Errorf("applying initial target: %w", err)
			}
		}
		if err := p.UpdateGroup(g.Name, func(c *inmemory.GroupConfig) { c.MinSize = g.Min }); err != nil {
			return fmt.Errorf("applying min size: %w", err)
		}
	}
	return nil
}

// Run mirrors machines as nodes every SyncInterval until ctx ends.
func (p *Provider) Run(ctx context.Context) error {
	t := p.cfg.Clock.NewTicker(p.cfg.SyncInterval)
	defer t.Stop()
	log := klog.FromContext(ctx).WithName("kwok-provider")
	for {
		if err := p.Sync(ctx); err != nil {
			log.Info("Mirroring machines as nodes failed", "err", err.Error())
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
		}
	}
}

// parseProviderID splits a kwok provider id into group and instance.
func parseProviderID(id string) (group, instance string, ok bool) {
	rest, ok := strings.CutPrefix(id, ProviderIDPrefix)
	if !ok {
		return "", "", false
	}
	group, instance, ok = strings.Cut(rest, "/")
	return group, instance, ok && group != "" && instance != ""
}
