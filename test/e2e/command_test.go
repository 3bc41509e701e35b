package e2e

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/cli"
)

// kscaleCommand is one kscale subcommand run in this process through the
// real command tree, as `kscale <name> <args>` would run it.
type kscaleCommand struct {
	root *cobra.Command
	name string
	args []string
	ctx  context.Context
}

// command returns the subcommand name of a fresh command tree; its output
// goes to the test binary's streams unless redirected.
func command(name string) *kscaleCommand {
	return &kscaleCommand{root: cli.NewRootCommand(os.Stdout, os.Stderr), name: name, ctx: context.Background()}
}

// SetArgs sets the subcommand's arguments.
func (c *kscaleCommand) SetArgs(args []string) { c.args = args }

// SetOut redirects the standard output.
func (c *kscaleCommand) SetOut(w io.Writer) { c.root.SetOut(w) }

// SetErr redirects the standard error.
func (c *kscaleCommand) SetErr(w io.Writer) { c.root.SetErr(w) }

// SetContext sets the context Execute runs under.
func (c *kscaleCommand) SetContext(ctx context.Context) { c.ctx = ctx }

// Execute runs the subcommand under the context of SetContext.
func (c *kscaleCommand) Execute() error { return c.ExecuteContext(c.ctx) }

// ExecuteContext runs the subcommand until ctx ends or it returns.
func (c *kscaleCommand) ExecuteContext(ctx context.Context) error {
	c.root.SetArgs(append([]string{c.name}, c.args...))
	return c.root.ExecuteContext(ctx)
}
