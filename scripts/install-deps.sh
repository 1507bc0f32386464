#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages agentd builds and tests against, only those missing.
# Used by `make demo`, `make test`, `make bench` and `make deb`; safe to run again.
set -eu
# dbus-daemon: the D-Bus tests run a private bus (docs/dbus.md). python3 (its sqlite3 module) holds a
# lock on and reads state.db in the durability tests; e2fsprogs has the chattr they use.
packages="libinotifytools0-dev libsqlite3-dev libsystemd-dev pkg-config util-linux procps tmux dbus-daemon iproute2 python3 e2fsprogs"
# `install-deps.sh bench` adds what the benchmarks need.
[ "${1:-}" = "bench" ] && packages="$packages python3 gcc libc6-dev"
# `install-deps.sh packaging` adds what `make deb` and `make package-test` need.
[ "${1:-}" = "packaging" ] && packages="$packages debhelper dpkg-dev chrpath lintian debootstrap systemd-container"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
