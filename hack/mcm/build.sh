#!/usr/bin/env bash
# Builds the real controllers of Gardener's machine-controller-manager
# (github.com/gardener/machine-controller-manager at the version pinned in
# hack/mcm/go.mod, from the Go module proxy) with the test cloud's driver
# (hack/mcm/driver.go) into a per-user cache keyed by version. A stamp of
# the module's files (go.mod, go.sum, *.go) rebuilds it when the driver
# changes. Skips the build when the binary is current. Prints the binary's
# path on its last line. The mcm end-to-end tests start it on the control
# cluster (internal/testenv/mcmenv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(awk '$1 == "github.com/gardener/machine-controller-manager" {print $2; exit} $1 == "require" && $2 == "github.com/gardener/machine-controller-manager" {print $3; exit}' "$here/go.mod")"
if [[ -z $version ]]; then
  echo "mcm: no github.com/gardener/machine-controller-manager requirement in $here/go.mod" >&2
  exit 1
fi
# Same rule as internal/testenv/mcmenv.Dir: $KSCALE_MCM_DIR, else the per-user cache.
dir="${KSCALE_MCM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kscale/mcm/$version}"
bin="$dir/mcm"
stamp="$(cd "$here" && for f in $(ls go.mod go.sum ./*.go | sed 's|^\./||' | LC_ALL=C sort); do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"

if [[ ! -x "$bin" || "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ]]; then
  mkdir -p "$dir"
  echo "mcm: building github.com/gardener/machine-controller-manager $version with the test cloud's driver" >&2
  start=$SECONDS
  cd "$here"
  # Build to a temporary name and rename, so an interrupted build never
  # leaves a half-written binary that a later run would take as done.
  CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$dir/.mcm.tmp" .
  mv "$dir/.mcm.tmp" "$bin"
  echo "$stamp" >"$dir/.stamp"
  echo "mcm: built mcm in $((SECONDS - start))s" >&2
fi
echo "$bin"
