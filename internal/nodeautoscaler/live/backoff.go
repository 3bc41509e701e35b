package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cmstore"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

// The ConfigMap that keeps the node groups' backoff across restarts and
// leader changes. Upstream keeps backoff in memory only; the fork's
// infinite backoff would be forgotten by every restart, so kscale persists
// it next to the status ConfigMap.
const (
	BackoffConfigMapName = "cluster-autoscaler-backoff"
	BackoffConfigMapKey  = "backoff.json"
	backoffVersion       = 1
)

// BackoffRestorer takes a restored backoff state before the first loop;
// *nodeautoscaler.Autoscaler implements it.
type BackoffRestorer interface {
	// RestoreBackoff replaces the backoff state; nothing changes when s is
	// invalid.
	RestoreBackoff(s backoff.State) error
}

// backoffDocument is the persisted form, versioned for later changes.
type backoffDocument struct {
	Version int           `json:"version"`
	State   backoff.State `json:"state"`
}

// ParseBackoff decodes a persisted backoff document strictly; the error
// names the offending field or entry.
func ParseBackoff(data []byte) (backoff.State, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return backoff.State{}, fmt.Errorf("decoding %s: empty document", BackoffConfigMapKey)
	}
	var doc backoffDocument
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return backoff.State{}, fmt.Errorf("decoding %s: %w", BackoffConfigMapKey, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return backoff.State{}, fmt.Errorf("decoding %s: unexpected data after the document", BackoffConfigMapKey)
	}
	if doc.Version != backoffVersion {
		return backoff.State{}, fmt.Errorf("decoding %s: version: got %d, want %d", BackoffConfigMapKey, doc.Version, backoffVersion)
	}
	if err := backoff.ValidateEntries(doc.State.ScaleUp); err != nil {
		return backoff.State{}, fmt.Errorf("decoding %s: state.scaleUp: %w", BackoffConfigMapKey, err)
	}
	if err := backoff.ValidateEntries(doc.State.APIErrors); err != nil {
		return backoff.State{}, fmt.Errorf("decoding %s: state.apiErrors: %w", BackoffConfigMapKey, err)
	}
	return doc.State, nil
}

// BackoffStore keeps the backoff in the cluster-autoscaler-backoff
// ConfigMap; it implements nodeautoscaler.BackoffStore.
//
// Upstream's RBAC does not name that ConfigMap (its Roles grant get and
// update on the status ConfigMap only), so a 403 on reading or writing it
// turns persistence off: one warning is logged and the backoff lives in
// memory only, as upstream's does.
type BackoffStore struct {
	store     *cmstore.Store
	namespace string
	// off is set once the API server refused access to the ConfigMap.
	off atomic.Bool
}

var _ nodeautoscaler.BackoffStore = (*BackoffStore)(nil)

// NewBackoffStore returns the store for the ConfigMap in namespace.
func NewBackoffStore(client kubernetes.Interface, namespace string) (*BackoffStore, error) {
	store, err := cmstore.New(cmstore.Config{Client: client, Namespace: namespace, Name: BackoffConfigMapName, Key: BackoffConfigMapKey,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "kscale-node-autoscaler"}})
	if err != nil {
		return nil, err
	}
	return &BackoffStore{store: store, namespace: namespace}, nil
}

// EncodeBackoff returns the persisted document of s, which ParseBackoff
// reads back.
func EncodeBackoff(s backoff.State) ([]byte, error) {
	data, err := json.Marshal(backoffDocument{Version: backoffVersion, State: s})
	if err != nil {
		return nil, fmt.Errorf("encoding backoff: %w", err)
	}
	return data, nil
}

// SaveBackoff writes s unless it equals what was last read or written.
func (b *BackoffStore) SaveBackoff(ctx context.Context, s backoff.State) error {
	if b.off.Load() {
		return nil
	}
	data, err := EncodeBackoff(s)
	if err != nil {
		return err
	}
	err = b.store.Save(ctx, data)
	if apierrors.IsForbidden(err) {
		b.turnOff(ctx, err)
		return nil
	}
	return err
}

// Persistent reports whether the backoff is still kept in the ConfigMap,
// false once the API server refused access to it.
func (b *BackoffStore) Persistent() bool { return !b.off.Load() }

// turnOff stops persisting after a 403 and says so once.
func (b *BackoffStore) turnOff(ctx context.Context, err error) {
	if b.off.Swap(true) {
		return
	}
	klog.FromContext(ctx).Info("Warning: backoff persistence is off; the backoff is kept in memory only and forgotten on restart. "+
		"Grant get and update on this ConfigMap to keep it", "configMap", klog.KRef(b.namespace, BackoffConfigMapName), "err", err.Error())
}

// Restore reads the persisted backoff into loop. A document that cannot be
// read as backoff is reported in the log and left to be replaced by the
// next save: refusing to run would stop all autoscaling, while a lost
// backoff only means a group is tried again. A 403 turns persistence off
// (see BackoffStore). Failing to reach the API server is an error.
func (b *BackoffStore) Restore(ctx context.Context, loop BackoffRestorer) error {
	data, found, err := b.store.Load(ctx)
	if apierrors.IsForbidden(err) {
		b.turnOff(ctx, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("restoring backoff: %w", err)
	}
	if !found {
		return nil
	}
	log := klog.FromContext(ctx)
	st, err := ParseBackoff(data)
	if err == nil {
		err = loop.RestoreBackoff(st)
	}
	if err != nil {
		log.Error(err, "Ignoring the persisted backoff", "configMap", klog.KRef(b.namespace, BackoffConfigMapName))
		return nil
	}
	log.Info("Restored backoff", "groups", len(st.ScaleUp)+len(st.APIErrors))
	return nil
}
