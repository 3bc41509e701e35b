// Package metricsfilter is the metrics-filter sidecar GEP-23 describes: it
// sits beside a kube-apiserver and answers /metrics?name=... with only the
// named metric families of that kube-apiserver's /metrics, so a scraper
// that needs one counter no longer moves megabytes per scrape.
//
// The filter streams: it reads the Prometheus text format line by line
// through a fixed buffer, whatever the body's size, and writes the selected
// lines as they come. A family is selected by its exact name, with its HELP
// and TYPE lines and, for histograms and summaries (or families without a
// TYPE line), its _bucket, _sum and _count series.
package metricsfilter
