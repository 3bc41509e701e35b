#!/usr/bin/env bash
# Builds the control-plane binaries the integration tests run against
# (etcd, kube-apiserver, kube-scheduler, kube-controller-manager) from the Go
# module proxy into a per-user cache keyed by version. Skips the build when
# every binary is already there. Prints the directory on its last line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$here/go.mod")"
etcd_version="$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2; exit}' "$here/go.mod")"
# Same rule as internal/testenv.BinDir: $KSCALE_TESTBIN_DIR, else the per-user cache.
dir="${KSCALE_TESTBIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kscale/testbin/$k8s_version}"

declare -A pkgs=(
  [etcd]="go.etcd.io/etcd/server/v3"
  [kube-apiserver]="k8s.io/kubernetes/cmd/kube-apiserver"
  [kube-scheduler]="k8s.io/kubernetes/cmd/kube-scheduler"
  [kube-controller-manager]="k8s.io/kubernetes/cmd/kube-controller-manager"
)

mkdir -p "$dir"
cd "$here"
for bin in etcd kube-apiserver kube-scheduler kube-controller-manager; do
  if [[ -x "$dir/$bin" ]]; then
    continue
  fi
  echo "testbin: building $bin (${pkgs[$bin]}, kubernetes $k8s_version, etcd $etcd_version)" >&2
  start=$SECONDS
  # Build to a temporary name and rename, so an interrupted build never leaves
  # a half-written binary that a later run would take as done.
  ldflags="-s -w"
  if [[ $bin == kube-* ]]; then
    v="k8s.io/component-base/version"
    minor="${k8s_version#v1.}"; minor="${minor%%.*}"
    ldflags+=" -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=$minor"
    ldflags+=" -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z"
  fi
  CGO_ENABLED=0 go build -trimpath -ldflags="$ldflags" -o "$dir/.$bin.tmp" "${pkgs[$bin]}"
  mv "$dir/.$bin.tmp" "$dir/$bin"
  echo "testbin: built $bin in $((SECONDS - start))s" >&2
done
echo "$dir"
