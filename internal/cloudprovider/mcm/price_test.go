package mcm

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

func TestGroupPrice(t *testing.T) {
	obj := func(kind, name, price string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{"name": name},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"class": map[string]any{"kind": "MachineClass", "name": "c"}}}}}}
		if price != "" {
			u.SetAnnotations(map[string]string{machineapi.PriceAnnotation: price})
		}
		return u
	}
	for _, tc := range []struct {
		name, mdPrice, classPrice string
		want                      float64
		err                       string
	}{
		{name: "neither", want: 0},
		{name: "the class's", classPrice: "0.5", want: 0.5},
		{name: "the deployment's wins", mdPrice: "0.2", classPrice: "0.5", want: 0.2},
		{name: "a bad class price names the class", classPrice: "x", err: "MachineClass c: annotation"},
		{name: "a bad deployment price names it", mdPrice: "-3", err: "MachineDeployment md: annotation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := groupPrice(obj("MachineDeployment", "md", tc.mdPrice), map[string]*unstructured.Unstructured{"c": obj("MachineClass", "c", tc.classPrice)})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("price %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
