package cloudprovider

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorHelpers(t *testing.T) {
	tests := []struct {
		name                string
		err                 error
		notFound, size, api bool
	}{
		{"not found wrapped", fmt.Errorf("x: %w", &NotFoundError{Kind: "node group", Name: "a"}), true, false, false},
		{"size", &SizeError{Group: "a", Requested: 3, Limit: 2, Reason: "above max size"}, false, true, false},
		{"api wraps cause", &APIError{Op: "IncreaseSize", Group: "a", Err: errors.New("boom")}, false, false, true},
		{"plain", errors.New("x"), false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsNotFound(tt.err); got != tt.notFound {
				t.Errorf("IsNotFound = %v", got)
			}
			if got := IsSizeError(tt.err); got != tt.size {
				t.Errorf("IsSizeError = %v", got)
			}
			if got := IsAPIError(tt.err); got != tt.api {
				t.Errorf("IsAPIError = %v", got)
			}
		})
	}
}
