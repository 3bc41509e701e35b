package input

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// parseQuantity parses a Kubernetes quantity into a float value.
func parseQuantity(s string) (float64, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0, err
	}
	return q.AsApproximateFloat64(), nil
}
