package target

import (
	"errors"
	"fmt"
)

// Reason classifies why a targetRef could not be resolved.
type Reason string

const (
	// ReasonInvalid means the targetRef itself is malformed.
	ReasonInvalid Reason = "InvalidTargetRef"
	// ReasonNotFound means the targetRef points at no existing object or kind.
	ReasonNotFound Reason = "TargetNotFound"
	// ReasonNoSelector means the target exists but exposes no pod selector.
	ReasonNoSelector Reason = "NoSelector"
	// ReasonNotTopLevel means the target is itself controlled by another
	// well-known or scalable controller.
	ReasonNotTopLevel Reason = "NotTopLevelController"
)

// Error is a targetRef resolution failure.
type Error struct {
	// Reason classifies the failure; it is suitable as a condition reason.
	Reason Reason
	// Message says what was wrong, naming the field or object.
	Message string
	// Err is the underlying error, if any.
	Err error
}

// Error returns the message and the underlying error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the Reason of err when it is (or wraps) an *Error, else "".
func ReasonOf(err error) Reason {
	var te *Error
	if errors.As(err, &te) {
		return te.Reason
	}
	return ""
}

// IsInvalid reports whether err is a malformed targetRef.
func IsInvalid(err error) bool { return ReasonOf(err) == ReasonInvalid }

// IsNotFound reports whether err says the target does not exist.
func IsNotFound(err error) bool { return ReasonOf(err) == ReasonNotFound }

// IsNotTopLevel reports whether err says the target is not the top-most controller.
func IsNotTopLevel(err error) bool { return ReasonOf(err) == ReasonNotTopLevel }

// IsNoSelector reports whether err says the target has no pod selector.
func IsNoSelector(err error) bool { return ReasonOf(err) == ReasonNoSelector }
