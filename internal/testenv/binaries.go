package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// KubernetesVersion is the control-plane version the tests run against. It
// must match the k8s.io/kubernetes pin in hack/testbin/go.mod.
const KubernetesVersion = "v1.36.3"

// BinDirEnv names the environment variable that overrides the directory the
// control-plane binaries are read from.
const BinDirEnv = "KSCALE_TESTBIN_DIR"

// BuildCommand is the command that builds the control-plane binaries.
const BuildCommand = "make testbin"

// Binary names, as built by hack/testbin/build.sh.
const (
	binEtcd              = "etcd"
	binAPIServer         = "kube-apiserver"
	binScheduler         = "kube-scheduler"
	binControllerManager = "kube-controller-manager"
)

// MissingBinaryError reports a binary that `make testbin` builds and that has
// not been built: a control-plane binary or kwok.
type MissingBinaryError struct {
	// Path is where the binary was looked for.
	Path string
	// EnvVar is the variable that overrides the binary's directory; empty
	// means BinDirEnv, the control plane's.
	EnvVar string
}

// Error names the binary and the command that builds it.
func (e *MissingBinaryError) Error() string {
	if e.EnvVar != "" && e.EnvVar != BinDirEnv {
		return fmt.Sprintf("binary %s not found: run `%s` from the repository root (or set %s to a directory holding it)",
			e.Path, BuildCommand, e.EnvVar)
	}
	return fmt.Sprintf("control-plane binary %s not found: run `%s` from the repository root "+
		"(or set %s to a directory holding etcd, kube-apiserver, kube-scheduler and kube-controller-manager)",
		e.Path, BuildCommand, BinDirEnv)
}

// BinDir returns the directory holding the control-plane binaries: $KSCALE_TESTBIN_DIR
// if set, otherwise the per-user cache that `make testbin` fills.
func BinDir() string {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir
	}
	return filepath.Join(cacheDir(), "kscale", "testbin", KubernetesVersion)
}

// cacheDir is $XDG_CACHE_HOME, else ~/.cache, as the build scripts use it.
func cacheDir() string {
	if cache := os.Getenv("XDG_CACHE_HOME"); cache != "" {
		return cache
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache")
}

// ToolBinary returns the path of a tool binary that a hack/ build script
// puts into $envVar if set, else the per-user cache's kscale/tool/version
// directory; a binary that is missing or not executable is a
// MissingBinaryError naming envVar.
func ToolBinary(envVar, tool, version, name string) (string, error) {
	dir := os.Getenv(envVar)
	if dir == "" {
		dir = filepath.Join(cacheDir(), "kscale", tool, version)
	}
	path, err := binary(dir, name)
	if err != nil {
		return "", &MissingBinaryError{Path: filepath.Join(dir, name), EnvVar: envVar}
	}
	return path, nil
}

// binary returns the path of a control-plane binary, or a MissingBinaryError.
func binary(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	info, err := os.Stat(path)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", &MissingBinaryError{Path: path}
	}
	return path, nil
}
