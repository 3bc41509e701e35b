package recommendation

import (
	"math"
	"testing"
)

func TestScale(t *testing.T) {
	tests := []struct {
		v, num, den int64
		up          bool
		want        int64
		clamped     bool
	}{
		{7, 2, 3, false, 4, false},
		{7, 2, 3, true, 5, false},
		{6, 2, 3, true, 4, false},
		{math.MaxInt64, 2, 2, false, math.MaxInt64, false},
		{math.MaxInt64, 3, 2, false, math.MaxInt64, true},
		{1 << 40, 1 << 40, 1, false, math.MaxInt64, true},
		{1 << 40, 1 << 40, 1 << 30, false, 1 << 50, false},
		{-7, 2, 3, false, -4, false},
		{-7, 2, 3, true, -4, false},
		{0, 5, 3, true, 0, false},
	}
	for _, tc := range tests {
		got, clamped := scale(tc.v, tc.num, tc.den, tc.up)
		if got != tc.want || clamped != tc.clamped {
			t.Errorf("scale(%d, %d, %d, %v) = %d, %v; want %d, %v", tc.v, tc.num, tc.den, tc.up, got, clamped, tc.want, tc.clamped)
		}
		if tc.v >= 0 {
			big, bigClamped := scaleBig(tc.v, tc.num, tc.den, tc.up)
			if big != got || bigClamped != clamped {
				t.Errorf("scaleBig(%d, %d, %d, %v) = %d, %v; fast path gave %d, %v", tc.v, tc.num, tc.den, tc.up, big, bigClamped, got, clamped)
			}
		}
	}
}
