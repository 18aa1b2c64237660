#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Flow insertion and deletion rate of net_vsteer (softverbs in-memory
# link), and the memory a rule holds, measured by DPDK's own
# dpdk-test-flow-perf and by vsteer-bench in the same run.
#
#  dpdk-test-flow-perf  loads the driver with -d (EAL -m 512); rules
#                       "eth / ipv4 src is <n> / end actions queue index
#                       <n % 4>" (more than 25000 rules: at random
#                       priorities, --random-priority, as vsteer-bench
#                       spreads them), one fresh process per run, so its
#                       memory is cold (first touch of every page is in
#                       the figure). Its rates come from runs of the tool
#                       alone (wall clock, as it prints them); another run
#                       with vsteer-flowmem preloaded gives the bytes per
#                       rule (the growth of the process's resident memory
#                       from the first rte_flow_create() to the last, per
#                       rule: the driver's and the device's state, and the
#                       8-byte handle flow-perf keeps per rule) and the
#                       rates per second of the inserting thread's CPU
#                       time, which leave out the time other processes
#                       had the CPU.
#  vsteer-bench -t flows  rules "eth / ipv4 dst is <n> -> queue <n % 4>",
#                       one mask, priority n / 25000 (mlx5 holds 65536
#                       rules per priority); its first pass (cold memory,
#                       as flow-perf, with its resident growth per rule) and
#                       the median of warm passes; and the same rules as
#                       verbs rules straight into softverbs (its share of
#                       the cost and of the memory).
#
# Each figure is the median of REPEATS processes. Needs no privileges
# beyond writing /var/run/dpdk (or $XDG_RUNTIME_DIR/dpdk).
#
# Output (stable: devtools/bench.sh reads it), per rule count, rows of
# "<rules>  <measured-by>  <create/s>  <destroy/s>  <bytes/rule>" (bytes
# "-" where the row has none), then two ratio rows; a header line with
# the load average, and the load average at the end:
#
#   rules  measured-by                      create/s   destroy/s  bytes/rule
#  100000  dpdk-test-flow-perf (cold)        1500000     4900000         340
#  100000  flow-perf per CPU second          1500000     4600000           -
#  100000  vsteer-bench first pass (cold)    ...
#  100000  vsteer-bench warm                 ...                           -
#  100000  softverbs alone, warm             ...
#  100000  vsteer-bench cold / flow-perf       0.98x       0.95x
#  100000  flow-perf / softverbs alone         0.35x       0.45x       2.31x
#
# usage: devtools/bench-flows.sh [-r repeats] [-n rules[,rules...]]
#        VSTEER_BUILD_DIR picks the build directory (default: build).
set -eu

REPEATS=3
COUNTS=10000,100000
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
FLOWMEM=$BUILD/app/vsteer-flowmem.so

if [ ! -f "$PMD" ] || [ ! -x "$BENCH" ] || [ ! -f "$FLOWMEM" ]; then
	[ -f "$BUILD/build.ninja" ] ||
		meson setup "$BUILD" -Ddpdk_sdk_dir=build-sdk -Dtests=false
	ninja -C "$BUILD" >/dev/null
fi
command -v dpdk-test-flow-perf >/dev/null || {
	echo "bench-flows: dpdk-test-flow-perf not found (Debian package dpdk)" >&2
	exit 1
}
pmd_path=$(realpath "$PMD")
flowmem_path=$(realpath "$FLOWMEM")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() {
	tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# flow-perf for n rules, with what to preload (or nothing): leaves its
# output in $work/fp.log. Above 25000 rules, at random priorities among
# n / 25000 (rounded up): mlx5 holds 65536 rules per priority.
flow_perf_run() {
	local log=$work/fp.log
	local prio=()

	if [ "$1" -gt 25000 ]; then
		prio=("--random-priority=$((($1 + 24999) / 25000)),1")
	fi

	# flow-perf wants two lcores; it inserts from the first.
	if ! LD_PRELOAD=$2 timeout 120 dpdk-test-flow-perf --no-huge -m 512 \
		--no-pci -l 0-1 --no-shconf --log-level=lib.eal:warning \
		-d "$pmd_path" --vdev "net_vsteer0,dev=mem:bench-flows-$$" -- \
		--ingress --ether --ipv4 --queue --rxq="$QUEUES" --txq="$QUEUES" \
		--rules-count="$1" --rules-batch="$1" --deletion-rate "${prio[@]}" \
		>"$log" 2>&1; then
		cat "$log" >&2
		echo "bench-flows: dpdk-test-flow-perf failed" >&2
		exit 1
	fi
}

# flow-perf for n rules: sets FP_C and FP_D (rules/s) from a run of the
# tool alone, FP_B (bytes per rule) and FP_CC, FP_CD (rules per CPU
# second) from a run with vsteer-flowmem.
flow_perf() {
	local log=$work/fp.log

	flow_perf_run "$1" ""
	# ":: [Throughput | Insertion] All Cores :: Port 0 :: Total flows
	# insertion rate -> 38.41 K Rules/Sec"
	FP_C=$(awk '/Throughput \| Insertion.*rate ->/ { print $(NF - 2) * 1000; exit }' "$log")
	FP_D=$(awk '/Throughput \| Deletion.*rate ->/ { print $(NF - 2) * 1000; exit }' "$log")
	if [ -z "$FP_C" ] || [ -z "$FP_D" ]; then
		cat "$log" >&2
		echo "bench-flows: no rates in dpdk-test-flow-perf's output" >&2
		exit 1
	fi
	VSTEER_FLOWMEM_RULES=$1 flow_perf_run "$1" "$flowmem_path"
	# "vsteer-flowmem: 100000 rules: resident ... (340 bytes/rule), ..."
	FP_B=$(awk -v n="$1" '$1 == "vsteer-flowmem:" && $2 == n &&
		/bytes\/rule/ { sub(/.*\(/, ""); print $1; exit }' "$log")
	# "vsteer-flowmem: create 0.067 s, 0.067 s CPU (1496992 rules per
	# CPU second); destroy ... (4605425 rules per CPU second)"
	read -r FP_CC FP_CD < <(awk '$1 == "vsteer-flowmem:" &&
		$2 == "create" { n = split($0, f, "(");
		split(f[2], c, " "); split(f[3], d, " ");
		print c[1], d[1]; exit }' "$log") || true
	if [ -z "$FP_B" ] || [ -z "$FP_CD" ]; then
		cat "$log" >&2
		echo "bench-flows: no memory figure from vsteer-flowmem" >&2
		exit 1
	fi
}

# vsteer-bench for n rules: sets VB_CC/VB_CD/VB_CB (first pass: rates,
# bytes per rule) and VB_C/VB_D (median of warm passes) of the driver's
# rows, SV_C/SV_D/SV_B of softverbs' own rows (ibv_create_flow /
# ibv_destroy_flow alone, warm; bytes per rule of its first pass).
vsteer_bench() {
	local log=$work/vb.log

	if ! timeout 120 "$BENCH" -t flows -f "$1" -M 1 -q "$QUEUES" \
		-r "$REPEATS" >"$log" 2>&1; then
		cat "$log" >&2
		echo "bench-flows: vsteer-bench failed" >&2
		exit 1
	fi
	# The driver's rows come first, then "softverbs alone" and its own.
	# (read fails on no output: the check below says what is missing)
	read -r VB_CC VB_CD < <(awk '/^softverbs alone/ { exit }
		/first pass/ { print $3, $4; exit }' "$log") || true
	read -r VB_C VB_D < <(awk -v n="$1" '/^softverbs alone/ { exit }
		$1 == n && $2 == 1 && !/first pass/ { print $3, $4; exit }' \
		"$log") || true
	read -r SV_C SV_D < <(awk -v n="$1" '/^softverbs alone/ { sv = 1 }
		sv && $1 == n && $2 == 1 && !/first pass/ { print $3, $4; exit }' \
		"$log") || true
	# "driver + device memory with 10000 rules: 339 bytes/rule ..."
	VB_CB=$(awk '/^driver \+ device memory with/ { sub(/.*rules: /, "");
		print $1; exit }' "$log")
	# "softverbs memory with 10000 rules: 147 bytes/rule resident ..."
	SV_B=$(awk '/^softverbs memory with/ { sub(/.*rules: /, "");
		print $1; exit }' "$log")
	if [ -z "$VB_CC" ] || [ -z "$VB_C" ] || [ -z "$SV_C" ] ||
		[ -z "$VB_CB" ] || [ -z "$SV_B" ]; then
		cat "$log" >&2
		echo "bench-flows: figures missing in vsteer-bench's output" >&2
		exit 1
	fi
}

echo "bench-flows: net_vsteer on a softverbs in-memory link, $QUEUES Rx" \
	"queues, one mask, rules destroyed in creation order, median of" \
	"$REPEATS processes; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s  %-32s %12s %12s %12s\n' rules measured-by create/s destroy/s \
	bytes/rule
row() {
	printf '%8d  %-32s %12.0f %12.0f %12s\n' "$1" "$2" "$3" "$4" "$5"
}
for n in ${COUNTS//,/ }; do
	fpc=; fpd=; fpb=; fcc=; fcd=
	vcc=; vcd=; vcb=; vc=; vd=; svc=; svd=; svb=
	for _ in $(seq 1 "$REPEATS"); do
		flow_perf "$n"
		fpc+=" $FP_C"; fpd+=" $FP_D"; fpb+=" $FP_B"
		fcc+=" $FP_CC"; fcd+=" $FP_CD"
		vsteer_bench "$n"
		vcc+=" $VB_CC"; vcd+=" $VB_CD"; vcb+=" $VB_CB"
		vc+=" $VB_C"; vd+=" $VB_D"
		svc+=" $SV_C"; svd+=" $SV_D"; svb+=" $SV_B"
	done
	fpc=$(echo "$fpc" | median); fpd=$(echo "$fpd" | median)
	fpb=$(echo "$fpb" | median)
	fcc=$(echo "$fcc" | median); fcd=$(echo "$fcd" | median)
	vcc=$(echo "$vcc" | median); vcd=$(echo "$vcd" | median)
	vcb=$(echo "$vcb" | median)
	vc=$(echo "$vc" | median); vd=$(echo "$vd" | median)
	svc=$(echo "$svc" | median); svd=$(echo "$svd" | median)
	svb=$(echo "$svb" | median)
	row "$n" "dpdk-test-flow-perf (cold)" "$fpc" "$fpd" "$fpb"
	row "$n" "flow-perf per CPU second" "$fcc" "$fcd" -
	row "$n" "vsteer-bench first pass (cold)" "$vcc" "$vcd" "$vcb"
	row "$n" "vsteer-bench warm" "$vc" "$vd" -
	row "$n" "softverbs alone, warm" "$svc" "$svd" "$svb"
	awk -v a="$vcc" -v b="$fpc" -v c="$vcd" -v d="$fpd" -v n="$n" 'BEGIN {
		printf "%8d  %-32s %11.2fx %11.2fx %12s\n", n,
			"vsteer-bench cold / flow-perf", a / b, c / d, "-" }'
	awk -v a="$fpc" -v b="$svc" -v c="$fpd" -v d="$svd" -v e="$fpb" \
		-v f="$svb" -v n="$n" 'BEGIN {
		printf "%8d  %-32s %11.2fx %11.2fx %11.2fx\n", n,
			"flow-perf / softverbs alone", a / b, c / d, e / f }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
