// Command mcm runs the real controllers of Gardener's
// machine-controller-manager (github.com/gardener/machine-controller-manager
// at the version pinned in go.mod) for the mcm end-to-end tests:
//
//	mcm controller-manager [MCM flags]   MachineDeployment, MachineSet and safety controllers
//	mcm machine-controller [MC flags] --cloud-url=URL
//	                                     the Machine controller with a driver of ours
//
// The machine controller's driver (MCM's out-of-tree driver interface,
// pkg/util/provider/driver) is a thin client of a test cloud served over
// HTTP by the test process (internal/testenv/mcmenv), which plays the
// instances and registers their Nodes. It is a separate module so that the
// main module never depends on MCM's controllers or its Kubernetes minor.
package main

import (
	goflag "flag"
	"fmt"
	"os"

	mcmapp "github.com/gardener/machine-controller-manager/cmd/machine-controller-manager/app"
	mcmoptions "github.com/gardener/machine-controller-manager/cmd/machine-controller-manager/app/options"
	mcapp "github.com/gardener/machine-controller-manager/pkg/util/provider/app"
	mcoptions "github.com/gardener/machine-controller-manager/pkg/util/provider/app/options"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
)

func main() {
	// The controllers run until the process is stopped: run returns only
	// with an error.
	err := run(os.Args[1:])
	fmt.Fprintf(os.Stderr, "mcm: %v\n", err)
	os.Exit(1)
}

// run starts the command args name; it returns only with an error.
func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: mcm controller-manager|machine-controller [flags]")
	}
	fs := pflag.NewFlagSet(args[0], pflag.ContinueOnError)
	klogFlags := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	klog.InitFlags(klogFlags)
	fs.AddGoFlagSet(klogFlags)
	switch args[0] {
	case "controller-manager":
		s := mcmoptions.NewMCMServer()
		s.AddFlags(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return mcmapp.Run(s)
	case "machine-controller":
		s := mcoptions.NewMCServer()
		s.AddFlags(fs)
		url := fs.String("cloud-url", "", "base URL of the test cloud the driver calls (required)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *url == "" {
			return fmt.Errorf("--cloud-url is required")
		}
		return mcapp.Run(s, newDriver(*url))
	default:
		return fmt.Errorf("unknown command %q: want controller-manager or machine-controller", args[0])
	}
}
