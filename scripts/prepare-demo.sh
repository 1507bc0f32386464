#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copies the example config into run/demo/etc with Exec= pointing at this checkout's plugins/,
# so the demo agent runs the example plugins without installing anything.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
demo="$root/run/demo"
# A demo agent already answering on the demo socket keeps its config: refuse before touching it.
if [ -S "$demo/agentd.sock" ] && AGENTD_SOCKET="$demo/agentd.sock" "$root/.build/debug/agentctl" status >/dev/null 2>&1; then
    pid=$(AGENTD_SOCKET="$demo/agentd.sock" "$root/.build/debug/agentctl" status --json 2>/dev/null \
        | sed -n 's/.*"pid" *: *\([0-9]*\).*/\1/p' | head -n 1)
    echo "make demo: a demo agent is already running${pid:+ (pid $pid)} on $demo/agentd.sock;" >&2
    echo "  use it (export AGENTD_SOCKET=$demo/agentd.sock), or stop it (Ctrl-C in its terminal${pid:+, or kill $pid}) and run make demo again" >&2
    exit 1
fi
rm -rf "$demo/etc"
mkdir -p "$demo/etc" "$demo/state"
cp -R "$root/etc/agentd/." "$demo/etc/"
for f in "$demo"/etc/jobs.d/*.job; do
    sed -i "s|/usr/lib/agentd/plugins|$root/plugins|g" "$f"
done
# The ownership rule refuses group- or world-writable files (a umask 002 checkout makes them).
chmod -R go-w "$demo/etc" "$root/plugins"
