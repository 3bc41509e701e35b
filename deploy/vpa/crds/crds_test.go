package crds

import "testing"

func TestObjectsDecode(t *testing.T) {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"verticalpodautoscalercheckpoints.autoscaling.k8s.io": true,
		"verticalpodautoscalers.autoscaling.k8s.io":           true,
	}
	if len(objs) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(objs), len(want))
	}
	for _, o := range objs {
		if !want[o.Name] {
			t.Errorf("unexpected CRD %s", o.Name)
		}
		if len(o.Spec.Versions) != 1 || o.Spec.Versions[0].Name != "v1" || !o.Spec.Versions[0].Storage {
			t.Errorf("%s: want one stored version v1, got %+v", o.Name, o.Spec.Versions)
		}
	}
}
