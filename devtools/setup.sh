#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Install what vsteer needs on Debian 12 and fetch the DPDK driver-SDK
# headers that Debian's libdpdk-dev leaves out. Idempotent: a second run
# with everything present only checks and returns.
#
# usage: devtools/setup.sh [sdk-dir]   (default: build-sdk)
set -eu

SDK_DIR=${1:-build-sdk}
PKGS="libdpdk-dev dpdk dpdk-dev libibverbs-dev ibverbs-providers rdma-core \
meson ninja-build pkg-config gcc clang python3-scapy python3-pyelftools \
iproute2 dpkg-dev xz-utils clang-format"

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing:$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

# DPDK built with enable_driver_sdk=true already installs the headers.
inc=$(pkg-config --variable=includedir libdpdk)
if [ -f "$inc/ethdev_driver.h" ] || [ -f "$inc/dpdk/ethdev_driver.h" ]; then
	echo "setup: driver-SDK headers installed with DPDK"
	mkdir -p "$SDK_DIR"
	exit 0
fi

ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
stamp="$SDK_DIR/.version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ver" ]; then
	exit 0
fi

# apt-get source needs a deb-src entry for the configured archive.
if ! apt-get indextargets 2>/dev/null | grep -q 'Identifier: Sources' ; then
	echo "setup: adding deb-src entries"
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed 's/^Types: deb$/Types: deb-src/' \
			/etc/apt/sources.list.d/debian.sources |
			$SUDO tee /etc/apt/sources.list.d/vsteer-src.sources >/dev/null
	else
		grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
			$SUDO tee /etc/apt/sources.list.d/vsteer-src.list >/dev/null
	fi
	$SUDO apt-get update -qq
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq --download-only "dpdk=$ver" >/dev/null)
tarball=$(ls "$work"/dpdk_*.orig.tar.* | head -n 1)
mkdir -p "$SDK_DIR"
# Only the five headers, nothing else from DPDK lands in the tree.
tar -xf "$tarball" -C "$work" --wildcards \
	'*/lib/ethdev/ethdev_driver.h' '*/lib/ethdev/ethdev_vdev.h' \
	'*/lib/eal/include/dev_driver.h' '*/lib/eal/include/bus_driver.h' \
	'*/drivers/bus/vdev/bus_vdev_driver.h'
find "$work" -name '*.h' -exec cp {} "$SDK_DIR"/ \;
echo "$ver" >"$stamp"
echo "setup: driver-SDK headers of DPDK $ver in $SDK_DIR"
