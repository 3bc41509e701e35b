#!/usr/bin/env bash
# Builds the real Cluster API core controller manager
# (sigs.k8s.io/cluster-api/core) at the version pinned in hack/capi/go.mod
# from the Go module proxy into a per-user cache keyed by version. Skips the
# build when the binary is already there. Prints the binary's path on its
# last line. The clusterapi end-to-end tests start it on the management
# cluster (internal/testenv/capienv).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# go.mod names it either in a require block or on a one-line require.
version="$(awk '$1 == "sigs.k8s.io/cluster-api" {print $2; exit} $1 == "require" && $2 == "sigs.k8s.io/cluster-api" {print $3; exit}' "$here/go.mod")"
if [[ -z $version ]]; then
  echo "capi: no sigs.k8s.io/cluster-api requirement in $here/go.mod" >&2
  exit 1
fi
# Same rule as internal/testenv/capienv.Dir: $KSCALE_CAPI_DIR, else the per-user cache.
dir="${KSCALE_CAPI_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kscale/capi/$version}"
bin="$dir/cluster-api-manager"

if [[ ! -x "$bin" ]]; then
  mkdir -p "$dir"
  echo "capi: building sigs.k8s.io/cluster-api/core $version" >&2
  start=$SECONDS
  cd "$here"
  # Build to a temporary name and rename, so an interrupted build never leaves
  # a half-written binary that a later run would take as done.
  CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$dir/.cluster-api-manager.tmp" sigs.k8s.io/cluster-api/core
  mv "$dir/.cluster-api-manager.tmp" "$bin"
  echo "capi: built cluster-api-manager in $((SECONDS - start))s" >&2
fi
echo "$bin"
