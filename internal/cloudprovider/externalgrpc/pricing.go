package externalgrpc

import (
	"context"
	"fmt"
	"math"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc/protos"
)

// Prices come from the server's PricingNodePrice and PricingPodPrice, over
// one hour from now as upstream's price expander asks them, so a price is
// per hour. Node prices are asked with the template nodes, once per
// Refresh (per loop), and only with Config.Prices; pod prices when the
// price expander asks, remembered until the next Refresh.

// pricePeriod is the period every price is asked for: one hour, so the
// answer is a price per hour.
const pricePeriod = time.Hour

// PricingUnavailableError is the error of PodPrice while the server's
// pricing is down for the rest of the loop: it answered Unimplemented, or
// a call timed out or found the server unavailable.
type PricingUnavailableError struct {
	// Reason is the first failure of the loop.
	Reason error
}

// Error names the first failure.
func (e *PricingUnavailableError) Error() string {
	return fmt.Sprintf("the external gRPC cloud provider's pricing is unavailable until the next loop: %v", e.Reason)
}

// Unwrap returns the first failure.
func (e *PricingUnavailableError) Unwrap() error { return e.Reason }

// pricing is what one loop learned of the server's prices.
type pricing struct {
	// down, once set, is the loop's first failure that ends pricing calls
	// until the next Refresh: each call would only wait for its timeout
	// again, or the server does not price at all.
	down error
	// pods are the prices asked this loop, by pod key.
	pods map[string]podPriceResult
}

// podPriceResult is one pod's answer: a price or the call's error.
type podPriceResult struct {
	price float64
	err   error
}

// resetPricing forgets the loop's prices and failures (on Refresh).
func (p *Provider) resetPricing() {
	p.priceMu.Lock()
	defer p.priceMu.Unlock()
	p.prices = pricing{pods: map[string]podPriceResult{}}
}

// ending reports whether a failed pricing call ends pricing for the loop:
// the server does not implement it, or is hanging or down. Other errors
// (a node or pod the server cannot price) concern one call only.
func ending(err error) bool {
	switch status.Code(err) {
	case codes.Unimplemented, codes.DeadlineExceeded, codes.Unavailable, codes.Canceled:
		return true
	}
	return false
}

// failed records a pricing failure and returns it typed.
func (p *Provider) failed(op, group string, err error) error {
	if ending(err) && p.prices.down == nil {
		p.prices.down = callError(op, group, err)
	}
	return callError(op, group, err)
}

// period is the hour from now the prices are asked for.
func (p *Provider) period() (*timestamppb.Timestamp, *timestamppb.Timestamp) {
	now := p.cfg.Clock.Now()
	return timestamppb.New(now), timestamppb.New(now.Add(pricePeriod))
}

// nodePrice asks the price of one of the group's new nodes (the template
// node) per hour; 0, the provider's "unknown", when the server cannot
// price it. The failure is logged, never an error of Refresh: without a
// price the price expander leaves the group out, as upstream's does.
func (p *Provider) nodePrice(ctx context.Context, group string, node *corev1.Node) float64 {
	p.priceMu.Lock()
	defer p.priceMu.Unlock()
	if p.prices.down != nil {
		return 0
	}
	start, end := p.period()
	resp, err := call(ctx, p, "PricingNodePrice", group, p.cfg.Client.PricingNodePrice,
		&protos.PricingNodePriceRequest{Node: externalNode(node), StartTimestamp: start, EndTimestamp: end})
	if err != nil {
		err = p.failed("PricingNodePrice", group, err)
		klog.FromContext(ctx).V(2).Info("Node group has no price from the external gRPC cloud provider", "nodeGroup", group, "err", err)
		return 0
	}
	price, err := validPrice(resp.GetPrice())
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Node group has no price from the external gRPC cloud provider", "nodeGroup", group, "err", err)
	}
	return price
}

// validPrice rejects a price that is negative, infinite or not a number.
func validPrice(v float64) (float64, error) {
	if !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("the external gRPC cloud provider answered the invalid price %v", v)
	}
	return v, nil
}

// PodPrice asks the server what running the pod costs per hour
// (upstream's PricingModel.PodPrice over the protocol). Answers and
// per-pod errors are remembered until the next Refresh; after a call that
// ends pricing for the loop every pod fails at once with
// *PricingUnavailableError.
func (p *Provider) PodPrice(ctx context.Context, pod *corev1.Pod) (float64, error) {
	p.priceMu.Lock()
	defer p.priceMu.Unlock()
	key := podKey(pod)
	if r, ok := p.prices.pods[key]; ok {
		return r.price, r.err
	}
	if p.prices.down != nil {
		return 0, &PricingUnavailableError{Reason: p.prices.down}
	}
	data, err := pod.Marshal()
	if err != nil {
		return 0, fmt.Errorf("encoding pod %s for PricingPodPrice: %w", key, err)
	}
	start, end := p.period()
	resp, err := call(ctx, p, "PricingPodPrice", "", p.cfg.Client.PricingPodPrice,
		&protos.PricingPodPriceRequest{PodBytes: data, StartTimestamp: start, EndTimestamp: end})
	var r podPriceResult
	if err != nil {
		r.err = p.failed("PricingPodPrice", "", err)
	} else {
		r.price, r.err = validPrice(resp.GetPrice())
	}
	if p.prices.pods == nil {
		p.prices.pods = map[string]podPriceResult{}
	}
	p.prices.pods[key] = r
	return r.price, r.err
}

// podKey identifies a pod within a loop: its UID, or its namespace and
// name when it has none (a pod the expander makes up).
func podKey(pod *corev1.Pod) string {
	if pod.UID != "" {
		return string(pod.UID)
	}
	return pod.Namespace + "/" + pod.Name
}
