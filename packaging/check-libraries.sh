#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Checks that the given binaries run without the Swift toolchain: every shared library they need
# resolves to a file of an installed Debian package (the Swift runtime itself is linked
# statically), and no RPATH/RUNPATH is left. Used by debian/rules before dpkg-shlibdeps.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
failed=0
for binary in "$@"; do
    [ -f "$binary" ] || { echo "check-libraries: $binary does not exist" >&2; exit 1; }
    if readelf -d "$binary" | grep -Eq '\((RPATH|RUNPATH)\)'; then
        echo "check-libraries: $binary still has an RPATH/RUNPATH (remove it with chrpath -d)" >&2
        failed=1
    fi
    # agentctl reads config files and talks to the socket: AgentCLI links AgentPOSIX, not
    # AgentSystem, whose config watcher and D-Bus code need these two (issue 13).
    if [ "$(basename "$binary")" = agentctl ]; then
        unwanted=$(readelf -d -W "$binary" | sed -n 's/.*(NEEDED).*\[\(libinotifytools[^]]*\|libsystemd[^]]*\)\].*/\1/p' | tr '\n' ' ' | sed 's/ $//')
        if [ -n "$unwanted" ]; then
            echo "check-libraries: $binary needs $unwanted; AgentCLI must depend on AgentPOSIX, not AgentSystem (Package.swift)" >&2
            failed=1
        fi
    fi
    # The release build links libstdc++ and libgcc's unwinder in (packaging/static-libstdc++.sh); agentd loads libsystemd
    # for D-Bus only when it connects to a bus (dlopen; debian/control names it), issue 17.
    needed=$(readelf -d -W "$binary" | sed -n 's/.*(NEEDED).*\[\([^]]*\)\].*/\1/p')
    if printf '%s\n' "$needed" | grep -q '^libstdc++\|^libgcc_s'; then
        echo "check-libraries: $binary needs $(printf '%s\n' "$needed" | grep '^libstdc++\|^libgcc_s' | tr '\n' ' '); link them statically (make static-libstdc++; MEMORY_FLAGS' -L and -static-libgcc)" >&2
        failed=1
    fi
    if [ "$(basename "$binary")" = agentd ] && printf '%s\n' "$needed" | grep -q '^libsystemd'; then
        echo "check-libraries: $binary needs libsystemd; only Sources/CSystemd may use it, through csystemd_load" >&2
        failed=1
    fi
    ldd_out=$(ldd "$binary") || { echo "check-libraries: ldd $binary failed" >&2; exit 1; }
    if printf '%s\n' "$ldd_out" | grep -q 'not found'; then
        echo "check-libraries: $binary needs libraries that are not installed:" >&2
        printf '%s\n' "$ldd_out" | grep 'not found' >&2
        failed=1
    fi
    # "libsqlite3.so.0 => /lib/x86_64-linux-gnu/libsqlite3.so.0 (0x...)" and the loader's own line.
    for library in $(printf '%s\n' "$ldd_out" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
        case $library in
            /opt/swift/* | */swift/*)
                echo "check-libraries: $binary needs $library from the Swift toolchain; build with --static-swift-stdlib" >&2
                failed=1; continue ;;
        esac
        # dpkg knows a file under the path it shipped it: with a merged /usr that may be either form.
        alternate=$(printf '%s\n' "$library" | sed -e 's|^/usr/|/|;t' -e 's|^/|/usr/|')
        if package=$(dpkg-query -S "$library" 2>/dev/null || dpkg-query -S "$alternate" 2>/dev/null); then
            printf '  %-24s %s (%s)\n' "$(basename "$binary")" "$library" "${package%%:*}"
        else
            echo "check-libraries: $binary needs $library, which no Debian package ships" >&2
            failed=1
        fi
    done
done
if [ "$failed" -ne 0 ]; then
    echo "check-libraries: failed (see above)" >&2
    exit 1
fi
