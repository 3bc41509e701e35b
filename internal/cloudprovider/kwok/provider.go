package kwok

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cmstore"
	"github.com/kscale/kscale/internal/operator"
)

// ProviderIDPrefix starts the spec.providerID of every node the kwok
// provider creates: the in-memory cloud's prefix, then group/instance.
const ProviderIDPrefix = inmemory.ProviderIDPrefix

// Config configures a Provider.
type Config struct {
	// Client makes the cloud's API calls: it keeps the target sizes.
	Client kubernetes.Interface
	// NodeClient creates, readies and deletes the Node objects: it plays
	// the machines' kubelets, which register their own nodes with their
	// own clients in a real cluster, so these writes share no rate limit
	// with the cloud's API calls. Default Client.
	NodeClient kubernetes.Interface
	// Clock drives boot times and the node reconciler.
	Clock clock.WithTicker
	// NodeGroups are the groups, as parsed by ParseCloudConfig.
	NodeGroups []inmemory.NodeGroupEntry
	// SyncInterval is how often machines are mirrored as nodes; default 1s.
	SyncInterval time.Duration
	// Nodes, when set, is the node informer's lister Sync reads instead of
	// listing every node from the API server each time.
	Nodes corelisters.NodeLister
	// Namespace holds the ConfigMap that keeps the groups' target sizes
	// (StateConfigMapName); default kube-system.
	Namespace string
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.SyncInterval == 0 {
		c.SyncInterval = time.Second
	}
	if c.Namespace == "" {
		c.Namespace = metav1.NamespaceSystem
	}
	if c.NodeClient == nil {
		c.NodeClient = c.Client
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
// boot times, injected errors) whose machines are mirrored as Node objects
// in the cluster, and whose target sizes are kept in a ConfigMap, so the
// cloud's state lives in the cluster as a real cloud's lives in its API. It
// implements cloudprovider.Provider through the embedded cloud; the size
// changes write the targets before they return, and Run keeps the nodes in
// step with launches, boots and deletions.
type Provider struct {
	*inmemory.Cloud
	cfg      Config
	reserved map[string]corev1.ResourceList
	// realNodes says how each group's registered nodes differ from its
	// template (the entry's realNodes).
	realNodes map[string]*inmemory.RealNodes
	targets   *cmstore.Store
	// mu serializes size changes with Sync's read of the machines, so the
	// targets written reflect one state of the cloud; syncMu serializes
	// Syncs.
	mu, syncMu sync.Mutex
	// kick has Run sync at once after a size change.
	kick *operator.Trigger
}

var _ cloudprovider.Provider = (*Provider)(nil)

// New validates cfg and builds a Provider with its groups. Call Start
// before use so nodes that already exist are adopted.
func New(cfg Config) (*Provider, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring kwok provider: %w", err)
	}
	targets, err := cmstore.New(cmstore.Config{Client: cfg.Client, Namespace: cfg.Namespace, Name: StateConfigMapName, Key: stateKey,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "kscale-kwok-provider"}})
	if err != nil {
		return nil, fmt.Errorf("configuring kwok provider: %w", err)
	}
	p := &Provider{Cloud: inmemory.New(cfg.Clock), cfg: cfg, reserved: map[string]corev1.ResourceList{},
		realNodes: map[string]*inmemory.RealNodes{}, targets: targets,
		kick: operator.NewTrigger()}
	for _, g := range cfg.NodeGroups {
		gc, err := g.GroupConfig()
		if err != nil {
			return nil, fmt.Errorf("configuring kwok provider: %w", err)
		}
		if err := p.AddGroup(gc); err != nil {
			return nil, fmt.Errorf("configuring kwok provider: %w", err)
		}
		p.reserved[g.Name] = g.Reserved.List()
		p.realNodes[g.Name] = g.RealNodes
	}
	return p, nil
}

// Start rebuilds the cloud from the cluster: the kwok nodes that exist are
// adopted (booting ones resume their boot), the persisted target sizes are
// restored (so unfulfilled requests stay open), and groups without a
// persisted target get their initial target and minimum size.
func (p *Provider) Start(ctx context.Context) error {
	targets, err := p.loadTargets(ctx)
	if err != nil {
		return err
	}
	nodes, err := p.cfg.NodeClient.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes to adopt: %w", err)
	}
	for i := range nodes.Items {
		p.adopt(ctx, &nodes.Items[i])
	}
	for _, g := range p.cfg.NodeGroups {
		want, ok := targets[g.Name]
		if !ok {
			want = g.InitialTarget()
		}
		_, target, err := p.Group(g.Name)
		if err != nil {
			return err
		}
		if want > target {
			if err := p.SetTargetSize(g.Name, min(want, g.Max)); err != nil {
				return fmt.Errorf("restoring target of node group %q: %w", g.Name, err)
			}
		}
		if err := p.UpdateGroup(g.Name, func(c *inmemory.GroupConfig) { c.MinSize = g.Min }); err != nil {
			return fmt.Errorf("applying min size: %w", err)
		}
	}
	return p.persist(ctx)
}

// adopt adds the machine behind an existing kwok node; a node that is still
// booting keeps its remaining boot time.
func (p *Provider) adopt(ctx context.Context, n *corev1.Node) {
	group, id, ok := parseProviderID(n.Spec.ProviderID)
	if !ok {
		return
	}
	var boot time.Duration
	if v := n.Annotations[AnnotationReadyAt]; v != "" {
		if at, err := time.Parse(time.RFC3339Nano, v); err == nil {
			boot = max(0, at.Sub(p.cfg.Clock.Now()))
		}
	}
	if err := p.AddInstance(group, id, true, boot); err != nil {
		klog.FromContext(ctx).Info("Not adopting node", "node", klog.KObj(n), "err", err.Error())
	}
}

// Run mirrors machines as nodes at once, every SyncInterval, and early
// after a size change, until ctx ends.
func (p *Provider) Run(ctx context.Context) error {
	log := klog.FromContext(ctx).WithName("kwok-provider")
	loop := operator.Loop{Clock: p.cfg.Clock, Interval: p.cfg.SyncInterval, Immediate: true, Trigger: p.kick}
	return loop.Run(ctx, func(ctx context.Context) {
		if err := p.Sync(ctx); err != nil {
			log.Info("Mirroring machines as nodes failed", "err", err.Error())
		}
	})
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

// InstanceKnowledge implements cloudprovider.Provider.
// Upstream's kwok HasInstance reports every node's instance as existing;
// kscale answers as it does.
func (*Provider) InstanceKnowledge() cloudprovider.InstanceKnowledge {
	return cloudprovider.AssumesInstancesExist
}
