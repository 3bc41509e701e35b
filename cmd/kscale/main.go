// Command kscale is the kscale autoscaling suite: node autoscaler, offline
// simulator, vertical pod autoscaler and custom metrics provider in one binary.
// Linked under an upstream component's name (/cluster-autoscaler,
// /recommender, /updater, /admission-controller, /gardener-custom-metrics)
// it runs that component with the arguments it was given.
package main

import (
	"os"

	"github.com/kscale/kscale/internal/cli"
	"github.com/kscale/kscale/internal/cli/entrypoint"
)

func main() {
	os.Exit(cli.Execute(entrypoint.Args(os.Args), os.Stdout, os.Stderr))
}
