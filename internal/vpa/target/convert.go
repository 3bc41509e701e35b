package target

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// runtimeFromUnstructured converts an unstructured map into out.
func runtimeFromUnstructured(in map[string]any, out any) error {
	if in == nil {
		return errNilSelector
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(in, out); err != nil {
		return fmt.Errorf("converting selector: %w", err)
	}
	return nil
}
