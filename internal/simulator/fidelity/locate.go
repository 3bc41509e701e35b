package fidelity

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OracleEnv names the environment variable that overrides the oracle
// binary's path.
const OracleEnv = "KSCALE_FIDELITY_ORACLE"

// OracleBuildCommand builds the oracle into the cache OraclePath reads.
const OracleBuildCommand = "make fidelity-oracle"

const modulePath = "github.com/kscale/kscale"

// MissingOracleError reports an oracle binary that has not been built.
type MissingOracleError struct {
	// Path is where the binary was looked for.
	Path string
}

// Error names the binary and the command that builds it.
func (e *MissingOracleError) Error() string {
	return fmt.Sprintf("fidelity oracle %s not found: run `%s` from the repository root (or set %s to the binary)",
		e.Path, OracleBuildCommand, OracleEnv)
}

// OraclePath returns the oracle binary: $KSCALE_FIDELITY_ORACLE if set,
// otherwise the cache entry hack/fidelity/build.sh fills for the current
// sources of hack/fidelity (so an edited oracle is never run stale).
func OraclePath() (string, error) {
	if p := os.Getenv(OracleEnv); p != "" {
		return p, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	key, err := sourceKey(filepath.Join(root, "hack", "fidelity"))
	if err != nil {
		return "", err
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("locating the cache: %w", err)
		}
		cache = filepath.Join(home, ".cache")
	}
	path := filepath.Join(cache, "kscale", "fidelity", key, "kscale-fidelity-oracle")
	if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", &MissingOracleError{Path: path}
	}
	return path, nil
}

// repoRoot walks up from the working directory to the main module's root.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("finding the repository root: no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// sourceKey is build.sh's cache key: the sha256 of every go.mod, go.sum and
// .go file of dir in byte order, each as its name, a newline and its
// content; the first 16 hex digits.
func sourceKey(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("reading the oracle sources: %w", err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && (n == "go.mod" || n == "go.sum" || strings.HasSuffix(n, ".go")) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", fmt.Errorf("reading the oracle sources: %w", err)
		}
		h.Write([]byte(n + "\n"))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
