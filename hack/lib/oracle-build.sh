# Sourced by the build scripts of the oracles that link k8s.io/kubernetes
# (hack/fidelity, hack/hpaoracle). oracle_build NAME DIR BIN builds the Go
# module in DIR into a per-user cache keyed by a hash of its files
# (~/.cache/kscale/NAME/<key>/BIN) and prints the binary's path on its last
# line; it skips the build when that binary exists. The oracle must run the
# code of the test control plane: DIR's go.mod must pin the
# k8s.io/kubernetes version and the staging-module replacements of
# hack/testbin/go.mod, and the binary carries kube-scheduler's version stamp.

oracle_build() {
  local name=$1 here=$2 binname=$3
  local testbin="$here/../testbin/go.mod"
  local k8s_version testbin_version
  k8s_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$here/go.mod")"
  testbin_version="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$testbin")"
  if [[ "$k8s_version" != "$testbin_version" ]]; then
    echo "$name: hack/$name pins k8s.io/kubernetes $k8s_version, hack/testbin $testbin_version; make them equal" >&2
    return 1
  fi
  if ! diff <(sed -n '/^replace (/,/^)/p' "$here/go.mod") <(sed -n '/^replace (/,/^)/p' "$testbin") >&2; then
    echo "$name: the replace blocks of hack/$name/go.mod and hack/testbin/go.mod differ; make them equal" >&2
    return 1
  fi

  # Key: every go.mod, go.sum and .go file of the directory in byte order,
  # each as its name, a newline and its content (internal/simulator/fidelity
  # computes the same key to find the scheduler oracle).
  local key dir bin
  key="$(cd "$here" && for f in $(ls go.mod go.sum ./*.go | sed 's|^\./||' | LC_ALL=C sort); do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/kscale/$name/$key"
  bin="$dir/$binname"
  if [[ -x "$bin" ]]; then
    echo "$bin"
    return 0
  fi

  echo "$name: building the oracle (kubernetes $k8s_version) into $dir" >&2
  local start=$SECONDS v="k8s.io/component-base/version" minor ldflags
  mkdir -p "$dir"
  minor="${k8s_version#v1.}"; minor="${minor%%.*}"
  ldflags="-s -w -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=$minor"
  ldflags+=" -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z"
  (cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags="$ldflags" -o "$dir/.oracle.tmp" .)
  mv "$dir/.oracle.tmp" "$bin"
  echo "$name: built the oracle in $((SECONDS - start))s" >&2
  echo "$bin"
}
