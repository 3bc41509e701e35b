#!/usr/bin/env bash
# Installs the system packages the tests need when they are missing:
# headless Chromium, which the simulate report test drives.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-test-deps: chromium is missing; install Debian's chromium package (needs root)" >&2
  exit 1
fi
echo "install-test-deps: installing chromium" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
