package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/snapshot"
)

// newSnapshotCommand builds `kscale snapshot`.
func newSnapshotCommand() *cobra.Command {
	o := &snapshot.Flags{}
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Write a live cluster's nodes, pods and PDBs as a scenario file for kscale simulate",
		Long: "snapshot reads a live cluster (nodes, pods, PodDisruptionBudgets and the priority expander ConfigMap)\n" +
			"and writes it as a scenario file (docs/scenarios.md) that `kscale simulate` runs as it is, to see what the\n" +
			"node autoscaler would do next. What the scenario cannot express is listed in the file's comment header\n" +
			"and on stderr. See docs/snapshot.md.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &UsageError{Err: fmt.Errorf("snapshot takes no arguments, got %q (write the file with --output)", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			convert, err := o.Complete(time.Now())
			if err != nil {
				return &UsageError{Err: err}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return o.Run(ctx, convert, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
