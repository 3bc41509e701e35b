package e2e

import (
	"testing"
	"time"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/testenv"
)

// installVPACRDs installs the VPA CRDs of deploy/vpa/crds.
func installVPACRDs(t *testing.T, env *testenv.Env) {
	t.Helper()
	if err := crds.Install(t.Context(), env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
}
