#!/usr/bin/env bash
# Builds the real kwok controller (sigs.k8s.io/kwok/cmd/kwok) at the version
# pinned in hack/kwok/go.mod from the Go module proxy into a per-user cache
# keyed by version. Skips the build when the binary is already there. Prints
# the binary's path on its last line. The tests start it (internal/testenv,
# Options.Kwok) with kscale's Stages (deploy/kwok/stages.yaml) to play the
# kubelets of the kwok provider's nodes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# go.mod names it either in a require block or on a one-line require.
version="$(awk '$1 == "sigs.k8s.io/kwok" {print $2; exit} $1 == "require" && $2 == "sigs.k8s.io/kwok" {print $3; exit}' "$here/go.mod")"
if [[ -z $version ]]; then
  echo "kwok: no sigs.k8s.io/kwok requirement in $here/go.mod" >&2
  exit 1
fi
# Same rule as internal/testenv.KwokDir: $KSCALE_KWOK_DIR, else the per-user cache.
dir="${KSCALE_KWOK_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kscale/kwok/$version}"
bin="$dir/kwok"

if [[ ! -x "$bin" ]]; then
  mkdir -p "$dir"
  echo "kwok: building sigs.k8s.io/kwok/cmd/kwok $version" >&2
  start=$SECONDS
  cd "$here"
  # Build to a temporary name and rename, so an interrupted build never leaves
  # a half-written binary that a later run would take as done.
  CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$dir/.kwok.tmp" sigs.k8s.io/kwok/cmd/kwok
  mv "$dir/.kwok.tmp" "$bin"
  echo "kwok: built kwok in $((SECONDS - start))s" >&2
fi
echo "$bin"
