#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# vsteer demo: Debian's dpdk-testpmd drives net_vsteer on the softverbs
# device over one end of a veth pair, with 4 Rx queues and rte_flow rules
# typed in testpmd's own syntax: steer by port and by address to queues,
# RSS a service over two queues, drop a source, mark a service, count
# everything. The other end of the pair sits in a network namespace, where
# python3-scapy sends a traffic mix. The demo then shows each rule's
# counter (flow query), the per-queue counters (xstats), the verbs
# translation of two rules (flow dump) and a summary that checks where
# every frame went (devtools/demo.py drives the session).
#
# Sets itself up (packages, build), needs root or sudo for the namespace
# and the veth pair, removes everything it made when it ends, and exits
# non-zero when a check fails. Nothing leaves the veth pair.
#
# With --model, the port is a modelled ConnectX-5 (mlx5_0) on the same
# veth end instead of softverbs: testpmd runs under devtools/mlx5-model,
# and rdma-core's own libibverbs and libmlx5 drive the device
# (doc/mlx5-model.md).
#
# usage: devtools/demo.sh [--model]
# The build directory is $VSTEER_BUILD_DIR, default "build".
set -eu

cd "$(dirname "$0")/.."
BUILD=${VSTEER_BUILD_DIR:-build}
PMD=$BUILD/drivers/net/vsteer/librte_net_vsteer.so
PY=/usr/bin/python3
MODEL=
case ${1:-} in
--model) MODEL=1 ;;
"") ;;
*)
	echo "usage: devtools/demo.sh [--model]" >&2
	exit 2
	;;
esac

printf '=== setting up and building (%s)\n' "$BUILD"
devtools/setup.sh
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" -Ddpdk_sdk_dir=build-sdk
ninja -C "$BUILD"

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "demo: needs root (network namespace, veth pair) or sudo" >&2
		exit 1
	}
	SUDO="sudo env PATH=$PATH:/usr/sbin:/sbin"
fi

set -- --pmd "$PMD" --testpmd dpdk-testpmd
if [ -n "$MODEL" ]; then
	set -- "$@" --model "$(pwd)/devtools/mlx5-model" \
		--model-lib "$BUILD/lib/mlx5model/libmlx5model.so"
fi
# -B: no root-owned __pycache__ in the source tree.
# shellcheck disable=SC2086 # SUDO is a command and an argument, or nothing
exec $SUDO "$PY" -B devtools/demo.py "$@"
