package live

import (
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
)

// Names of the ConfigMaps the autoscaler reads and writes in --namespace,
// the same as upstream's.
const (
	// PriorityConfigMapName holds the priority expander's configuration.
	PriorityConfigMapName = "cluster-autoscaler-priority-expander"
	// PriorityConfigMapKey is the key of the priorities YAML.
	PriorityConfigMapKey = "priorities"
	// StatusConfigMapName is the status ConfigMap.
	StatusConfigMapName = "cluster-autoscaler-status"
	// StatusConfigMapKey is the key of the status YAML.
	StatusConfigMapKey = "status"
)

// Priorities serves the priority expander's configuration from a
// namespaced ConfigMap informer, parsing each resourceVersion once.
type Priorities struct {
	lister    corelisters.ConfigMapNamespaceLister
	hasSynced cache.InformerSynced

	mu      sync.Mutex
	version string
	parsed  expander.Priorities
	err     error
}

// NewPriorities registers a ConfigMap informer on factory, which must be
// scoped to the autoscaler's namespace (informers.WithNamespace).
func NewPriorities(factory informers.SharedInformerFactory, namespace string) *Priorities {
	cm := factory.Core().V1().ConfigMaps()
	return &Priorities{lister: cm.Lister().ConfigMaps(namespace), hasSynced: cm.Informer().HasSynced}
}

// HasSynced reports whether the ConfigMap cache synced.
func (p *Priorities) HasSynced() bool { return p.hasSynced() }

// Source returns the expander.PrioritySource reading this ConfigMap.
func (p *Priorities) Source() expander.PrioritySource { return p.Get }

// Get returns the current priorities: an error when the ConfigMap is
// missing, lacks the priorities key or does not parse.
func (p *Priorities) Get() (expander.Priorities, error) {
	cm, err := p.lister.Get(PriorityConfigMapName)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("reading priorities: ConfigMap %s not found", PriorityConfigMapName)
	}
	if err != nil {
		return nil, fmt.Errorf("reading priorities: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if cm.ResourceVersion == p.version && p.version != "" {
		return p.parsed, p.err
	}
	data, ok := cm.Data[PriorityConfigMapKey]
	p.version = cm.ResourceVersion
	switch {
	case !ok:
		p.parsed, p.err = nil, fmt.Errorf("reading priorities: ConfigMap %s has no %q key", PriorityConfigMapName, PriorityConfigMapKey)
	default:
		p.parsed, p.err = expander.ParsePriorities(data)
	}
	return p.parsed, p.err
}
