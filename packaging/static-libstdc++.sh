#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes DIR hold one thing, a link to the C++ compiler's libstdc++.a, so that a link given
# -L DIR resolves the Swift driver's -lstdc++ to the archive rather than libstdc++.so (the
# release build: Makefile MEMORY_FLAGS, debian/rules). GCC's runtime library exception allows
# linking it into the binaries (debian/copyright).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
archive=$(${CXX:-g++} -print-file-name=libstdc++.a 2>/dev/null || gcc -print-file-name=libstdc++.a)
case $archive in
    /*) ;;
    *) echo "static-libstdc++: no libstdc++.a found (install libstdc++-12-dev: apt-get install libstdc++-12-dev)" >&2; exit 1 ;;
esac
[ -f "$archive" ] || { echo "static-libstdc++: $archive does not exist (install libstdc++-12-dev)" >&2; exit 1; }
mkdir -p "$1"
ln -sfn "$archive" "$1/libstdc++.a"
