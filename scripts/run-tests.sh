#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs the built suite (`make test`) and says which tests were skipped: a test whose tool or
# privilege is missing is skipped with its reason (`➜ Test … skipped: "…"`), and Swift Testing
# still reports the run as passed. Here the skips are listed after the run; with
# AGENTD_NO_SKIPS=1 (.ci/run sets it: CI's machine has what install-deps.sh installs, and is root)
# any skip fails the run. Some tests are alternatives by design — a pids limit through cgroup v1
# here, through delegated v2 on a laptop — so a machine may skip those without anything missing.
set -uo pipefail
cd "$(dirname "$0")/.."
log=.build/test-output.log
mkdir -p .build
swift test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
skipped=$(grep -a '^➜ Test .* skipped' "$log" || true)
if [ -n "$skipped" ]; then
    count=$(printf '%s\n' "$skipped" | wc -l)
    echo
    echo "make test: $count test(s) skipped on this machine (the reason is beside each):"
    printf '%s\n' "$skipped" | sed 's/^➜ /  /'
    if [ "${AGENTD_NO_SKIPS:-0}" = 1 ] && [ "$status" = 0 ]; then
        echo "make test: AGENTD_NO_SKIPS=1 asks for every test to run: run scripts/install-deps.sh as root" \
             "and make test as root, or unset AGENTD_NO_SKIPS on a machine that cannot run them all" >&2
        status=1
    fi
fi
exit "$status"
