package cloudprovider

import (
	"errors"
	"fmt"
)

// ErrNotFound is matched (errors.Is) by NotFoundError.
var ErrNotFound = errors.New("not found")

// NotFoundError reports a node group or instance that does not exist.
type NotFoundError struct {
	// Kind is "node group" or "instance".
	Kind string
	// Name is the missing object's id.
	Name string
}

// Error describes the missing object.
func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %q not found", e.Kind, e.Name) }

// Is reports whether target is ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// IsNotFound reports whether err is or wraps a NotFoundError.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// SizeBound names the bound a refused size change would cross.
type SizeBound string

// The bounds of a node group's target size.
const (
	// BoundAboveMax: the target would exceed the group's max size
	// (IncreaseSize).
	BoundAboveMax SizeBound = "above max size"
	// BoundBelowInstances: the target would drop below the number of
	// instances that exist (DecreaseTargetSize may only remove
	// placeholders).
	BoundBelowInstances SizeBound = "below existing instances"
	// BoundBelowMin: the target would drop below the group's min size
	// (DeleteInstances).
	BoundBelowMin SizeBound = "below min size"
)

// SizeError reports a size change that would leave a group's bounds.
type SizeError struct {
	// Group is the node group id.
	Group string
	// Requested is the target size the call would have produced.
	Requested int
	// Limit is the value of the bound it would cross (the max size, the
	// instance count or the min size).
	Limit int
	// Bound says which bound.
	Bound SizeBound
}

// Error describes the rejected size.
func (e *SizeError) Error() string {
	return fmt.Sprintf("node group %q: size %d is %s (%d)", e.Group, e.Requested, e.Bound, e.Limit)
}

// SizeBoundOf returns the bound of the SizeError err is or wraps, and
// false when it holds none.
func SizeBoundOf(err error) (SizeBound, bool) {
	var s *SizeError
	if !errors.As(err, &s) {
		return "", false
	}
	return s.Bound, true
}

// IsSizeError reports whether err is or wraps a SizeError.
func IsSizeError(err error) bool {
	var s *SizeError
	return errors.As(err, &s)
}

// APIError reports a failed call to the cloud's API (throttling, outage).
type APIError struct {
	// Op is the operation, for example "IncreaseSize".
	Op string
	// Group is the node group id, when known.
	Group string
	// Err is the underlying cause.
	Err error
}

// Error describes the failed call.
func (e *APIError) Error() string {
	return fmt.Sprintf("cloud API %s for node group %q: %v", e.Op, e.Group, e.Err)
}

// Unwrap returns the cause.
func (e *APIError) Unwrap() error { return e.Err }

// IsAPIError reports whether err is or wraps an APIError.
func IsAPIError(err error) bool {
	var a *APIError
	return errors.As(err, &a)
}
