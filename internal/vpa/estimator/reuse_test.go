package estimator_test

import (
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/kscale/kscale/internal/vpa/estimator"
)

func TestToRecommendationReusingMatchesFresh(t *testing.T) {
	a := []estimator.ContainerBounds{
		{Name: "app", Bounds: estimator.Bounds{Target: estimator.Amounts{CPU: 587, Memory: 1}, Lower: estimator.Amounts{CPU: 500}, Upper: estimator.Amounts{CPU: 700}},
			Uncapped: estimator.Amounts{CPU: 587, Memory: 1}, CPU: true, Memory: true},
		{Name: "side", Bounds: estimator.Bounds{Target: estimator.Amounts{CPU: 12}}, CPU: true},
	}
	b := []estimator.ContainerBounds{a[0], a[1]}
	b[0].Upper.CPU = 650 // changed list
	b[1].Memory = true   // controlled resources changed: nothing reused
	prev := estimator.ToRecommendation(a)
	got := estimator.ToRecommendationReusing(b, a, prev)
	want := estimator.ToRecommendation(b)
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Fatalf("reusing result differs from a fresh build:\n got %+v\nwant %+v", got, want)
	}
	same := func(x, y any) bool { return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() }
	if !same(got.ContainerRecommendations[0].Target, prev.ContainerRecommendations[0].Target) {
		t.Fatal("unchanged target list not reused")
	}
	if same(got.ContainerRecommendations[0].UpperBound, prev.ContainerRecommendations[0].UpperBound) {
		t.Fatal("changed upper bound list reused")
	}
}
