#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Flow insertion and deletion rate of net_vsteer (softverbs in-memory
# link), measured by DPDK's own dpdk-test-flow-perf and by vsteer-bench in
# the same run.
#
#  dpdk-test-flow-perf  loads the driver with -d; rules "eth / ipv4 src is
#                       <n> / end actions queue index <n % 4>", one fresh
#                       process per run, so its memory is cold (first
#                       touch of every page is in the figure).
#  vsteer-bench -t flows  rules "eth / ipv4 dst is <n> -> queue <n % 4>",
#                       one mask; its first pass (cold memory, as
#                       flow-perf) and the median of warm passes; and
#                       the same rules as verbs rules straight into
#                       softverbs (its share of the cost).
#
# Each figure is the median of REPEATS processes. Needs no privileges
# beyond writing /var/run/dpdk (or $XDG_RUNTIME_DIR/dpdk).
#
# usage: devtools/bench-flows.sh [-r repeats] [-n rules[,rules...]]
#        VSTEER_BUILD_DIR picks the build directory (default: build).
set -eu

REPEATS=3
COUNTS=1000,10000
QUEUES=4

usage() {
	sed -n 's/^# usage: //p; s/^#        //p' "$0" >&2
	exit 2
}

while getopts "r:n:h" opt; do
	case $opt in
	r) REPEATS=$OPTARG ;;
	n) COUNTS=$OPTARG ;;
	*) usage ;;
	esac
done
case "$REPEATS" in
'' | *[!0-9]*) usage ;;
esac
case "$COUNTS" in
'' | *[!0-9,]*) usage ;;
esac
if [ "$REPEATS" -lt 1 ] || [ "$REPEATS" -gt 9 ]; then
	echo "bench-flows: -r 1..9" >&2
	exit 2
fi
for n in ${COUNTS//,/ }; do
	if [ "$n" -lt 1 ] || [ "$n" -gt 100000 ]; then
		echo "bench-flows: rule counts 1..100000" >&2
		exit 2
	fi
done

cd "$(dirname "$0")/.."
BUILD=${VSTEER_BUILD_DIR:-build}
PMD=$BUILD/drivers/net/vsteer/librte_net_vsteer.so
BENCH=$BUILD/app/vsteer-bench

if [ ! -f "$PMD" ] || [ ! -x "$BENCH" ]; then
	[ -f "$BUILD/build.ninja" ] ||
		meson setup "$BUILD" -Ddpdk_sdk_dir=build-sdk -Dtests=false
	ninja -C "$BUILD" >/dev/null
fi
command -v dpdk-test-flow-perf >/dev/null || {
	echo "bench-flows: dpdk-test-flow-perf not found (Debian package dpdk)" >&2
	exit 1
}
pmd_path=$(realpath "$PMD")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() {
	tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# flow-perf for n rules: sets FP_C and FP_D (rules/s).
flow_perf() {
	local log=$work/fp.log

	# flow-perf wants two lcores; it inserts from the first.
	if ! timeout 120 dpdk-test-flow-perf --no-huge -m 512 --no-pci \
		-l 0-1 --no-shconf --log-level=lib.eal:warning \
		-d "$pmd_path" --vdev "net_vsteer0,dev=mem:bench-flows-$$" -- \
		--ingress --ether --ipv4 --queue --rxq="$QUEUES" --txq="$QUEUES" \
		--rules-count="$1" --rules-batch="$1" --deletion-rate \
		>"$log" 2>&1; then
		cat "$log" >&2
		echo "bench-flows: dpdk-test-flow-perf failed" >&2
		exit 1
	fi
	# ":: [Throughput | Insertion] All Cores :: Port 0 :: Total flows
	# insertion rate -> 38.41 K Rules/Sec"
	FP_C=$(awk '/Throughput \| Insertion.*rate ->/ { print $(NF - 2) * 1000; exit }' "$log")
	FP_D=$(awk '/Throughput \| Deletion.*rate ->/ { print $(NF - 2) * 1000; exit }' "$log")
	if [ -z "$FP_C" ] || [ -z "$FP_D" ]; then
		cat "$log" >&2
		echo "bench-flows: no rates in dpdk-test-flow-perf's output" >&2
		exit 1
	fi
}

# vsteer-bench for n rules: sets VB_CC/VB_CD (first pass) and VB_C/VB_D
# (median of warm passes) of the driver's rows, SV_C/SV_D of softverbs'
# own rows (ibv_create_flow / ibv_destroy_flow alone, warm).
vsteer_bench() {
	local log=$work/vb.log

	if ! timeout 120 "$BENCH" -t flows -f "$1" -M 1 -q "$QUEUES" \
		-r "$REPEATS" >"$log" 2>&1; then
		cat "$log" >&2
		echo "bench-flows: vsteer-bench failed" >&2
		exit 1
	fi
	# The driver's rows come first, then "softverbs alone" and its own.
	read -r VB_CC VB_CD < <(awk '/^softverbs alone/ { exit }
		/first pass/ { print $3, $4; exit }' "$log")
	read -r VB_C VB_D < <(awk -v n="$1" '/^softverbs alone/ { exit }
		$1 == n && $2 == 1 && !/first pass/ { print $3, $4; exit }' \
		"$log")
	read -r SV_C SV_D < <(awk -v n="$1" '/^softverbs alone/ { sv = 1 }
		sv && $1 == n && $2 == 1 && !/first pass/ { print $3, $4; exit }' \
		"$log")
}

echo "bench-flows: net_vsteer on a softverbs in-memory link, $QUEUES Rx" \
	"queues, one mask, rules destroyed in creation order, median of" \
	"$REPEATS processes; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s  %-32s %12s %12s\n' rules measured-by create/s destroy/s
for n in ${COUNTS//,/ }; do
	fpc=; fpd=; vcc=; vcd=; vc=; vd=; svc=; svd=
	for _ in $(seq 1 "$REPEATS"); do
		flow_perf "$n"
		fpc+=" $FP_C"; fpd+=" $FP_D"
		vsteer_bench "$n"
		vcc+=" $VB_CC"; vcd+=" $VB_CD"; vc+=" $VB_C"; vd+=" $VB_D"
		svc+=" $SV_C"; svd+=" $SV_D"
	done
	fpc=$(echo "$fpc" | median); fpd=$(echo "$fpd" | median)
	vcc=$(echo "$vcc" | median); vcd=$(echo "$vcd" | median)
	vc=$(echo "$vc" | median); vd=$(echo "$vd" | median)
	svc=$(echo "$svc" | median); svd=$(echo "$svd" | median)
	printf '%8d  %-32s %12.0f %12.0f\n' "$n" "dpdk-test-flow-perf (cold)" \
		"$fpc" "$fpd"
	printf '%8d  %-32s %12.0f %12.0f\n' "$n" "vsteer-bench first pass (cold)" \
		"$vcc" "$vcd"
	printf '%8d  %-32s %12.0f %12.0f\n' "$n" "vsteer-bench warm" "$vc" "$vd"
	printf '%8d  %-32s %12.0f %12.0f\n' "$n" "softverbs alone, warm" \
		"$svc" "$svd"
	awk -v a="$vcc" -v b="$fpc" -v c="$vcd" -v d="$fpd" -v n="$n" 'BEGIN {
		printf "%8d  %-32s %11.2fx %11.2fx\n", n,
			"vsteer-bench cold / flow-perf", a / b, c / d }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
