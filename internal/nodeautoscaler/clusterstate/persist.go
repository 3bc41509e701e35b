package clusterstate

import (
	"fmt"

	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

// BackoffState exports the backoff policies' state so it can outlive the
// process; policies that cannot export contribute nothing.
func (r *Registry) BackoffState() backoff.State {
	var s backoff.State
	if p, ok := r.cfg.Backoff.(backoff.Persistent); ok {
		s.ScaleUp = p.Entries()
	}
	if p, ok := r.cfg.APIErrorBackoff.(backoff.Persistent); ok {
		s.APIErrors = p.Entries()
	}
	return s
}

// RestoreBackoff replaces the backoff policies' state with s, as a new
// leader does before its first loop. Nothing changes when s is invalid.
// Without a separate API-error policy its entries join the main policy.
func (r *Registry) RestoreBackoff(s backoff.State) error {
	main, ok := r.cfg.Backoff.(backoff.Persistent)
	if !ok {
		return fmt.Errorf("restoring backoff: policy %T cannot be restored", r.cfg.Backoff)
	}
	api, hasAPI := r.cfg.APIErrorBackoff.(backoff.Persistent)
	mainEntries := s.ScaleUp
	if !hasAPI {
		mainEntries = mergeEntries(s.ScaleUp, s.APIErrors)
	}
	if err := backoff.ValidateEntries(mainEntries); err != nil {
		return err
	}
	if hasAPI {
		if err := backoff.ValidateEntries(s.APIErrors); err != nil {
			return err
		}
		_ = api.Restore(s.APIErrors) // validated above
	}
	_ = main.Restore(mainEntries) // validated above
	return nil
}

// mergeEntries appends the extra entries whose group is not in base.
func mergeEntries(base, extra []backoff.Entry) []backoff.Entry {
	seen := make(map[string]bool, len(base))
	for _, e := range base {
		seen[e.Group] = true
	}
	out := append([]backoff.Entry(nil), base...)
	for _, e := range extra {
		if !seen[e.Group] {
			out = append(out, e)
		}
	}
	return out
}
