package aws

import (
	"context"
	"errors"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"
)

// requestMetrics count and time every AWS API request by operation and
// outcome, with the upstream cluster autoscaler's series name; the
// histogram's _count series are the calls and errors per operation.
type requestMetrics struct {
	duration *prometheus.HistogramVec
}

// newRequestMetrics registers the request histogram on reg; a registry
// that already has it (a new leader term in the same process) keeps the
// existing one. A nil reg registers nothing.
func newRequestMetrics(reg prometheus.Registerer) (*requestMetrics, error) {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "cluster_autoscaler", Name: "aws_request_duration_seconds",
		Help:    "Time taken by AWS API calls, by operation (endpoint) and outcome (success, or the AWS error code, or error).",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"endpoint", "status"})
	if reg != nil {
		if err := reg.Register(h); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
			existing, ok := are.ExistingCollector.(*prometheus.HistogramVec)
			if !ok {
				return nil, err
			}
			h = existing
		}
	}
	return &requestMetrics{duration: h}, nil
}

// observe records one call.
func (m *requestMetrics) observe(op string, err error, took time.Duration) {
	m.duration.WithLabelValues(op, statusOf(err)).Observe(took.Seconds())
}

// statusOf is a call's status label: success, the AWS error code, or
// "error" for failures without one (network, timeouts).
func statusOf(err error) string {
	if err == nil {
		return "success"
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() != "" {
		return ae.ErrorCode()
	}
	return "error"
}

// middleware observes every attempt of every operation: it sits after
// the SDK's retry middleware, so a throttled call that succeeded on retry
// shows as one Throttling and one success, as AWS counts them.
func (m *requestMetrics) middleware(stack *middleware.Stack) error {
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("kscaleRequestMetrics",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			start := time.Now()
			out, md, err := next.HandleFinalize(ctx, in)
			m.observe(awsmiddleware.GetOperationName(ctx), err, time.Since(start))
			return out, md, err
		}), middleware.After)
}
