package snapshot

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/scenario"
)

// firstFitRE matches the offline world's error for running pods that do
// not fit the initial nodes: it places them first fit, not where they run.
var firstFitRE = regexp.MustCompile(`workload "([^"]+)": only (\d+) of (\d+) scheduled pods fit the initial nodes`)

// Fit loads the written scenario the way `kscale simulate` does (parse,
// then build the offline world at its start). The simulation places running
// pods first fit rather than on the nodes they run on; when a workload's
// running pods do not all fit that way, Fit lowers its scheduled count to
// what fits (the rest start pending) and notes it. Any other failure is
// returned: the snapshot would not load.
func Fit(r *Result) error {
	for range len(r.Scenario.Workloads) + 1 {
		data, err := Marshal(r)
		if err != nil {
			return err
		}
		scn, err := scenario.Parse(data)
		if err != nil {
			return fmt.Errorf("checking the snapshot: it does not parse as a scenario: %w", err)
		}
		_, err = offline.New(scn)
		if err == nil {
			return nil
		}
		m := firstFitRE.FindStringSubmatch(err.Error())
		w := failedWorkload(r.Scenario.Workloads, m)
		if w == nil {
			return fmt.Errorf("checking the snapshot: the simulation cannot start from it: %w", err)
		}
		fit, _ := strconv.Atoi(m[2])
		r.notef("workload %s: only %d of its %d running pods fit the nodes when placed first fit (the scenario cannot say "+
			"where a pod runs); the other %d start pending", w.Name, fit, w.Scheduled, w.Scheduled-fit)
		w.Scheduled = fit
	}
	return fmt.Errorf("checking the snapshot: placing running pods did not settle")
}

// failedWorkload returns the workload a first-fit error names, or nil.
func failedWorkload(ws []scenario.Workload, m []string) *scenario.Workload {
	if m == nil {
		return nil
	}
	for i := range ws {
		if ws[i].Name == m[1] && ws[i].Scheduled > 0 {
			return &ws[i]
		}
	}
	return nil
}
