#!/usr/bin/env bash
# Builds the fidelity oracle (kube-scheduler's default profile as a program,
# see main.go) into a per-user cache keyed by a hash of this module's files,
# and prints the binary's path on its last line. Skips the build when that
# binary exists. internal/simulator/fidelity computes the same key to find it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
testbin="$here/../testbin/go.mod"

# The oracle must run the scheduler of the test control plane: same
# k8s.io/kubernetes version, same staging-module replacements.
k8s_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$here/go.mod")"
testbin_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$testbin")"
if [[ "$k8s_version" != "$testbin_version" ]]; then
  echo "fidelity: hack/fidelity pins k8s.io/kubernetes $k8s_version, hack/testbin $testbin_version; make them equal" >&2
  exit 1
fi
if ! diff <(sed -n '/^replace (/,/^)/p' "$here/go.mod") <(sed -n '/^replace (/,/^)/p' "$testbin") >&2; then
  echo "fidelity: the replace blocks of hack/fidelity/go.mod and hack/testbin/go.mod differ; make them equal" >&2
  exit 1
fi

# Key: every go.mod, go.sum and .go file of this directory in byte order,
# each as its name, a newline and its content.
cd "$here"
key="$(for f in $(ls go.mod go.sum ./*.go | sed 's|^\./||' | LC_ALL=C sort); do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/kscale/fidelity/$key"
bin="$dir/kscale-fidelity-oracle"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

echo "fidelity: building the oracle (kubernetes $k8s_version) into $dir" >&2
start=$SECONDS
mkdir -p "$dir"
v="k8s.io/component-base/version"
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
# The same version stamp as hack/testbin's kube-scheduler: plugins read it.
ldflags="-s -w -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=$minor"
ldflags+=" -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z"
CGO_ENABLED=0 go build -trimpath -ldflags="$ldflags" -o "$dir/.oracle.tmp" .
mv "$dir/.oracle.tmp" "$bin"
echo "fidelity: built the oracle in $((SECONDS - start))s" >&2
echo "$bin"
