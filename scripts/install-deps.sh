#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages agentd builds and tests against, only those missing.
# Used by `make demo`, `make test`, `make bench` and `make deb`; safe to run again.
set -eu
# The Swift toolchain is not a Debian package: say where to get it before anything else.
if ! command -v swift >/dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
    echo "install-deps: no Swift toolchain: swift is neither on PATH nor in /opt/swift/usr/bin." >&2
    echo "  Get Swift 6.3.1 for Debian 12 from https://www.swift.org/install/linux/ (the tarball" >&2
    echo "  swift-6.3.1-RELEASE-debian12.tar.gz), unpack it so that /opt/swift/usr/bin/swift exists" >&2
    echo "  (or put its usr/bin on PATH), then run make again." >&2
    exit 1
fi
# dbus-daemon: the D-Bus tests run a private bus (docs/dbus.md); dbus-bin: dbus-monitor, by which the dunst test hears the bus. python3 (its sqlite3 module) holds a
# lock on and reads state.db in the durability tests; e2fsprogs has the chattr they use.
# logrotate: its example job (etc/examples/debian-timers) is checked against the real binary.
# prometheus: ships promtool, which checks `agentctl metrics` and the MetricsFile= text (the server
# it also installs is not started by the tests). systemd: systemd-journald and journalctl for the
# journal-fields test (a journald in a private mount namespace; no systemd as PID 1 needed).
# sqlite3: the recovery tests edit a killed agent's state.db; perl: the socket-abuse clients.
# binutils: readelf, with which AgentctlLinkTests reads agentctl's NEEDED libraries.
# dunst, xvfb: the user agent's notifications are checked against a real notification server
# (dunst on an Xvfb display, read back with dunstctl history, driven with dunstctl action); passwd (useradd) and util-linux
# (setpriv) run the user agent as a throwaway user.
# libcurl4-openssl-dev, libssl-dev: the transfer plugin (libcurl; OpenSSL's SHA-256 for --sha256);
# nginx: the HTTP server its tests and benchmark start on 127.0.0.1 (never as a system service).
# libstdc++-12-dev: libstdc++.a, which the release build links in (packaging/static-libstdc++.sh).
# strace: a test attaches to a real agent and checks that no request's sync runs on its loop thread.
packages="libstdc++-12-dev libinotifytools0-dev libsqlite3-dev libsystemd-dev pkg-config util-linux procps tmux dbus-daemon dbus-bin iproute2 python3 e2fsprogs logrotate prometheus systemd sqlite3 perl binutils dunst xvfb passwd libcurl4-openssl-dev libssl-dev nginx strace"
# `install-deps.sh bench` adds what the benchmarks need.
[ "${1:-}" = "bench" ] && packages="$packages python3 gcc libc6-dev curl"
# `install-deps.sh order` adds what `make order-file` needs: valgrind (callgrind lists the
# functions agentd runs), binutils (nm, objcopy).
[ "${1:-}" = "order" ] && packages="$packages python3 valgrind binutils"
# `install-deps.sh packaging` adds what `make deb` and `make package-test` need: debhelper,
# dpkg-dev, chrpath (the build); lintian; debootstrap (the Debian 12 root); systemd-container
# (systemd-nspawn boots it); man-db (man --warnings renders the installed pages); bsdutils (script(1)
# gives nspawn's console a terminal), tar, coreutils (timeout) are essential and always there.
[ "${1:-}" = "packaging" ] && packages="$packages debhelper dpkg-dev chrpath lintian debootstrap systemd-container man-db"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq
# The services among these packages (nginx, prometheus, dbus) are for the tests' own instances:
# a policy-rc.d that says no (101, invoke-rc.d(8)) keeps their packages from starting them, unless
# the host already has a policy of its own.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# agentd install-deps.sh: no service starts while it installs\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT INT TERM
fi
# --no-upgrade: only what is missing; a host's installed packages are never upgraded.
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends --no-upgrade $missing
