#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copies the example config into run/demo/etc with Exec= pointing at this checkout's plugins/,
# so the demo agent runs the example plugins without installing anything.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
demo="$root/run/demo"
rm -rf "$demo/etc"
mkdir -p "$demo/etc" "$demo/state"
cp -R "$root/etc/agentd/." "$demo/etc/"
for f in "$demo"/etc/jobs.d/*.job; do
    sed -i "s|/usr/lib/agentd/plugins|$root/plugins|g" "$f"
done
# The ownership rule refuses group- or world-writable files (a umask 002 checkout makes them).
chmod -R go-w "$demo/etc" "$root/plugins"
