#!/usr/bin/env bash
# Runs every behaviour scenario under test/scenarios with `kscale simulate --check`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
shopt -s nullglob
scenarios=(test/scenarios/*.yaml examples/whatif/*.yaml)
if [[ ${#scenarios[@]} -eq 0 ]]; then
  echo "scenarios: none yet"
  exit 0
fi
go build -o bin/kscale ./cmd/kscale
passed=0 failed=0
for s in "${scenarios[@]}"; do
  if bin/kscale simulate --check --output none "$s"; then
    passed=$((passed + 1))
  else
    echo "scenario FAILED: $s" >&2
    failed=$((failed + 1))
  fi
done
echo "scenarios: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
