#!/usr/bin/env bash
# Re-fetches the vendored uPlot (third_party/uplot) with npm and checks it.
#   hack/update-uplot.sh          fetch the version in VERSION, verify the
#                                 tarball's integrity and compare the files
#                                 with SHA256SUMS (exit 1 on a difference)
#   hack/update-uplot.sh --write  also copy the files and rewrite SHA256SUMS
#                                 (after changing VERSION deliberately)
set -euo pipefail
dir=$(cd "$(dirname "$0")/../third_party/uplot" && pwd)
read -r spec integrity <"$dir/VERSION"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$spec" >/dev/null)
tgz=$(ls "$tmp"/*.tgz)
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [[ $got != "$integrity" ]]; then
  echo "update-uplot: $spec integrity $got, want $integrity" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp"
cp "$tmp/package/LICENSE" "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/"
if [[ ${1:-} == --write ]]; then
  cp "$tmp/LICENSE" "$tmp/uPlot.iife.min.js" "$tmp/uPlot.min.css" "$dir/"
  (cd "$dir" && sha256sum LICENSE uPlot.iife.min.js uPlot.min.css >SHA256SUMS)
  echo "update-uplot: wrote $spec into $dir"
  exit 0
fi
(cd "$tmp" && sha256sum --quiet -c "$dir/SHA256SUMS")
(cd "$dir" && sha256sum --quiet -c SHA256SUMS)
echo "update-uplot: $spec matches third_party/uplot"
