#!/usr/bin/env bash
# Builds upstream cluster-autoscaler's kwok binary (./kwok of
# kubernetes-sigs/cluster-autoscaler) for `livebench --upstream`. Upstream's
# code is exported into a temporary directory and built there; nothing of it
# enters this repository.
#
# usage: hack/livebench/build-upstream-ca.sh CA_GIT_DIR AUTOSCALER_GIT_DIR [REV] [OUT]
#   CA_GIT_DIR          a clone (or bare git dir) of kubernetes-sigs/cluster-autoscaler
#   AUTOSCALER_GIT_DIR  a clone (or bare git dir) of kubernetes/autoscaler: the source of
#                       the module k8s.io/autoscaler/cluster-autoscaler/apis, which the Go
#                       module proxy does not serve at the version upstream pins
#   REV                 the revision of CA_GIT_DIR to build (default HEAD)
#   OUT                 the binary to write (default bin/cluster-autoscaler-kwok)
#
# Upstream pins Kubernetes release candidates (v0.37.0-rc.0) that the module
# proxy may no longer serve; the build moves them to K8S_STAGING (default
# v0.37.2) and k8s.io/kubernetes to K8S_VERSION (default v1.37.2), both
# patch releases of the same minor.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 4 ]]; then
	echo "usage: $0 CA_GIT_DIR AUTOSCALER_GIT_DIR [REV] [OUT]" >&2
	exit 2
fi
ca_dir=$1
as_dir=$2
rev=${3:-HEAD}
out=${4:-bin/cluster-autoscaler-kwok}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
staging=${K8S_STAGING:-v0.37.2}
kube=${K8S_VERSION:-v1.37.2}

# export GIT_DIR REV DEST: writes the tree of REV into DEST.
export_tree() {
	git --git-dir="$1" archive "$2" | tar -x -C "$3" 2>/dev/null ||
		git -C "$1" archive "$2" | tar -x -C "$3"
}
rev_parse() { git --git-dir="$1" rev-parse --verify -q "$2^{commit}" || git -C "$1" rev-parse --verify "$2^{commit}"; }

commit=$(rev_parse "$ca_dir" "$rev")
work=$(mktemp -d "${TMPDIR:-/tmp}/upstream-ca.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/ca" "$work/as"
export_tree "$ca_dir" "$commit" "$work/ca"
if [[ ! -f $work/ca/kwok/main.go ]]; then
	echo "$ca_dir at $commit has no kwok/main.go: not a kubernetes-sigs/cluster-autoscaler checkout" >&2
	exit 2
fi

cd "$work/ca"
# The apis module: upstream pins a pseudo-version whose last part is a commit
# of kubernetes/autoscaler; build against that commit's source.
apis=k8s.io/autoscaler/cluster-autoscaler/apis
apis_version=$(awk -v m="$apis" '$1 == m {print $2; exit}' go.mod)
apis_commit=${apis_version##*-}
export_tree "$as_dir" "$(rev_parse "$as_dir" "$apis_commit")" "$work/as"
go mod edit -replace "$apis=$work/as/cluster-autoscaler/apis"
for m in $(awk '$1 == "replace" && $5 ~ /^v0\.37\.0-rc/ {print $2}' go.mod); do
	go mod edit -replace "$m=$m@$staging"
done
go mod edit -require "k8s.io/kubernetes@$kube"
go mod tidy >/dev/null 2>&1 || go mod tidy

mkdir -p "$(dirname "$out")"
echo "building upstream cluster-autoscaler (kwok) at ${commit:0:9} into $out" >&2
CGO_ENABLED=0 go build -trimpath -o "$out" ./kwok
echo "$commit" >"$out.commit"
echo "$out"
