// Command render prints the kscale chart rendered with Helm's Go SDK, as
// `helm template` would, for looking at what a values file produces:
//
//	go -C hack/helm run ./cmd/render --values my-values.yaml --namespace kube-system
package main

import (
	"flag"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	chartcheck "github.com/kscale/kscale/hack/helm"
)

func main() {
	chart := flag.String("chart", "../../charts/kscale", "Chart directory.")
	valuesFile := flag.String("values", "", "Values file; empty for the chart's defaults.")
	namespace := flag.String("namespace", "kube-system", "Release namespace.")
	name := flag.String("name", "kscale", "Release name.")
	crds := flag.Bool("include-crds", false, "Print the chart's CRDs too.")
	flag.Parse()
	if err := run(*chart, *valuesFile, chartcheck.Release{Name: *name, Namespace: *namespace}, *crds); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run(chart, valuesFile string, rel chartcheck.Release, crds bool) error {
	vals := map[string]any{}
	if valuesFile != "" {
		var err error
		if vals, err = chartcheck.ReadValues(valuesFile); err != nil {
			return err
		}
	}
	r, err := chartcheck.Render(chart, rel, vals)
	if err != nil {
		return err
	}
	objs := r.Objects
	if crds {
		objs = append(r.CRDs, objs...)
	}
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			return err
		}
		fmt.Printf("---\n%s", b)
	}
	return nil
}
