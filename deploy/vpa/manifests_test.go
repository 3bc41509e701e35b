// Package vpa_test checks that deploy/vpa, the kustomization of the whole
// vertical pod autoscaler (CRDs, recommender, updater, admission webhook),
// is accepted by a real API server as one apply.
package vpa_test

import (
	"testing"

	"github.com/kscale/kscale/internal/manifesttest"
	"github.com/kscale/kscale/internal/testenv"
)

func TestWholeStack(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	objs := manifesttest.Load(t, ".")
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
	}
	for kind, want := range map[string]int{"CustomResourceDefinition": 2, "Deployment": 3, "ServiceAccount": 3} {
		if kinds[kind] != want {
			t.Errorf("deploy/vpa has %d %s objects, want %d (one per component)", kinds[kind], kind, want)
		}
	}
	manifesttest.Create(t, env, objs)
}
