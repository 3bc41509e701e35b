#!/usr/bin/env bash
# Builds the HPA oracle (kube-controller-manager's replica calculator as a
# program, see main.go) into a per-user cache keyed by a hash of this
# module's files, and prints the binary's path on its last line. Skips the
# build when that binary exists.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
testbin="$here/../testbin/go.mod"
k8s_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$here/go.mod")"
testbin_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$testbin")"
if [[ "$k8s_version" != "$testbin_version" ]]; then
  echo "hpaoracle: hack/hpaoracle pins k8s.io/kubernetes $k8s_version, hack/testbin $testbin_version; make them equal" >&2
  exit 1
fi

cd "$here"
key="$(for f in $(ls go.mod go.sum ./*.go | sed 's|^\./||' | LC_ALL=C sort); do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/kscale/hpaoracle/$key"
bin="$dir/kscale-hpa-oracle"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
echo "hpaoracle: building the oracle (kubernetes $k8s_version) into $dir" >&2
mkdir -p "$dir"
go build -o "$dir/.oracle.tmp" .
mv "$dir/.oracle.tmp" "$bin"
echo "$bin"
