package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/offline/report"
	"github.com/kscale/kscale/internal/whatif"
)

// runWhatIf simulates a WorkloadWhatIf file: every configuration on the
// same trace, then the expectations, the output, the report and the sweep.
func runWhatIf(cmd *cobra.Command, path string, data []byte, f *simulateFlags) error {
	if f.seeds > 1 {
		return &UsageError{Err: fmt.Errorf("--seeds: a %s runs once per configuration; want 1, got %d", whatif.Kind, f.seeds)}
	}
	var sweep *whatif.Sweep
	if f.sweep != "" {
		sw, err := whatif.ParseSweep(f.sweep)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--sweep: %w", err)}
		}
		sweep = &sw
	}
	file, err := whatif.Parse(data)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("%s: %w", path, indent(err))}
	}
	if path != "standard input" {
		file.Dir = filepath.Dir(path)
	}
	var page *report.File
	if f.report != "" {
		if page, err = createReport(f.report); err != nil {
			return err
		}
		defer page.Discard()
	}
	loads, err := whatif.Loads(file)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	out := report.WhatIfOutput{Name: file.Name, Results: whatif.Run(file, loads)}
	out.Checks = whatif.Checks(file, out.Results)
	if sweep != nil {
		if out.Sweep, err = whatif.RunSweep(file, loads, *sweep, f.sweepBound); err != nil {
			return &UsageError{Err: err}
		}
	}
	if err := report.WriteWhatIf(cmd.OutOrStdout(), f.output, &out, f.check); err != nil {
		return err
	}
	if page != nil {
		if err := page.Commit(func(w io.Writer) error { return report.WriteWhatIfHTML(w, file, &out) }); err != nil {
			return err
		}
	}
	failed := 0
	for _, c := range out.Checks {
		if !c.OK {
			failed++
		}
	}
	if f.check && failed > 0 {
		return fmt.Errorf("%d of %d expectations failed", failed, len(out.Checks))
	}
	return nil
}
