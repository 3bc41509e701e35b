package input

import (
	"net/http"

	promapi "github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kscale/kscale/internal/promreg"
)

// requestBuckets are upstream's Prometheus request duration buckets (0.01s
// to 300s).
var requestBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 20, 30, 60, 120, 300}

// instrumentedTransport returns the Prometheus client's default transport
// counting and timing each request by status code and method, on reg.
func instrumentedTransport(reg prometheus.Registerer) (http.RoundTripper, error) {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "vpa", Subsystem: "recommender",
		Name: "prometheus_client_api_requests_count", Help: "Number of requests to a Prometheus API"}, []string{"code", "method"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "vpa", Subsystem: "recommender",
		Name: "prometheus_client_api_requests_duration_seconds", Help: "Duration of requests to a Prometheus API",
		Buckets: requestBuckets}, []string{"code", "method"})
	if err := promreg.Register(reg, "recommender Prometheus client", count, duration); err != nil {
		return nil, err
	}
	return promhttp.InstrumentRoundTripperCounter(count, promhttp.InstrumentRoundTripperDuration(duration, promapi.DefaultRoundTripper)), nil
}
