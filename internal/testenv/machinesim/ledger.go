package machinesim

import (
	"context"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Ledger is what a machine stand-in keeps for the test that drives it:
// the failures the test injects per deployment, when each machine was
// first seen (its boot starts then), the machines it released and its
// reconcile errors. The Simulator and capienv's infrastructure stand-in
// embed one. The zero value is ready to use.
type Ledger struct {
	mu      sync.Mutex
	fail    map[string]Failure
	seen    map[types.UID]time.Time
	deleted []string
	errs    []error
}

// Fail makes the deployment's ("<namespace>/<name>") machines that have
// not booted fail with f; nil lets new machines boot again.
func (l *Ledger) Fail(deployment string, f *Failure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f == nil {
		delete(l.fail, deployment)
		return
	}
	if l.fail == nil {
		l.fail = map[string]Failure{}
	}
	l.fail[deployment] = *f
}

// Deleted returns "<namespace>/<name>" of every machine released, in
// order.
func (l *Ledger) Deleted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.deleted)
}

// Errors returns the reconcile errors seen so far other than conflicts
// and not-found errors.
func (l *Ledger) Errors() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs)
}

// Booting returns the failure injected for the machine's deployment, if
// any, and how long ago the machine was first seen (0 the first time).
func (l *Ledger) Booting(deployment string, machine types.UID) (f Failure, failing bool, booted time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, failing = l.fail[deployment]
	first, ok := l.seen[machine]
	if !ok {
		if l.seen == nil {
			l.seen = map[types.UID]time.Time{}
		}
		first = time.Now()
		l.seen[machine] = first
	}
	return f, failing, time.Since(first)
}

// Released records that the stand-in released the machine
// "<namespace>/<name>".
func (l *Ledger) Released(machine string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deleted = append(l.deleted, machine)
}

// Loop runs reconcile every interval until ctx ends and records its
// errors other than conflicts and not-found errors.
func (l *Ledger) Loop(ctx context.Context, interval time.Duration, reconcile func(context.Context) error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := reconcile(ctx); err != nil && ctx.Err() == nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			l.mu.Lock()
			l.errs = append(l.errs, err)
			l.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
