#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The cached minimal Debian 12 root that `make package-test` and `make bench-peers` unpack:
# `debootstrap --variant=minbase --include=systemd,logrotate bookworm`, made once and kept as one tar
# file in the cache directory, /var/cache/agentd-package-test (AGENTD_TEST_CACHE=DIR to put it
# elsewhere, AGENTD_TEST_REFRESH=1 to make it again). Prints the tar file's path on stdout; progress
# on stderr. `--path` prints the path only, made or not. `make package-test-clean` removes the cache
# directory.
# logrotate: the package test converts its timer (and dpkg's dpkg-db-backup.timer, which every root
# has) and runs it under the installed agent; Debian's logrotate pulls in cron, as on most machines.
# The packages are part of the tar file's name, so a cache made with fewer is not reused.
set -euo pipefail

suite=bookworm
arch=$(dpkg --print-architecture)
cache_dir=${AGENTD_TEST_CACHE:-/var/cache/agentd-package-test}
include=systemd,logrotate
base="$cache_dir/$suite-minbase-${include//,/-}-$arch.tar"
if [ "${1:-}" = --path ]; then
    echo "$base"
    exit 0
fi

die() { echo "debian-root: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap): run it as root or with sudo"
if [ -f "$base" ] && [ "${AGENTD_TEST_REFRESH:-0}" != 1 ]; then
    echo "$base"
    exit 0
fi
command -v debootstrap >/dev/null || die "debootstrap is missing; run ./scripts/install-deps.sh packaging"
mkdir -p "$cache_dir"
bootstrap="$cache_dir/bootstrap"
log="$cache_dir/debootstrap.log"
# The mirror this machine's apt uses for the suite (debootstrap's default when there is none).
mirror=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 2>/dev/null |
    awk -v s="$suite" '$1 == s { print $2; exit }')
echo "debian-root: creating the $suite root with debootstrap${mirror:+ from $mirror} (once; cached in $base)" >&2
rm -rf --one-file-system "$bootstrap"
started=$(date +%s)
if ! debootstrap --variant=minbase --include="$include" --arch="$arch" "$suite" "$bootstrap" \
        ${mirror:+"$mirror"} >"$log" 2>&1; then
    tail -n 40 "$log" | sed 's/^/    | /' >&2
    rm -rf --one-file-system "$bootstrap"
    die "debootstrap failed (log: $log); check the network and the mirror"
fi
tar -C "$bootstrap" -cf "$base.tmp" . && mv "$base.tmp" "$base"
rm -rf --one-file-system "$bootstrap"
echo "debian-root: debootstrap took $(($(date +%s) - started)) s; cached $base ($(du -h "$base" | cut -f1))" >&2
echo "$base"
