package machineapi

import (
	"strings"
	"testing"
)

func TestPrice(t *testing.T) {
	for _, tc := range []struct {
		value   string
		set     bool
		want    float64
		wantErr bool
	}{
		{set: false, want: 0},
		{value: "0.25", set: true, want: 0.25},
		{value: "0", set: true, want: 0},
		{value: "-1", set: true, wantErr: true},
		{value: "cheap", set: true, wantErr: true},
		{value: "NaN", set: true, wantErr: true},
		{value: "2e6", set: true, wantErr: true},
	} {
		ann := map[string]string{}
		if tc.set {
			ann[PriceAnnotation] = tc.value
		}
		got, err := Price(ann, "MachineSet ms")
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "MachineSet ms: annotation "+PriceAnnotation) {
				t.Errorf("%q: error %v, want one naming the object and annotation", tc.value, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.value, got, err, tc.want)
		}
	}
}
