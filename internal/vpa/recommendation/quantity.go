package recommendation

import (
	"math"
	"math/big"
	"math/bits"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// maxMilli is the largest CPU quantity whose millicores fit in an int64.
var maxMilli = resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)

// units returns q in the unit processing uses for resource name: millicores
// for CPU, whole units (bytes) for everything else. A CPU quantity whose
// millicores do not fit (near 1Ei) saturates at MaxInt64 instead of
// wrapping around.
func units(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		if saturates(name, q) {
			return math.MaxInt64
		}
		return q.MilliValue()
	}
	return q.Value()
}

// saturates reports a CPU quantity too large for units.
func saturates(name corev1.ResourceName, q resource.Quantity) bool {
	return name == corev1.ResourceCPU && q.Cmp(*maxMilli) >= 0
}

// quantity is the inverse of units: CPU as a milli-quantity, memory as a
// binary-SI quantity, anything else as a decimal-SI quantity.
func quantity(name corev1.ResourceName, v int64) resource.Quantity {
	switch name {
	case corev1.ResourceCPU:
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	case corev1.ResourceMemory:
		return *resource.NewQuantity(v, resource.BinarySI)
	default:
		return *resource.NewQuantity(v, resource.DecimalSI)
	}
}

// lookup returns the value of name in list in processing units and whether
// it is set to a non-zero quantity.
func lookup(list corev1.ResourceList, name corev1.ResourceName) (int64, bool) {
	q, ok := list[name]
	if !ok || q.IsZero() {
		return 0, false
	}
	return units(name, q), true
}

// scale returns v × num / den, rounded down or up, clamped to [0, MaxInt64].
// The second result reports that the value was clamped. den must be > 0.
func scale(v, num, den int64, roundUp bool) (int64, bool) {
	if v < 0 || num < 0 || den <= 0 {
		return scaleBig(v, num, den, roundUp)
	}
	hi, lo := bits.Mul64(uint64(v), uint64(num))
	if hi >= uint64(den) {
		return math.MaxInt64, true // the quotient needs more than 64 bits
	}
	q, rem := bits.Div64(hi, lo, uint64(den))
	if roundUp && rem > 0 {
		q++
	}
	if q > math.MaxInt64 {
		return math.MaxInt64, true
	}
	return int64(q), false
}

// scaleBig is scale for signed operands.
func scaleBig(v, num, den int64, roundUp bool) (int64, bool) {
	r := new(big.Int).Mul(big.NewInt(v), big.NewInt(num))
	d := big.NewInt(den)
	q, m := new(big.Int).QuoRem(r, d, new(big.Int))
	if roundUp && m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		if q.Sign() < 0 {
			return 0, true
		}
		return math.MaxInt64, true
	}
	return q.Int64(), false
}

// proportionalLimit returns the limit that keeps the ratio of limit to
// request when the request changes from request to newRequest. hasLimit false
// means there is no limit to keep, and so does a new request of 0 (upstream
// leaves the limit alone then); hasRequest false (or a request equal to the
// limit) makes the new limit equal to the new request. The last result
// reports that the value was clamped to MaxInt64.
func proportionalLimit(limit int64, hasLimit bool, request int64, hasRequest bool, newRequest int64) (int64, bool, bool) {
	if !hasLimit || newRequest <= 0 {
		return 0, false, false
	}
	if !hasRequest || request == limit {
		return newRequest, true, false
	}
	v, clamped := scale(limit, newRequest, request, false)
	return v, true, clamped
}
