#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make deb: builds packaging/build/agentd_VERSION_ARCH.deb from this checkout.
#
# The binaries come from .build-static/release (`swift build -c release --static-swift-stdlib
# --scratch-path .build-static`, run by `make deb` first, shared with `make bench`). The package is
# built by dpkg-buildpackage in a staging copy of the sources, packaging/build/agentd-VERSION/, with
# packaging/debian/ as its debian/ directory, so nothing is written into the checkout but
# packaging/build/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/packaging/build"
prebuilt="$root/.build-static/release"

die() { echo "build-deb: $*" >&2; exit 1; }

for tool in dpkg-buildpackage dh chrpath; do
    command -v "$tool" >/dev/null || die "$tool is missing; run ./scripts/install-deps.sh packaging"
done
[ -x "$prebuilt/agentd" ] && [ -x "$prebuilt/agentctl" ] && [ -x "$prebuilt/agentd-transfer" ] ||
    die "no binaries in $prebuilt; run: swift build -c release --static-swift-stdlib --scratch-path .build-static (or make deb)"

# One version everywhere: the binaries (AgentVersion.swift), debian/changelog, the man pages.
version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' "$root/Sources/AgentProtocol/AgentVersion.swift")
[ -n "$version" ] || die "cannot read the version from Sources/AgentProtocol/AgentVersion.swift"
deb_version=$(dpkg-parsechangelog -l "$root/packaging/debian/changelog" -S Version)
[ "$deb_version" = "$version" ] ||
    die "packaging/debian/changelog is at $deb_version but AgentVersion.swift says $version; add a changelog entry (dch -v $version)"
for page in "$root"/packaging/man/*.[158]; do
    grep -q "^\.TH .* \"agentd $version\"" "$page" ||
        die "$page does not say \"agentd $version\" in its .TH line; update it"
done

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
stage="$build/agentd-$version"
rm -rf "$stage" "$build"/agentd_"$version"_* "$build"/agentd-dbgsym_"$version"_*
mkdir -p "$stage"
# The sources the package is made from (debian/rules can also build the binaries from them).
tar -C "$root" --exclude=packaging/build -cf - \
    Package.swift Sources etc plugins docs README.md packaging | tar -C "$stage" -xf -
cp -R "$root/packaging/debian" "$stage/debian"

echo "build-deb: building agentd $version for $arch in $stage"
(cd "$stage" && AGENTD_PREBUILT_DIR="$prebuilt" dpkg-buildpackage -b -uc -us)

deb="$build/agentd_${version}_${arch}.deb"
[ -f "$deb" ] || die "dpkg-buildpackage finished but $deb is missing"
echo
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\|Installed-Size\):/  \1:/p'
echo "build-deb: built $deb"
