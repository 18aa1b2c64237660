#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Build a Debian package of the driver, laid out as Debian packages DPDK's
# own PMDs (librte-net-mlx5-23 and the others): librte-net-vsteer<ABI>
# holds librte_net_vsteer.so.<ABI>.0 and its soname link in the plugin
# directory of the installed DPDK (Debian 12: DPDK 22.11, ABI 23,
# /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0), which EAL loads at every
# start: once the package is installed, dpdk-testpmd, Open vSwitch and the
# DPDK examples find net_vsteer with no -d. Its dependencies are those of
# the libraries the driver links (dpkg-shlibdeps), so that apt installs
# what it needs on a fresh Debian 12; a plugin EAL cannot load makes every
# DPDK application fail to start.
#
#   apt install ./librte-net-vsteer23_0.1.0-1_amd64.deb    install
#   apt remove librte-net-vsteer23                          uninstall
#
# The driver is built in a build directory of its own (release, Debian's
# compiler and linker flags from dpkg-buildflags, no tests), installed
# with meson's "runtime" tag (the driver alone) into a staging tree, and
# stripped as dh_strip does. A second run rebuilds only what changed.
# Sets up what the build needs (devtools/setup.sh) when the DPDK
# driver-SDK headers are missing.
#
# usage: devtools/build-deb.sh [-b builddir] [-o outdir]
#   -b  build directory (default: build-deb in the source tree)
#   -o  where the .deb goes (default: the current directory)
# Prints the path of the package on its last line.
set -eu

here=$(pwd)
BUILD=
OUT=$here
while getopts b:o: opt; do
	case $opt in
	b) BUILD=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*)
		echo "usage: $0 [-b builddir] [-o outdir]" >&2
		exit 2
		;;
	esac
done
# Both relative to where the script was called from.
case $OUT in
/*) ;;
*) OUT=$here/$OUT ;;
esac
case $BUILD in
'') ;;
/*) ;;
*) BUILD=$here/$BUILD ;;
esac

cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-$ROOT/build-deb}
SDK=build-sdk

if [ ! -f "$SDK/ethdev_driver.h" ]; then
	devtools/setup.sh "$SDK"
fi
for tool in meson ninja dpkg-deb dpkg-shlibdeps dpkg-buildflags strip; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "build-deb: $tool not found (devtools/setup.sh installs it)" >&2
		exit 1
	fi
done

# Debian's hardening and optimisation flags, as a package build has them.
CFLAGS=$(dpkg-buildflags --get CFLAGS)
CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS)
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CFLAGS CPPFLAGS LDFLAGS
if [ -f "$BUILD/build.ninja" ]; then
	meson setup --reconfigure "$BUILD" >/dev/null
else
	meson setup "$BUILD" --prefix=/usr --buildtype=plain -Dtests=false \
		-Ddpdk_sdk_dir=build-sdk >/dev/null
fi
meson compile -C "$BUILD" rte_net_vsteer >/dev/null

stage=$BUILD/deb
rm -rf "$stage"
mkdir -p "$stage/debian"
# dpkg-shlibdeps wants to run in a source tree: debian/control, and the
# package's files under debian/<package>.
: >"$stage/debian/control"
tmp=$stage/debian/tmp
meson install -C "$BUILD" --no-rebuild --tags runtime --destdir "$tmp" \
	>/dev/null

so=$(find "$tmp" -name 'librte_net_vsteer.so.*.*' -type f)
if [ -z "$so" ] || [ "$(printf '%s\n' "$so" | wc -l)" -ne 1 ]; then
	echo "build-deb: meson installed no single driver object: $so" >&2
	exit 1
fi
# librte_net_vsteer.so.23.0 -> ABI 23 -> librte-net-vsteer23.
abi=$(basename "$so" | sed 's/^librte_net_vsteer\.so\.\([0-9]*\)\..*/\1/')
pkg=librte-net-vsteer$abi
version=$(meson introspect --projectinfo "$BUILD" |
	/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')-1
arch=$(dpkg --print-architecture)
pkgdir=$stage/debian/$pkg
mv "$tmp" "$pkgdir"
so=$(find "$pkgdir" -name 'librte_net_vsteer.so.*.*' -type f)
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$so"
chmod 0644 "$so"

doc=$pkgdir/usr/share/doc/$pkg
mkdir -p "$doc"
{
	echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
	echo "Upstream-Name: vsteer"
	echo
	echo "Files: *"
	echo "Copyright: 2026 The vsteer authors"
	echo "License: BSD-3-Clause"
	sed -e 's/^$/./' -e 's/^/ /' LICENSE
} >"$doc/copyright"
# The date of the commit built, so that two builds of one tree match.
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
printf '%s (%s) unstable; urgency=medium\n\n  * Package of the vsteer tree%s.\n\n -- The vsteer authors <vsteer@users.noreply.invalid>  %s\n' \
	vsteer "$version" \
	"$(git rev-parse --short HEAD 2>/dev/null | sed 's/^/ at /')" "$date" |
	gzip -9n >"$doc/changelog.Debian.gz"

depends=$(cd "$stage" && dpkg-shlibdeps -O -e "$so" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
	echo "build-deb: dpkg-shlibdeps found no dependencies for $so" >&2
	exit 1
fi
size=$(du -sk --exclude=DEBIAN "$pkgdir" | cut -f1)
mkdir -p "$pkgdir/DEBIAN"
cat >"$pkgdir/DEBIAN/control" <<EOF
Package: $pkg
Source: vsteer
Version: $version
Architecture: $arch
Maintainer: The vsteer authors <vsteer@users.noreply.invalid>
Installed-Size: $size
Depends: $depends
Section: libs
Priority: optional
Multi-Arch: same
Description: DPDK poll-mode driver net_vsteer: rte_flow on verbs flow steering
 net_vsteer runs DPDK's rte_flow API on rdma-core's verbs flow steering
 and mlx5dv matchers (ConnectX NICs through libibverbs and libmlx5), or on
 softverbs, a verbs device in user space over any Linux interface or an
 in-memory link.
 .
 The driver is installed in DPDK's plugin directory, which EAL loads at
 start-up: applications take --vdev net_vsteer0,dev=<device> with no -d.
EOF
(cd "$pkgdir" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
	sort -z | xargs -0 md5sum >DEBIAN/md5sums)

mkdir -p "$OUT"
deb=$OUT/${pkg}_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$pkgdir" "$deb" >/dev/null
echo "build-deb: $pkg $version ($arch), depends: $depends"
echo "$deb"
