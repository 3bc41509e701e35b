#!/usr/bin/env bash
# Builds the HPA oracle (kube-controller-manager's replica calculator as a
# program, see main.go) into a per-user cache keyed by a hash of this
# module's files, and prints the binary's path on its last line
# (hack/lib/oracle-build.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/oracle-build.sh"
oracle_build hpaoracle "$here" kscale-hpa-oracle
