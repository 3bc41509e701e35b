package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/offline"
	"github.com/kscale/kscale/internal/offline/report"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/whatif"
)

// simulateFlags are the flags of `kscale simulate`.
type simulateFlags struct {
	check  bool
	output string
	report string
	seeds  int
	timing bool
	// sweep and sweepBound are the what-if's HPA target sweep.
	sweep      string
	sweepBound time.Duration
}

func newSimulateCommand() *cobra.Command {
	f := &simulateFlags{}
	cmd := &cobra.Command{
		Use:   "simulate FILE|-",
		Short: "Run the node autoscaler against a simulated cluster and cloud on a fake clock",
		Long: "simulate reads a scenario file (docs/scenarios.md), runs the real node autoscaler loop in an\n" +
			"offline world for the scenario's duration and prints the timeline of its decisions.\n" +
			"With --check it exits non-zero when an expectation of the file fails. FILE - reads standard input\n" +
			"(kscale snapshot | kscale simulate -).",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &UsageError{Err: fmt.Errorf("simulate takes exactly one scenario file (or - for standard input), got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("simulating %s: internal error: %v", args[0], r)
				}
			}()
			return runSimulate(cmd, args[0], f)
		},
	}
	cmd.Flags().BoolVar(&f.check, "check", false, "Exit non-zero when an expectation of the scenario fails")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "Output format: text, json or none (none prints only failed checks)")
	cmd.Flags().StringVar(&f.report, "report", "", "Also write a self-contained HTML report with charts to this file")
	cmd.Flags().BoolVar(&f.timing, "timing", false, "Also print wall-clock figures (the longest loop's wall time); without it the output is the same on every run")
	cmd.Flags().IntVar(&f.seeds, "seeds", 1, "Run the scenario under this many seeds (the file's seed, seed+1, ...) and report every seed under which an expectation fails")
	cmd.Flags().StringVar(&f.sweep, "sweep", "", "WorkloadWhatIf files only: also run every configuration with a request-rate HPA at the targets hpa.target=FROM..TO[/STEP] and report the largest whose time with CPU above requests stays within --sweep-bound")
	cmd.Flags().DurationVar(&f.sweepBound, "sweep-bound", 0, "The most time with CPU demand above requests a --sweep target may cause (e.g. 30m)")
	return cmd
}

func runSimulate(cmd *cobra.Command, path string, f *simulateFlags) error {
	if !slices.Contains([]string{"text", "json", "none"}, f.output) {
		return &UsageError{Err: fmt.Errorf("--output: want text, json or none, got %q", f.output)}
	}
	if f.seeds < 1 {
		return &UsageError{Err: fmt.Errorf("--seeds: want at least 1, got %d", f.seeds)}
	}
	if f.seeds > 1 && f.report != "" {
		return &UsageError{Err: fmt.Errorf("--report: writes the report of one run; it needs --seeds 1, got %d", f.seeds)}
	}
	data, err := readScenario(cmd.InOrStdin(), path)
	if err != nil {
		return err
	}
	if path == "-" {
		path = "standard input"
	}
	if scenario.PeekKind(data) == whatif.Kind {
		return runWhatIf(cmd, path, data, f)
	}
	if f.sweep != "" {
		return &UsageError{Err: fmt.Errorf("--sweep: only for %s files", whatif.Kind)}
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("%s: %w", path, indent(err))}
	}
	if f.seeds > 1 {
		return runSeeds(cmd, path, scn, f)
	}
	var out *report.File
	if f.report != "" {
		if out, err = createReport(f.report); err != nil { // before the run, which may take minutes
			return err
		}
		defer out.Discard()
	}
	res, checks, err := simulateOnce(cmd, path, scn, f)
	if err != nil {
		return err
	}
	if err := report.WriteOutput(cmd.OutOrStdout(), f.output, scn, res, checks, f.check); err != nil {
		return err
	}
	if out != nil {
		if err := out.Commit(func(w io.Writer) error { return report.WriteHTML(w, scn, res, checks) }); err != nil {
			return err
		}
	}
	return checkResult(f.check, checks)
}

// readScenario reads the file, or standard input for "-", refusing more
// than a scenario may hold.
func readScenario(stdin io.Reader, path string) ([]byte, error) {
	r := stdin
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("reading scenario: %w", err)}
		}
		defer func() { _ = file.Close() }()
		r = file
	}
	data, err := io.ReadAll(io.LimitReader(r, scenario.MaxFileSize+1))
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("reading scenario %s: %w", path, err)}
	}
	return data, nil
}

// simulateOnce runs the scenario and checks its expectations. Without
// --timing the wall-clock figures are dropped, so the output is the same
// on every run.
func simulateOnce(cmd *cobra.Command, path string, scn *scenario.Scenario, f *simulateFlags) (*offline.Result, []offline.Check, error) {
	world, err := offline.New(scn)
	if err != nil {
		return nil, nil, &UsageError{Err: fmt.Errorf("%s: setting up the scenario: %w", path, err)}
	}
	res, err := world.Run(cmd.Context())
	if err != nil {
		return nil, nil, fmt.Errorf("simulating %s: %w", path, err)
	}
	if !f.timing {
		res.Final.MaxLoop, res.Final.MaxLoopAt = "", ""
	}
	return res, res.Checks(scn), nil
}

// createReport starts the --report file; a path that cannot take it is a
// usage error.
func createReport(path string) (*report.File, error) {
	out, err := report.Create(path)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--report: %w", err)}
	}
	return out, nil
}

// indent puts every joined error on its own line.
func indent(err error) error {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) == 1 {
		return err
	}
	return errors.New("\n  " + strings.Join(lines, "\n  "))
}

func checkResult(check bool, checks []offline.Check) error {
	if !check {
		return nil
	}
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d expectations failed", failed, len(checks))
	}
	return nil
}
