#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The sizes docs/packaging.md states, measured on the built .deb: the stripped binaries as installed,
# the .deb file and its Installed-Size. MB are 10^6 bytes, one decimal.
#
#   packaging/doc-sizes.sh           prints the measured sizes and what the docs say
#   packaging/doc-sizes.sh --check   the same; exits 1 when a stated size is off by more than 10 %
#                                    (run by make package-test)
#   packaging/doc-sizes.sh --update  writes the measured sizes into docs/packaging.md
#
# The sentences it reads and writes (keep their wording when editing the page):
#   "stripped: agentd 14.2 MB, agentctl 9.9 MB"  and  "a .deb of 8.4 MB, 27.5 MB installed"
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
page="$root/docs/packaging.md"
mode=${1:-}
version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' "$root/Sources/AgentProtocol/AgentVersion.swift")
arch=$(dpkg --print-architecture)
deb="$root/packaging/build/agentd_${version}_${arch}.deb"

die() { echo "doc-sizes: $*" >&2; exit 1; }
[ -f "$deb" ] || die "$deb is missing; build it with make deb"

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1000000 }'; }
# Size in bytes of a file inside the .deb (dpkg-deb -c: mode owner size date time path).
member() { dpkg-deb -c "$deb" | awk -v p="./$1" '$6 == p { print $3 }'; }

agentd=$(mb "$(member usr/sbin/agentd)")
agentctl=$(mb "$(member usr/bin/agentctl)")
deb_size=$(mb "$(stat -c %s "$deb")")
installed=$(mb "$(($(dpkg-deb -f "$deb" Installed-Size) * 1024))")

binaries_re='stripped: agentd [0-9.]+ MB, agentctl [0-9.]+ MB'
deb_re='a \.deb of [0-9.]+ MB, [0-9.]+ MB installed'
binaries_text="stripped: agentd $agentd MB, agentctl $agentctl MB"
deb_text="a .deb of $deb_size MB, $installed MB installed"

if [ "$mode" = --update ]; then
    grep -Eq "$binaries_re" "$page" && grep -Eq "$deb_re" "$page" ||
        die "$page no longer has the sentences \"$binaries_text\" and \"$deb_text\"; put them back"
    sed -E -i "s/$binaries_re/$binaries_text/g; s/$deb_re/$deb_text/g" "$page"
    echo "doc-sizes: docs/packaging.md now says: $binaries_text; $deb_text"
    exit 0
fi

echo "measured: $binaries_text; $deb_text"
stated=$(grep -Eo "$binaries_re|$deb_re" "$page" || true)
[ -n "$stated" ] || die "$page states no sizes (\"$binaries_text\", \"$deb_text\"); run $0 --update"
echo "stated:   $(tr '\n' ';' <<<"$stated" | sed 's/;$//; s/;/; /g')"
[ "$mode" = --check ] || exit 0

# Every number stated, paired with the measured one in the same order.
read -r -a measured <<<"$agentd $agentctl $deb_size $installed"
read -r -a said <<<"$(grep -Eo "$binaries_re" "$page" | head -n 1 | grep -Eo '[0-9.]+' | tr '\n' ' ')$(grep -Eo "$deb_re" "$page" | head -n 1 | grep -Eo '[0-9]+\.[0-9]+' | tr '\n' ' ')"
[ ${#said[@]} -eq 4 ] || die "cannot read four sizes from $page; run $0 --update"
for i in 0 1 2 3; do
    if ! awk -v a="${said[i]}" -v b="${measured[i]}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.1 * b) }'; then
        die "docs/packaging.md says ${said[i]} MB where the build measures ${measured[i]} MB; run packaging/doc-sizes.sh --update"
    fi
done
echo "doc-sizes: the stated sizes are within 10 % of the build's"
