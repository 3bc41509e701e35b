package capienv

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
)

// DirEnv names the environment variable that overrides the directory the
// manager binary is read from.
const DirEnv = "KSCALE_CAPI_DIR"

// ManagerName is the manager's binary and component name.
const ManagerName = "cluster-api-manager"

// Dir returns the directory holding the manager binary: $KSCALE_CAPI_DIR
// if set, otherwise the per-user cache that `make testbin`
// (hack/capi/build.sh) fills for the pinned Cluster API version.
func Dir() string {
	if dir := os.Getenv(DirEnv); dir != "" {
		return dir
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "kscale", "capi", clusterapitest.Version)
}

// Binary returns the manager binary's path, or a testenv.MissingBinaryError
// naming the command that builds it.
func Binary() (string, error) {
	path := filepath.Join(Dir(), ManagerName)
	info, err := os.Stat(path)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", &testenv.MissingBinaryError{Path: path, EnvVar: DirEnv}
	}
	return path, nil
}

// moduleFile returns the path of a file of the pinned Cluster API module.
func moduleFile(dir string, parts ...string) string {
	return filepath.Join(append([]string{dir}, parts...)...)
}

// errNoModule wraps a failed module download.
func errNoModule(err error) error {
	return fmt.Errorf("reading the Cluster API module %s@%s: %w", clusterapitest.Module, clusterapitest.Version, err)
}
