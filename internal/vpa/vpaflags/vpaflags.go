// Package vpaflags holds the command-line flags the VPA updater and
// admission webhook share with their upstream counterparts: the API
// client, the metrics address, the component's namespace and which
// namespaces' VPAs and pods are served.
package vpaflags

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/componentflags"
)

// Client are the API client and serving flags the VPA updater and
// admission webhook share.
type Client struct {
	componentflags.Client
	// Address serves the operational endpoints (--address).
	Address string
	// Namespace is --namespace, default $NAMESPACE, else kube-system.
	Namespace string
	// Only is --vpa-object-namespace: serve only this namespace.
	Only    string
	ignored string
}

// AddFlags registers the flags on fs with address as --address's default.
func (f *Client) AddFlags(fs *pflag.FlagSet, address string) {
	f.Client.AddFlags(fs, componentflags.ClientSpec{QPSFlag: "kube-api-qps", QPS: 50, BurstFlag: "kube-api-burst", Burst: 100})
	fs.StringVar(&f.Address, "address", address, "Address serving /metrics, /health-check (alias /healthz) and, with --profiling, /debug/pprof.")
	fs.StringVar(&f.Only, "vpa-object-namespace", "", "Only serve VPAs and pods in this namespace (empty = all).")
	fs.StringVar(&f.ignored, "ignored-vpa-object-namespaces", "", "Comma-separated namespaces whose VPAs and pods are ignored.")
	ns := os.Getenv("NAMESPACE")
	if ns == "" {
		ns = "kube-system"
	}
	fs.StringVar(&f.Namespace, "namespace", ns, "Namespace of the admission webhook's Service and status Lease (default $NAMESPACE, else kube-system).")
}

// Validate checks the flags; its errors name them.
func (f *Client) Validate() error {
	errs := []error{f.Client.Validate()}
	if f.Only != "" && f.ignored != "" {
		errs = append(errs, errors.New("--vpa-object-namespace and --ignored-vpa-object-namespaces: set at most one"))
	}
	if f.Namespace == "" {
		errs = append(errs, errors.New("--namespace: required"))
	}
	errs = append(errs, componentflags.ValidateAddress("--address", f.Address, false))
	return errors.Join(errs...)
}

// IgnoredNamespaces are the namespaces of --ignored-vpa-object-namespaces.
func (f *Client) IgnoredNamespaces() []string {
	var out []string
	for _, ns := range strings.Split(f.ignored, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}
