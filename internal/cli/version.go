package cli

import (
	"fmt"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/buildinfo"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the kscale version, commit, build date and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "kscale %s\n", buildinfo.Get())
			return err
		},
	}
}

// logStartup logs which build of kscale a component runs, first thing.
func logStartup(log logr.Logger, component string) {
	log.Info("Starting kscale", append([]any{"component", component}, buildinfo.Get().KeysAndValues()...)...)
}
