package buildinfo

import "github.com/prometheus/client_golang/prometheus"

// MetricName is the name of the build information gauge.
const MetricName = "kscale_build_info"

// NewCollector returns the kscale_build_info gauge: always 1, with the
// build's version, revision, build_date and goversion as labels, so a
// dashboard can join any kscale series to the build that produced it.
func NewCollector(i Info) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricName,
		Help: "A metric with a constant '1' value labeled by the version, revision, build date and Go version kscale was built from.",
		ConstLabels: prometheus.Labels{
			"version": i.Version, "revision": i.Revision, "build_date": i.BuildDate, "goversion": i.GoVersion,
		},
	})
	g.Set(1)
	return g
}
