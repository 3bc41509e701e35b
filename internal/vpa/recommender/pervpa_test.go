package recommender_test

import (
	"maps"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/model"
	"github.com/kscale/kscale/internal/vpa/recommender"
)

func TestOverrides(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	tests := []struct {
		name     string
		policies []vpav1.ContainerResourcePolicy
		want     map[string]model.Overrides
	}{
		{name: "no policy"},
		{name: "policy without per-VPA fields", policies: []vpav1.ContainerResourcePolicy{{ContainerName: "app", MaxAllowed: nil}}},
		{name: "every field", policies: []vpav1.ContainerResourcePolicy{{ContainerName: "app", OOMBumpUpRatio: q("1.5"), OOMMinBumpUp: q("50Mi"),
			MemoryAggregationIntervalSeconds: i32(3600), MemoryAggregationIntervalCount: i64(4)}},
			want: map[string]model.Overrides{"app": {OOMBumpUpRatio: 1.5, OOMMinBumpUpBytes: 50 * 1024 * 1024, HasOOMMinBumpUp: true,
				MemoryAggregationInterval: time.Hour, MemoryAggregationIntervalCount: 4}}},
		{name: "min bump 0 is set", policies: []vpav1.ContainerResourcePolicy{{ContainerName: "*", OOMMinBumpUp: q("0")}},
			want: map[string]model.Overrides{"*": {HasOOMMinBumpUp: true}}},
		{name: "out-of-range values keep the flags", policies: []vpav1.ContainerResourcePolicy{{ContainerName: "app", OOMBumpUpRatio: q("0.5"), OOMMinBumpUp: q("-1"),
			MemoryAggregationIntervalSeconds: i32(0), MemoryAggregationIntervalCount: i64(0)}}},
		{name: "two containers", policies: []vpav1.ContainerResourcePolicy{{ContainerName: "a", OOMBumpUpRatio: q("2")}, {ContainerName: "b", MemoryAggregationIntervalCount: i64(2)}},
			want: map[string]model.Overrides{"a": {OOMBumpUpRatio: 2}, "b": {MemoryAggregationIntervalCount: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var policy *vpav1.PodResourcePolicy
			if tc.policies != nil {
				policy = &vpav1.PodResourcePolicy{ContainerPolicies: tc.policies}
			}
			if got := recommender.Overrides(policy); !maps.Equal(got, tc.want) {
				t.Errorf("Overrides = %+v, want %+v", got, tc.want)
			}
		})
	}
}
