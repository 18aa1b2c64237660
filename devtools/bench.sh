#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Every figure of the data path, each next to a reference measured in the
# same run, as a ratio. Nothing here passes or fails: it prints.
#
#  fwd       Debian's dpdk-testpmd, --forward-mode=io, one forwarding lcore,
#            1024 descriptors, two ports, 64-byte frames of 256 flows
#            (--txonly-multi-flow: sources 198.18.0..255.3), started
#            with "start tx_first 16" and looping from then on:
#              null    net_null0,copy=1 + net_null1,copy=1 (allocate and
#                      copy 64 bytes a packet: the bound of any driver
#                      that copies frames): the reference;
#              vsteer  net_vsteer0 and net_vsteer1 on the two ends of one
#                      in-memory link (dev=mem:), no rule;
#              rules   the same with RULES rules on each port, spread over
#                      MASKS masks (ipv4 src is <n>, dst 198.18.0.2 under
#                      one of MASKS masks, udp -> queue 0): every frame
#                      matches one of them (256 of them get traffic); the
#                      first MASKS rules count, and their share of the
#                      frames is checked;
#              rss     --rxq=4 --txq=4 and an RSS rule (eth / ipv4 / udp
#                      -> rss over queues 0-3, ipv4-udp) on each port; the
#                      per-queue shares are printed.
#            The figure is the sum of both ports' Rx-pps between two
#            "show port stats all" DUR seconds apart; errors sums the
#            ports' RX-missed, RX-errors, RX-nombuf and TX-errors. The four
#            alternate, each in a fresh process, REPEATS times; medians.
#  flows     devtools/bench-flows.sh (dpdk-test-flow-perf and
#            vsteer-bench -t flows: insertion and deletion rates), and the
#            memory per rule flow-perf reports (--dump-socket-mem).
#  classify  vsteer-bench -t classify: 10000 rules over 8 masks against
#            1 rule (the Rx cost of the softverbs rule table).
#  wire      devtools/bench-wire.sh: softverbs on a veth (dev=soft:) against
#            net_af_packet with the same ring geometry (needs root).
#  xdp       devtools/bench-wire.sh -w xdp: softverbs' AF_XDP wire
#            (dev=xdp:) against net_af_xdp, where the tree has that wire
#            (lib/softverbs/sv_wire_xdp.c); said so and left out otherwise.
#
# The load average is printed at the start and the end: on a shared
# machine the figures say as much about the other jobs as about the driver.
#
# usage: devtools/bench.sh [-d seconds] [-r repeats] [-s section[,section...]]
#            [-n rules] [-m masks]
#        sections: fwd, flows, classify, wire, xdp (default: all)
#        VSTEER_BUILD_DIR picks the build directory (default: build).
#        FWD_MEM: the fwd testpmds' EAL memory options (default
#        "--no-huge -m 1024"; "--socket-mem 1024" where huge pages are
#        reserved: both drivers of a run get the same).
set -eu

DUR=5
WARM=2
REPEATS=3
SECTIONS=fwd,flows,classify,wire,xdp
FWD_MEM=${FWD_MEM:---no-huge -m 1024}
read -r -a fwd_mem <<<"$FWD_MEM"
RULES=1000
MASKS=8

usage() {
	sed -n 's/^# usage: //p; s/^#        //p' "$0" >&2
	exit 2
}

while getopts "d:r:s:n:m:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	r) REPEATS=$OPTARG ;;
	s) SECTIONS=$OPTARG ;;
	n) RULES=$OPTARG ;;
	m) MASKS=$OPTARG ;;
	*) usage ;;
	esac
done
case "$DUR$REPEATS$RULES$MASKS" in
*[!0-9]*) usage ;;
esac
if [ "$DUR" -lt 1 ] || [ "$DUR" -gt 60 ] || [ "$REPEATS" -lt 1 ] ||
	[ "$REPEATS" -gt 9 ] || [ "$RULES" -lt "$MASKS" ] ||
	[ "$RULES" -gt 4000 ] || [ "$MASKS" -lt 1 ] || [ "$MASKS" -gt 8 ]; then
	echo "bench: -d 1..60, -r 1..9, -m 1..8, -n masks..4000" >&2
	exit 2
fi
for s in ${SECTIONS//,/ }; do
	case $s in
	fwd | flows | classify | wire | xdp) ;;
	*) usage ;;
	esac
done
want() {
	case ",$SECTIONS," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

cd "$(dirname "$0")/.."
BUILD=${VSTEER_BUILD_DIR:-build}
PMD=$BUILD/drivers/net/vsteer/librte_net_vsteer.so
BENCH=$BUILD/app/vsteer-bench
PY=/usr/bin/python3

if [ ! -f "$PMD" ] || [ ! -x "$BENCH" ]; then
	[ -f "$BUILD/build.ninja" ] ||
		meson setup "$BUILD" -Ddpdk_sdk_dir=build-sdk -Dtests=false
	ninja -C "$BUILD" >/dev/null
fi
command -v dpdk-testpmd >/dev/null || {
	echo "bench: dpdk-testpmd not found (devtools/setup.sh installs it)" >&2
	exit 1
}

work=$(mktemp -d)
TP= # testpmd pid
tag=$(printf '%04x' $(($$ % 65536)))

cleanup() {
	exec 3>&- 2>/dev/null || true
	if [ -n "$TP" ]; then
		kill -INT "$TP" 2>/dev/null || true
		sleep 1
		kill -9 "$TP" 2>/dev/null || true
	fi
	rm -rf "/var/run/dpdk/vbench-fwd-$tag" \
		"${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/vbench-fwd-$tag"
	if [ -n "${BENCH_KEEP:-}" ]; then
		echo "bench: logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

loadavg() {
	cut -d' ' -f1-3 /proc/loadavg
}

median() {
	tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print 0;
		      else if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Wait until log $1 has $3 lines matching $2 ($4 seconds at most).
wait_log() {
	local i n=$(($4 * 20))

	for i in $(seq 1 "$n"); do
		[ "$(grep -c -e "$2" "$1" || true)" -ge "$3" ] && return 0
		if [ -n "$TP" ] && ! kill -0 "$TP" 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	tail -20 "$1" >&2
	echo "bench: no '$2' (x$3) in $1" >&2
	exit 1
}

echo "bench: load average at the start: $(loadavg)"

# ---- fwd ----

read -r CPU0 CPU1 < <($PY -c \
	'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[-1])')
pmd_path=$(realpath "$PMD")

# The rules: RULES per port, rule i matching source 198.18.(i % 256).(3 +
# i / 256) and the destination 198.18.0.2 under mask i % MASKS; the first
# MASKS count. testpmd's --txonly-multi-flow sends from 198.18.k.2 + its
# lcore id (1 here), k = 0..255: the first 256 rules take all the frames.
fwd_rules() {
	$PY - "$RULES" "$MASKS" >"$work/rules.txt" <<'EOF'
import sys
n, m = int(sys.argv[1]), int(sys.argv[2])
masks = ["255.255.255.255", "255.255.255.0", "255.255.0.0", "255.0.0.0",
         "255.255.255.252", "255.255.252.0", "255.252.0.0", "252.0.0.0"]
for port in (0, 1):
    for i in range(n):
        count = " count /" if i < m else ""
        print("flow create %d ingress pattern eth / ipv4 src is 198.18.%d.%d"
              " dst spec 198.18.0.2 dst mask %s / udp / end actions queue"
              " index 0 /%s end" % (port, i % 256, 3 + i // 256,
                                    masks[i % m], count))
EOF
	cat >"$work/rss.txt" <<'EOF'
flow create 0 ingress pattern eth / ipv4 / udp / end actions rss queues 0 1 2 3 end types ipv4-udp end / end
flow create 1 ingress pattern eth / ipv4 / udp / end actions rss queues 0 1 2 3 end types ipv4-udp end / end
EOF
}

# Sum of the values after $2 in the last $3 matches in log $1.
last_sum() {
	grep -o -e "$2 *[0-9]*" "$1" | tail -n "$3" |
		awk '{ s += $NF } END { print s + 0 }'
}

# One run of scenario $1 (null, vsteer, rules, rss) in a fresh testpmd:
# sets PPS, ERRS and NOTE.
fwd_run() {
	local log=$work/fwd-$1-$2.log vdevs extra=() tp=() nrules=0 n
	local rx hits q

	NOTE=
	if [ "$1" = null ]; then
		vdevs=(--vdev "net_null0,copy=1" --vdev "net_null1,copy=1")
	else
		vdevs=(--vdev "net_vsteer0,dev=mem:vbench-$tag"
			--vdev "net_vsteer1,dev=mem:vbench-$tag")
		extra=(-d "$pmd_path")
	fi
	case $1 in
	rules)
		tp=(--cmdline-file="$work/rules.txt")
		nrules=$((2 * RULES))
		;;
	rss)
		tp=(--rxq=4 --txq=4 --cmdline-file="$work/rss.txt")
		nrules=2
		;;
	esac
	rm -f "$work/tp.in"
	mkfifo "$work/tp.in"
	timeout -s INT $((4 * DUR + 300)) stdbuf -oL \
		dpdk-testpmd "${fwd_mem[@]}" --no-pci \
		--log-level=lib.eal:warning --lcores "0@$CPU0,1@$CPU1" \
		--main-lcore 0 --file-prefix "vbench-fwd-$tag" "${extra[@]}" \
		"${vdevs[@]}" -- -i --forward-mode=io --nb-cores=1 \
		--rxd=1024 --txd=1024 --total-num-mbufs=32768 \
		--txonly-multi-flow "${tp[@]}" \
		<"$work/tp.in" >"$log" 2>&1 &
	TP=$!
	exec 3>"$work/tp.in"
	# The command file (testpmd's command line parser takes about 5 ms
	# a rule) runs before the first prompt.
	wait_log "$log" "testpmd>" 1 $((nrules / 50 + 60))
	n=$(grep -c "Flow rule #[0-9]* created" "$log" || true)
	if [ "$n" -ne "$nrules" ]; then
		grep -i -e "error" -e "fail" "$log" | head -5 >&2
		echo "bench: $1: $n of $nrules rules created" >&2
		exit 1
	fi
	echo "start tx_first 16" >&3
	wait_log "$log" "io packet forwarding" 1 30
	sleep "$WARM"
	echo "show port stats all" >&3
	wait_log "$log" "Rx-pps:" 2 30
	sleep "$DUR"
	echo "show port stats all" >&3
	wait_log "$log" "Rx-pps:" 4 30
	PPS=$(last_sum "$log" "Rx-pps:" 2)
	ERRS=$(($(last_sum "$log" "RX-missed:" 2) + \
		$(last_sum "$log" "RX-errors:" 2) + \
		$(last_sum "$log" "RX-nombuf:" 2) + \
		$(last_sum "$log" "TX-errors:" 2)))
	rx=$(last_sum "$log" "RX-packets:" 2)
	if [ "$1" = rules ]; then
		for q in $(seq 0 $((MASKS - 1))); do
			echo "flow query 0 $q count" >&3
			echo "flow query 1 $q count" >&3
		done
		wait_log "$log" "hits:" $((2 * MASKS)) 30
		hits=$(last_sum "$log" "hits:" $((2 * MASKS)))
		NOTE=$(awk -v h="$hits" -v r="$rx" -v m="$MASKS" 'BEGIN {
			printf "the %d counting rules of a port took %.1f%% of its frames (%d/256 flows: %.1f%%)",
				m, (r > 0 ? 100 * h / r : 0), m, 100 * m / 256 }')
	elif [ "$1" = rss ]; then
		echo "show port xstats 0" >&3
		wait_log "$log" "rx_q3_packets:" 1 30
		NOTE="port 0 queues: $(grep -o -e "rx_q[0-3]_packets: *[0-9]*" \
			"$log" | tail -4 | awk '{ v[NR] = $2; s += $2 } END {
			for (i = 1; i <= NR; i++)
				printf "%s%.0f%%", (i > 1 ? " " : ""), (s ? 100 * v[i] / s : 0) }')"
	fi
	echo "stop" >&3
	echo "quit" >&3
	exec 3>&-
	wait_log "$log" "^Bye" 1 30
	wait "$TP" 2>/dev/null || true
	TP=
}

fwd_section() {
	local i s
	declare -A pps errs
	declare -A label=([null]="net_null copy=1" [vsteer]="net_vsteer"
		[rules]="net_vsteer, $RULES rules/$MASKS masks"
		[rss]="net_vsteer, 4 queues + RSS")

	fwd_rules
	echo
	echo "== fwd: dpdk-testpmd io forwarding, 1 forwarding lcore (CPU $CPU1)," \
		"1024 descriptors, 64-byte frames of 256 flows, tx_first 16," \
		"${DUR} s windows after ${WARM} s, median of $REPEATS =="
	for s in null vsteer rules rss; do
		pps[$s]=
		errs[$s]=0
	done
	for i in $(seq 1 "$REPEATS"); do
		for s in null vsteer rules rss; do
			fwd_run "$s" "$i"
			pps[$s]+=" $PPS"
			errs[$s]=$((errs[$s] + ERRS))
			printf '  run %d %-30s %7.2f Mpps  errors %d  %s\n' "$i" \
				"${label[$s]}" "$(awk -v p="$PPS" \
				'BEGIN { print p / 1e6 }')" "$ERRS" "$NOTE"
		done
	done
	for s in null vsteer rules rss; do
		pps[$s]=$(echo "${pps[$s]}" | median)
	done
	echo
	printf '%-32s %8s   %-32s %8s %7s %8s\n' scenario Mpps reference Mpps \
		ratio target
	row() {
		awk -v a="${label[$1]}" -v pa="${pps[$1]}" -v b="${label[$2]}" \
			-v pb="${pps[$2]}" -v t="$3" 'BEGIN {
			printf "%-32s %8.2f   %-32s %8.2f %7s %8s\n", a, pa / 1e6,
				b, pb / 1e6,
				(pb > 0 ? sprintf("%.2f", pa / pb) : "n/a"), t }'
	}
	row vsteer null ">= 0.5"
	row rules vsteer ">= 0.9"
	row rss vsteer ">= 0.9"
	echo "Mpps: both ports' Rx-pps summed (median); errors over all runs:" \
		"$((errs[null] + errs[vsteer] + errs[rules] + errs[rss]))."
}

want fwd && fwd_section

# ---- flows ----

if want flows; then
	echo
	echo "== flows: devtools/bench-flows.sh =="
	devtools/bench-flows.sh -r "$REPEATS"
	echo
	echo "== flows: memory per rule, dpdk-test-flow-perf --dump-socket-mem" \
		"(10000 rules) =="
	timeout 120 dpdk-test-flow-perf --no-huge -m 512 --no-pci \
		--log-level=lib.eal:warning --file-prefix "vbench-mem-$tag" \
		-d "$pmd_path" --vdev "net_vsteer0,dev=mem:vbench-mem-$tag" -- \
		--ingress --ether --ipv4 --queue --rxq=4 --txq=4 \
		--rules-count=10000 --rules-batch=10000 --dump-socket-mem \
		2>&1 | grep -e "size in" || echo "bench: flow-perf printed no memory figure"
	echo "(flow-perf sees the DPDK heap only (rte_malloc): the driver's flow"
	echo " records and softverbs' rule table live in the C heap)"
fi

# ---- classify ----

if want classify; then
	echo
	echo "== classify: vsteer-bench -t classify, 10000 rules over 8 masks" \
		"against 1 rule =="
	"$BENCH" -t classify -n 10000 -m 8 -r "$REPEATS" | grep -v "^load average"
fi

# ---- wire ----

if want wire; then
	echo
	echo "== wire: devtools/bench-wire.sh (softverbs on a veth against" \
		"net_af_packet) =="
	if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
		echo "bench: the wire needs root (network namespace, veth pair)"
	else
		devtools/bench-wire.sh -r "$REPEATS" -w packet
	fi
fi

if want xdp; then
	echo
	echo "== xdp: softverbs' AF_XDP wire against net_af_xdp =="
	if [ ! -f lib/softverbs/sv_wire_xdp.c ]; then
		echo "bench: this tree has no AF_XDP wire (dev=xdp:): left out"
	else
		devtools/bench-wire.sh -r "$REPEATS" -w xdp
	fi
fi

echo
echo "bench: load average at the end: $(loadavg)"
