#!/usr/bin/env bash
# Installs the system packages the tests need when they are missing:
# headless Chromium, which the simulate report test drives, and protoc, with
# which the generated-code test regenerates the gRPC protocols.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-test-deps: missing; install Debian's ${missing[*]} package(s) (needs root)" >&2
  exit 1
fi
echo "install-test-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
