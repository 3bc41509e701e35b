#!/usr/bin/env bash
# Builds the fidelity oracle (kube-scheduler's default profile as a program,
# see main.go) into a per-user cache keyed by a hash of this module's files,
# and prints the binary's path on its last line (hack/lib/oracle-build.sh).
# internal/simulator/fidelity computes the same key to find it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/oracle-build.sh"
oracle_build fidelity "$here" kscale-fidelity-oracle
