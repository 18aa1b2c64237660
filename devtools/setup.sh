#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Install what vsteer needs on Debian 12 and fetch the DPDK driver-SDK
# headers that Debian's libdpdk-dev leaves out, with DPDK's own PRM layout
# (drivers/common/mlx5/mlx5_prm.h, which a test checks include/vsteer_prm.h
# against). Idempotent: a second run with everything present only checks
# and returns. Run it as root, or as a user who may use sudo (asked only
# when something must be installed).
#
# usage: devtools/setup.sh [sdk-dir]   (default: build-sdk)
set -eu

SDK_DIR=${1:-build-sdk}
PKGS="libdpdk-dev dpdk dpdk-dev dpdk-doc libibverbs-dev ibverbs-providers ibverbs-utils \
rdma-core meson ninja-build pkg-config gcc make clang python3 python3-scapy \
python3-pyelftools iproute2 dpkg-dev xz-utils clang-format shellcheck \
openvswitch-switch-dpdk libxdp-dev libbpf-dev"

# Run a command as root: directly, or through sudo.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "setup: need root for: $*" >&2
		echo "setup: run this script as root or install sudo" >&2
		exit 1
	fi
}

# One query for all packages; a package not installed prints nothing.
# shellcheck disable=SC2086 # the list is meant to be split
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null |
	awk '/ ok installed$/ { print $1 }')
missing=
for p in $PKGS; do
	case " $(echo "$installed" | tr '\n' ' ') " in
	*" $p "*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -n "$missing" ]; then
	echo "setup: installing:$missing"
	as_root apt-get update -qq
	# The tests run OVS privately (test/e2e/test_ovs.py); installing
	# openvswitch-switch must not start the system's ovsdb-server and
	# ovs-vswitchd. A policy-rc.d that denies every start (101) keeps
	# invoke-rc.d and deb-systemd-invoke from starting services for the
	# packages of this install; one the machine has is left alone.
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		# Never left behind, even when interrupted.
		trap 'as_root rm -f "$policy"' EXIT
		trap 'exit 130' INT TERM
		printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
		as_root chmod 755 "$policy"
	fi
	rc=0
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null || rc=$?
	if [ -n "$policy" ]; then
		as_root rm -f "$policy"
		trap - EXIT INT TERM
	fi
	[ "$rc" -eq 0 ] || exit "$rc"
	case " $missing " in
	*" openvswitch-switch-dpdk "*)
		# Nor at the next boot, where systemd runs.
		if [ -d /run/systemd/system ]; then
			as_root systemctl disable --now openvswitch-switch \
				>/dev/null 2>&1 || true
		fi
		;;
	esac
fi

# DPDK built with enable_driver_sdk=true already installs the headers;
# mlx5_prm.h comes from the source package either way.
inc=$(pkg-config --variable=includedir libdpdk)
if [ -f "$inc/ethdev_driver.h" ] || [ -f "$inc/dpdk/ethdev_driver.h" ]; then
	echo "setup: driver-SDK headers installed with DPDK"
fi
mkdir -p "$SDK_DIR"

ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
stamp="$SDK_DIR/.version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ver" ] &&
	[ -f "$SDK_DIR/mlx5_prm.h" ]; then
	exit 0
fi

# apt-get source needs a deb-src entry for the configured archive.
if ! apt-get indextargets 2>/dev/null | grep -q 'Identifier: Sources'; then
	echo "setup: adding deb-src entries"
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed 's/^Types: deb$/Types: deb-src/' \
			/etc/apt/sources.list.d/debian.sources |
			as_root tee /etc/apt/sources.list.d/vsteer-src.sources >/dev/null
	else
		grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
			as_root tee /etc/apt/sources.list.d/vsteer-src.list >/dev/null
	fi
	as_root apt-get update -qq
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The source of the installed version; if the archive moved on, the
# current one (the same LTS branch keeps the driver ABI).
if ! (cd "$work" && apt-get source -qq --download-only "dpdk=$ver" \
		>/dev/null 2>&1); then
	echo "setup: source of dpdk $ver not available, taking the archive's"
	(cd "$work" && apt-get source -qq --download-only dpdk >/dev/null)
fi
tarball=$(find "$work" -maxdepth 1 -name 'dpdk_*.orig.tar.*' | head -n 1)
if [ -z "$tarball" ]; then
	echo "setup: no DPDK source tarball downloaded" >&2
	exit 1
fi
# Only these six headers, nothing else from DPDK lands in the tree.
tar -xf "$tarball" -C "$work" --wildcards \
	'*/lib/ethdev/ethdev_driver.h' '*/lib/ethdev/ethdev_vdev.h' \
	'*/lib/eal/include/dev_driver.h' '*/lib/eal/include/bus_driver.h' \
	'*/drivers/bus/vdev/bus_vdev_driver.h' \
	'*/drivers/common/mlx5/mlx5_prm.h'
find "$work" -name '*.h' -exec cp {} "$SDK_DIR"/ \;
echo "$ver" >"$stamp"
echo "setup: driver-SDK headers and mlx5_prm.h of DPDK $ver in $SDK_DIR"
