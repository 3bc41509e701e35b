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
		{"size", &SizeError{Group: "a", Requested: 3, Limit: 2, Bound: BoundAboveMax}, false, true, false},
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

func TestSizeBoundOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want SizeBound
		ok   bool
	}{
		{"wrapped below min", fmt.Errorf("x: %w", &SizeError{Group: "a", Requested: 0, Limit: 1, Bound: BoundBelowMin}), BoundBelowMin, true},
		{"below instances", &SizeError{Group: "a", Requested: 1, Limit: 2, Bound: BoundBelowInstances}, BoundBelowInstances, true},
		{"not a size error", &NotFoundError{Kind: "instance", Name: "i"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SizeBoundOf(tt.err)
			if got != tt.want || ok != tt.ok {
				t.Errorf("SizeBoundOf = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
	e := &SizeError{Group: "g", Requested: 6, Limit: 5, Bound: BoundAboveMax}
	if got, want := e.Error(), `node group "g": size 6 is above max size (5)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
