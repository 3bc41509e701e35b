package offline

import (
	"context"
	"fmt"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// backoffStore keeps the node groups' backoff across autoscaler restarts,
// as the live command's cluster-autoscaler-backoff ConfigMap does: it holds
// the same JSON document (live.EncodeBackoff), and a restarted autoscaler
// reads it back (live.ParseBackoff) before its first loop.
type backoffStore struct {
	data []byte
}

var _ nodeautoscaler.BackoffStore = (*backoffStore)(nil)

// SaveBackoff implements nodeautoscaler.BackoffStore.
func (b *backoffStore) SaveBackoff(_ context.Context, s backoff.State) error {
	data, err := live.EncodeBackoff(s)
	if err != nil {
		return err
	}
	b.data = data
	return nil
}

// restore gives loop the saved backoff; nothing was saved before the first
// start. Unlike the live command, which logs a document it cannot read and
// runs on, the world fails: it wrote the document itself.
func (b *backoffStore) restore(loop live.BackoffRestorer) error {
	if b.data == nil {
		return nil
	}
	st, err := live.ParseBackoff(b.data)
	if err != nil {
		return fmt.Errorf("restoring backoff: %w", err)
	}
	if err := loop.RestoreBackoff(st); err != nil {
		return fmt.Errorf("restoring backoff: %w", err)
	}
	return nil
}
