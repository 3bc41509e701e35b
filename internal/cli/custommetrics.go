package cli

import (
	"github.com/spf13/cobra"

	"github.com/kscale/kscale/internal/custommetrics"
	"github.com/kscale/kscale/internal/metricsfilter"
)

// newCustomMetricsCommand builds `kscale custom-metrics`; the API server
// library registers its own --profiling.
func newCustomMetricsCommand() *cobra.Command {
	return newComponentCommand("custom-metrics", "Serve kube-apiserver request rates through custom.metrics.k8s.io for HPA (Gardener GEP-23)", &custommetrics.Flags{},
		commonSpec{noProfiling: true})
}

// newMetricsFilterCommand builds `kscale metrics-filter`.
func newMetricsFilterCommand() *cobra.Command {
	return newComponentCommand("metrics-filter", "Serve /metrics?name=... for the kube-apiserver beside it: only the named families (GEP-23 sidecar)", &metricsfilter.Flags{}, commonSpec{})
}
