package testenv

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
)

// KwokVersion is the version of the real kwok controller the tests run; it
// must match the sigs.k8s.io/kwok pin in hack/kwok/go.mod.
const KwokVersion = "v0.8.0"

// KwokDirEnv names the environment variable that overrides the directory the
// kwok binary is read from.
const KwokDirEnv = "KSCALE_KWOK_DIR"

// binKwok is the kwok controller's binary and component name.
const binKwok = "kwok"

// kwokLeaseSeconds is the node Leases' duration kwok renews, a kubelet's default.
const kwokLeaseSeconds = 40

// kwokNodeIP and kwokPodCIDR are kwok's host IP for nodes without an address
// and its pod IP range (the API server never routes to them).
const (
	kwokNodeIP  = "10.240.0.1"
	kwokPodCIDR = "10.0.0.1/12"
)

// KwokDir returns the directory holding the kwok binary: $KSCALE_KWOK_DIR if
// set, otherwise the per-user cache that `make testbin` (hack/kwok/build.sh)
// fills.
func KwokDir() string {
	if dir := os.Getenv(KwokDirEnv); dir != "" {
		return dir
	}
	return filepath.Join(cacheDir(), "kscale", "kwok", KwokVersion)
}

// kwokBinary returns the kwok binary's path, or a MissingBinaryError.
func kwokBinary() (string, error) {
	path, err := binary(KwokDir(), binKwok)
	if err != nil {
		return "", &MissingBinaryError{Path: filepath.Join(KwokDir(), binKwok), EnvVar: KwokDirEnv}
	}
	return path, nil
}

// startKwok runs the real kwok controller against the API server as the
// admin: it plays the kubelet of every node annotated
// kwokstages.NodeSelector (Leases, Ready, the Stages of deploy/kwok) and of
// the pods bound to them.
func (e *Env) startKwok(ctx context.Context) error {
	path, err := kwokBinary()
	if err != nil {
		return err
	}
	stages := e.path("kwok-stages.yaml")
	if err := os.WriteFile(stages, kwokstages.Stages, 0o600); err != nil {
		return fmt.Errorf("writing kwok stages: %w", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	args := []string{
		"--kubeconfig=" + e.KubeconfigPath,
		"--config=" + stages,
		"--manage-nodes-with-annotation-selector=" + kwokstages.NodeSelector,
		"--node-lease-duration-seconds=" + strconv.Itoa(kwokLeaseSeconds),
		// The host IP of pods on nodes without an InternalIP address (kwok has
		// no default), and pod IPs from a range that does not run out.
		"--node-ip=" + kwokNodeIP, "--cidr=" + kwokPodCIDR,
		fmt.Sprintf("--server-address=127.0.0.1:%d", ports[0]),
	}
	args = mergeFlags(args, e.opts.KwokFlags)
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[0])
	return e.launchAt(ctx, binKwok, path, args, func(ctx context.Context) error {
		_, err := httpGet(ctx, http.DefaultClient, url)
		return err
	})
}
