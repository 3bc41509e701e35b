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
		v := o.Spec.Versions
		if len(v) != 2 || v[0].Name != "v1" || !v[0].Served || !v[0].Storage || v[1].Name != "v1beta2" || v[1].Served || v[1].Storage {
			t.Errorf("%s: want v1 served and stored, v1beta2 neither (as upstream), got %d versions", o.Name, len(v))
		}
	}
}
