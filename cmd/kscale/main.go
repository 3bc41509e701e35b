// Command kscale is the kscale autoscaling suite: node autoscaler, offline
// simulator, vertical pod autoscaler and custom metrics provider in one binary.
package main

import (
	"os"

	"github.com/kscale/kscale/internal/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
