// Package cli wires kscale's subcommands: it parses flags into each
// component's options, validates them once, and hands them to the component.
// It holds no autoscaling logic of its own.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/buildinfo"
)

// ExitCodeUsage is the exit code for bad flags, arguments or input files.
const ExitCodeUsage = 2

// UsageError marks an error caused by the caller's input (flags, arguments,
// files) rather than by the program; Execute maps it to ExitCodeUsage.
type UsageError struct {
	Err error
}

// Error returns the wrapped error's message.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *UsageError) Unwrap() error { return e.Err }

// NewRootCommand builds the kscale command tree writing to the given streams.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "kscale",
		Short:         "Autoscaling for Kubernetes: nodes, pods and the metrics that drive them",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &UsageError{Err: fmt.Errorf("unknown command %q for %q; see 'kscale --help'", args[0], cmd.CommandPath())}
			}
			return cmd.Help()
		},
	}
	root.Version = buildinfo.Get().String()
	root.SetVersionTemplate("kscale {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.AddCommand(newVersionCommand())
	root.AddCommand(newCustomMetricsCommand())
	root.AddCommand(newMetricsFilterCommand())
	root.AddCommand(withOfflineLogging(newSimulateCommand()))
	root.AddCommand(newVPARecommenderCommand())
	root.AddCommand(newVPAUpdaterCommand())
	root.AddCommand(newVPAAdmissionCommand())
	root.AddCommand(newNodeAutoscalerCommand())
	root.AddCommand(withOfflineLogging(newSnapshotCommand()))
	root.AddCommand(newFitCostsCommand())
	root.AddCommand(newShadowCommand())
	return root
}

// Execute runs the command tree with args and returns the process exit code:
// 0 on success, ExitCodeUsage for bad input, 1 for any other failure.
func Execute(args []string, stdout, stderr io.Writer) int {
	return execute(withProcessLogging(context.Background()), args, stdout, stderr)
}

// execute runs the command line under ctx. Only a context marked by
// withProcessLogging applies the logging flags to the process (which
// component-base allows once per process), so tests run many command lines
// in one process with a plain context.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	_, _ = fmt.Fprintf(stderr, "Error: %v\n", err)
	var usage *UsageError
	if errors.As(err, &usage) {
		return ExitCodeUsage
	}
	return 1
}
