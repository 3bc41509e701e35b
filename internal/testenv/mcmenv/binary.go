package mcmenv

import (
	"github.com/kscale/kscale/internal/cloudprovider/mcm/mcmtest"
	"github.com/kscale/kscale/internal/testenv"
)

// DirEnv names the environment variable that overrides the directory the
// binary is read from.
const DirEnv = "KSCALE_MCM_DIR"

// BinaryName is the binary's name: both controllers in one executable
// (`mcm controller-manager`, `mcm machine-controller`).
const BinaryName = "mcm"

// Binary returns the binary's path ($KSCALE_MCM_DIR, else the per-user
// cache that `make testbin` (hack/mcm/build.sh) fills for the pinned MCM
// version), or a testenv.MissingBinaryError naming the command that
// builds it.
func Binary() (string, error) {
	return testenv.ToolBinary(DirEnv, "mcm", mcmtest.Version, BinaryName)
}
