// Package promreg registers a component's Prometheus collectors on the
// registry its constructor was given: every component takes an injected
// prometheus.Registerer, none uses the global one.
package promreg

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers every collector on reg, stopping at the first
// failure (a duplicate, typically); the error names the component. A nil
// reg registers nothing, for callers that want the metrics without
// exposing them.
func Register(reg prometheus.Registerer, component string, collectors ...prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("registering %s metrics: %w", component, err)
		}
	}
	return nil
}
