package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/nodeautoscaler/shadow"
)

// shadowReportOptions are the flags of `kscale shadow report`.
type shadowReportOptions struct {
	file   string
	since  string
	until  string
	format string
}

// newShadowCommand builds `kscale shadow` with its report subcommand.
func newShadowCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "shadow", Short: "Work with the records of `kscale node-autoscaler --dry-run`"}
	cmd.AddCommand(newShadowReportCommand())
	return cmd
}

// newShadowReportCommand builds `kscale shadow report`.
func newShadowReportCommand() *cobra.Command {
	o := &shadowReportOptions{}
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Render the dry run's comparison with the running autoscaler over a time range",
		Args:  usageNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.file, "file", "", "The record file the dry run wrote (--shadow-record-file); required.")
	fs.StringVar(&o.since, "since", "", "Only verdicts at or after this time (RFC 3339); empty: from the start.")
	fs.StringVar(&o.until, "until", "", "Only verdicts before this time (RFC 3339); empty: to the end.")
	fs.StringVarP(&o.format, "output", "o", "text", "Output format: text, json or html.")
	return cmd
}

// run reads the record and writes the report; bad flags and a malformed
// record are usage errors naming the flag or the line.
func (o *shadowReportOptions) run(out io.Writer) error {
	from, to, err := o.timeRange()
	if err != nil {
		return &UsageError{Err: err}
	}
	write := map[string]func(shadow.Report, io.Writer) error{
		"text": shadow.Report.WriteText, "json": shadow.Report.WriteJSON, "html": shadow.Report.WriteHTML,
	}[o.format]
	if write == nil {
		return &UsageError{Err: fmt.Errorf("--output: want text, json or html, got %q", o.format)}
	}
	if o.file == "" {
		return &UsageError{Err: errors.New("--file: required (the dry run's --shadow-record-file)")}
	}
	f, err := os.Open(o.file)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--file: %w", err)}
	}
	defer func() { _ = f.Close() }()
	verdicts, err := shadow.ParseRecord(f)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--file %s: %w", o.file, err)}
	}
	return write(shadow.Summarize(verdicts, from, to), out)
}

// timeRange parses --since and --until.
func (o *shadowReportOptions) timeRange() (from, to time.Time, err error) {
	for _, f := range []struct {
		flag, v string
		t       *time.Time
	}{{"--since", o.since, &from}, {"--until", o.until, &to}} {
		if f.v == "" {
			continue
		}
		if *f.t, err = time.Parse(time.RFC3339, f.v); err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("%s: want an RFC 3339 time, got %q", f.flag, f.v)
		}
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return time.Time{}, time.Time{}, fmt.Errorf("--since %s: must be before --until %s", o.since, o.until)
	}
	return from, to, nil
}
