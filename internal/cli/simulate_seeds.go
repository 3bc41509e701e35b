package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/offline/report"
	"github.com/kscale/kscale/internal/scenario"
)

// seedRun is one run of `kscale simulate --seeds N`.
type seedRun struct {
	Seed   uint64          `json:"seed"`
	OK     bool            `json:"ok"`
	Final  offline.Final   `json:"final"`
	Checks []offline.Check `json:"checks"`
}

// runSeeds runs the scenario under the seeds scn.Seed ... scn.Seed+N-1 and
// reports every seed under which an expectation fails.
func runSeeds(cmd *cobra.Command, path string, scn *scenario.Scenario, f *simulateFlags) error {
	runs := make([]seedRun, 0, f.seeds)
	var failed []uint64
	for i := range f.seeds {
		s := *scn // the world only reads the scenario
		s.Seed = scn.Seed + uint64(i)
		res, checks, err := simulateOnce(cmd, path, &s, f)
		if err != nil {
			return fmt.Errorf("seed %d: %w", s.Seed, err)
		}
		run := seedRun{Seed: s.Seed, OK: allOK(checks), Final: res.Final, Checks: checks}
		if !run.OK {
			failed = append(failed, s.Seed)
		}
		runs = append(runs, run)
	}
	if err := writeSeeds(cmd.OutOrStdout(), f.output, scn, runs, failed); err != nil {
		return err
	}
	if f.check && len(failed) > 0 {
		return fmt.Errorf("expectations failed under %d of %d seeds: %s", len(failed), len(runs), formatSeeds(failed))
	}
	return nil
}

func allOK(checks []offline.Check) bool {
	for _, c := range checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func writeSeeds(w io.Writer, format string, scn *scenario.Scenario, runs []seedRun, failed []uint64) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if failed == nil {
			failed = []uint64{}
		}
		return enc.Encode(struct {
			Scenario    string    `json:"scenario"`
			FailedSeeds []uint64  `json:"failedSeeds"`
			Runs        []seedRun `json:"runs"`
		}{scn.Name, failed, runs})
	}
	for _, r := range runs {
		if r.OK {
			continue
		}
		if _, err := fmt.Fprintf(w, "seed %d:\n", r.Seed); err != nil {
			return err
		}
		if err := report.WriteChecks(w, r.Checks, true); err != nil {
			return err
		}
	}
	if format == "none" {
		return nil
	}
	summary := fmt.Sprintf("seeds: %d run, %d failed", len(runs), len(failed))
	if len(failed) > 0 {
		summary += ": " + formatSeeds(failed)
	}
	_, err := fmt.Fprintln(w, summary)
	return err
}

func formatSeeds(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, ", ")
}
