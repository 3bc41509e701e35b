package snapshot

import (
	"fmt"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

// Fit loads the written scenario the way `kscale simulate` does (parse,
// then build the offline world at its start). Running pods start on the
// nodes they run on (each workload's on), so nothing is re-placed; any
// failure is returned: the snapshot would not load.
func Fit(r *Result) error {
	data, err := Marshal(r)
	if err != nil {
		return err
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		return fmt.Errorf("checking the snapshot: it does not parse as a scenario: %w", err)
	}
	if _, err := offline.New(scn); err != nil {
		return fmt.Errorf("checking the snapshot: the simulation cannot start from it: %w", err)
	}
	return nil
}
