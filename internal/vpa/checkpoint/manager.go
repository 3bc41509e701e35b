package checkpoint

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpatypedv1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned/typed/autoscaling.k8s.io/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/vpa/model"
)

// Config holds the checkpoint settings.
type Config struct {
	// Timeout bounds one round of writes (--checkpoints-timeout, 1m).
	Timeout time.Duration
	// GCInterval is the least time between garbage collections
	// (--checkpoints-gc-interval, 10m).
	GCInterval time.Duration
	// Workers is the number of concurrent writers (10); each finishes at
	// least one VPA per round even past the timeout.
	Workers int
}

// Default fills unset fields.
func (c *Config) Default() {
	if c.Timeout == 0 {
		c.Timeout = time.Minute
	}
	if c.GCInterval == 0 {
		c.GCInterval = 10 * time.Minute
	}
	if c.Workers == 0 {
		c.Workers = 10
	}
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	if c.Timeout <= 0 || c.GCInterval <= 0 || c.Workers <= 0 {
		return errors.New("checkpoints: timeout, gc interval and workers must be positive")
	}
	return nil
}

// Manager writes, loads and collects checkpoints. Write and
// GarbageCollect are not meant to run concurrently with each other.
type Manager struct {
	client vpatypedv1.VerticalPodAutoscalerCheckpointsGetter
	cfg    Config

	mu          sync.Mutex
	lastWritten map[model.VPAID]time.Time
	lastGC      time.Time
}

// NewManager returns a Manager; cfg must be defaulted and valid.
func NewManager(client vpatypedv1.VerticalPodAutoscalerCheckpointsGetter, cfg Config) *Manager {
	return &Manager{client: client, cfg: cfg, lastWritten: map[model.VPAID]time.Time{}}
}

// Name returns the checkpoint name of a VPA's container.
func Name(vpaName, container string) string { return vpaName + "-" + container }

// Write stores the history of the given VPAs, least recently written
// first, until the time budget runs out. It returns how many VPAs were
// written and the first error met.
func (m *Manager) Write(ctx context.Context, cluster *model.Cluster, vpas []model.VPAID, now time.Time) (int, error) {
	order := m.order(vpas)
	budget, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	work := make(chan model.VPAID)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		written int
		first   error
	)
	for range min(m.cfg.Workers, len(order)) {
		wg.Go(func() {
			done := 0
			for id := range work {
				if done > 0 && budget.Err() != nil {
					continue
				}
				err := m.writeVPA(ctx, cluster, id, now)
				done++
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil {
					written++
				}
				mu.Unlock()
			}
		})
	}
	for _, id := range order {
		work <- id
	}
	close(work)
	wg.Wait()
	return written, first
}

// order sorts VPAs by the time their checkpoints were last written.
func (m *Manager) order(vpas []model.VPAID) []model.VPAID {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(vpas)
	slices.SortStableFunc(out, func(a, b model.VPAID) int {
		return m.lastWritten[a].Compare(m.lastWritten[b])
	})
	return out
}

// writeVPA stores every container of one VPA.
func (m *Manager) writeVPA(ctx context.Context, cluster *model.Cluster, id model.VPAID, now time.Time) error {
	for container, state := range cluster.CheckpointStates(id, now) {
		if err := m.store(ctx, id, container, state.SaveToCheckpoint(now)); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.lastWritten[id] = now
	m.mu.Unlock()
	return nil
}

// store replaces the checkpoint's status, creating the checkpoint when missing.
func (m *Manager) store(ctx context.Context, id model.VPAID, container string, st vpav1.VerticalPodAutoscalerCheckpointStatus) error {
	api := m.client.VerticalPodAutoscalerCheckpoints(id.Namespace)
	name := Name(id.Name, container)
	patch, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/status", "value": st}})
	if err != nil {
		return fmt.Errorf("encoding checkpoint %s/%s: %w", id.Namespace, name, err)
	}
	_, err = api.Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("patching checkpoint %s/%s: %w", id.Namespace, name, err)
	}
	cp := &vpav1.VerticalPodAutoscalerCheckpoint{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: id.Namespace},
		Spec:       vpav1.VerticalPodAutoscalerCheckpointSpec{VPAObjectName: id.Name, ContainerName: container},
		Status:     st,
	}
	if _, err := api.Create(ctx, cp, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating checkpoint %s/%s: %w", id.Namespace, name, err)
	}
	return nil
}

// Load reads every checkpoint of a VPA known to cluster into it. Broken
// checkpoints are skipped and logged; it returns how many were loaded.
func (m *Manager) Load(ctx context.Context, cluster *model.Cluster, now time.Time) (int, error) {
	list, err := m.client.VerticalPodAutoscalerCheckpoints(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("listing checkpoints: %w", err)
	}
	log := klog.FromContext(ctx)
	items := list.Items
	slices.SortFunc(items, func(a, b vpav1.VerticalPodAutoscalerCheckpoint) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	loaded := 0
	for i := range items {
		cp := &items[i]
		id := model.VPAID{Namespace: cp.Namespace, Name: cp.Spec.VPAObjectName}
		if !cluster.HasVPA(id) || cp.Spec.ContainerName == "" {
			continue
		}
		state, err := model.LoadAggregateFromCheckpoint(cluster.Config(), &cp.Status, now)
		if err != nil {
			log.Info("Skipping unreadable checkpoint", "checkpoint", klog.KObj(cp), "err", err)
			continue
		}
		cluster.SetCheckpointState(id, cp.Spec.ContainerName, state)
		loaded++
	}
	return loaded, nil
}

// GCDue reports whether GarbageCollect would run at now.
func (m *Manager) GCDue(now time.Time) bool {
	return m.lastGC.IsZero() || now.Sub(m.lastGC) >= m.cfg.GCInterval
}

// GarbageCollect deletes checkpoints whose VPA is not in existing, at most
// once per GCInterval (judged by now). existing must come from a fresh
// list of all VPAs, whichever recommender serves them. It returns how many
// checkpoints it deleted.
func (m *Manager) GarbageCollect(ctx context.Context, existing map[model.VPAID]bool, now time.Time) (int, error) {
	if !m.GCDue(now) {
		return 0, nil
	}
	list, err := m.client.VerticalPodAutoscalerCheckpoints(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("listing checkpoints: %w", err)
	}
	m.lastGC = now
	deleted := 0
	for _, cp := range list.Items {
		id := model.VPAID{Namespace: cp.Namespace, Name: cp.Spec.VPAObjectName}
		if existing[id] {
			continue
		}
		err := m.client.VerticalPodAutoscalerCheckpoints(cp.Namespace).Delete(ctx, cp.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return deleted, fmt.Errorf("deleting checkpoint %s/%s: %w", cp.Namespace, cp.Name, err)
		}
		deleted++
		m.mu.Lock()
		delete(m.lastWritten, id)
		m.mu.Unlock()
	}
	return deleted, nil
}
