#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Wire benchmark: net_vsteer on softverbs over a Linux interface against
# DPDK's own driver for the same kernel interface, on the same interface,
# measured in the same run with the same traffic:
#   - dev=soft:<ifname> (AF_PACKET) against net_af_packet;
#   - dev=xdp:<ifname> (AF_XDP) against net_af_xdp.
#
# A veth pair joins the root namespace, where the driver under test (the
# DUT, in Debian's dpdk-testpmd) sits, to a network namespace made for the
# run. Both ends have IPv6 disabled and no addresses; nothing leaves the
# pair, and everything is removed on exit.
#
#  rx: a generator on the namespace end sends fixed size UDP frames as
#      fast as it can (trafgen from netsniff-ng, or with -g testpmd a
#      dpdk-testpmd with net_af_packet in txonly mode); the DUT, in rxonly
#      mode, counts what it receives. "offered" is what the veth delivered
#      to the root end in the same window (its rx_packets counter).
#  tx: the DUT, in txonly mode, sends fixed size frames; what arrives is
#      read from the namespace end's rx_packets counter.
#
# The DUT's rates are testpmd's own "Rx-pps"/"Tx-pps" between two
# "show port stats" issued at the ends of the measured window. Each figure
# is the median of REPEATS runs, the drivers alternating (reference, then
# net_vsteer, for each wire). The DUT forwards on the first CPU this shell
# may use, the generator on the last. The load average is printed at the
# start and at the end.
#
# With -w xdp, the two drivers are DPDK's net_af_xdp (iface=<veth>, one
# queue) and net_vsteer on softverbs' AF_XDP wire (dev=xdp:<veth>), where
# the driver has it.
#
# usage: devtools/bench-wire.sh [-d seconds] [-r repeats] [-s frame bytes]
#            [-g trafgen|testpmd] [-w packet|xdp|both]
#        VSTEER_BUILD_DIR picks the build directory (default: build).
set -eu

DUR=3            # measured seconds per run
WARM=1           # seconds of traffic before the measured window
REPEATS=3
SIZE=64          # frame bytes without FCS
GEN_TOOL=trafgen
WIRES=both       # packet: soft: vs net_af_packet; xdp: xdp: vs net_af_xdp

usage() {
	sed -n 's/^# usage: //p; s/^#        //p' "$0" >&2
	exit 2
}

while getopts "d:r:s:g:w:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	r) REPEATS=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	g) GEN_TOOL=$OPTARG ;;
	w) WIRES=$OPTARG ;;
	*) usage ;;
	esac
done
case "$DUR$REPEATS$SIZE" in
*[!0-9]*) usage ;;
esac
case $GEN_TOOL in
trafgen | testpmd) ;;
*) usage ;;
esac
# Each wire: its reference driver, then net_vsteer on it.
case $WIRES in
packet) DRIVERS="af_packet vsteer" ;;
xdp) DRIVERS="af_xdp vsteer-xdp" ;;
both) DRIVERS="af_packet vsteer af_xdp vsteer-xdp" ;;
*) usage ;;
esac
if [ "$DUR" -lt 1 ] || [ "$DUR" -gt 20 ] || [ "$REPEATS" -lt 1 ] ||
	[ "$REPEATS" -gt 9 ] || [ "$SIZE" -lt 60 ] || [ "$SIZE" -gt 1514 ]; then
	echo "bench-wire: -d 1..20, -r 1..9, -s 60..1514" >&2
	exit 2
fi

cd "$(dirname "$0")/.."
BUILD=${VSTEER_BUILD_DIR:-build}
PMD=$BUILD/drivers/net/vsteer/librte_net_vsteer.so
PY=/usr/bin/python3

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "bench-wire: needs root (network namespace, veth pair) or sudo" >&2
		exit 1
	}
	SUDO=sudo
fi

if [ ! -f "$PMD" ]; then
	[ -f "$BUILD/build.ninja" ] ||
		meson setup "$BUILD" -Ddpdk_sdk_dir=build-sdk -Dtests=false
	ninja -C "$BUILD" >/dev/null
fi
command -v dpdk-testpmd >/dev/null || {
	echo "bench-wire: dpdk-testpmd not found (devtools/setup.sh installs it)" >&2
	exit 1
}
if [ "$GEN_TOOL" = trafgen ] && ! command -v trafgen >/dev/null; then
	echo "bench-wire: installing netsniff-ng for trafgen"
	apt_get() {
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" \
			>/dev/null
	}
	if ! apt_get install netsniff-ng &&
		! { apt_get update && apt_get install netsniff-ng; }; then
		echo "bench-wire: no trafgen, generating with dpdk-testpmd" >&2
		GEN_TOOL=testpmd
	fi
fi

tag=$(printf '%04x' $(($$ % 65536)))
NS=vsteer-bench-$tag
HOST=vbh$tag         # root namespace end: the DUT's interface
PEER=vbp$tag         # namespace end: the generator's
work=$(mktemp -d)
GEN=                 # generator pid
DUT=                 # DUT pid

stop_pid() {
	local _
	[ -n "$1" ] || return 0
	$SUDO kill -INT "$1" 2>/dev/null || true
	for _ in $(seq 1 50); do
		$SUDO kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	$SUDO kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

cleanup() {
	exec 3>&-
	stop_pid "$DUT"
	stop_pid "$GEN"
	$SUDO ip netns del "$NS" 2>/dev/null || true
	$SUDO ip link del "$HOST" 2>/dev/null || true
	$SUDO rm -rf "/var/run/dpdk/vbench-gen-$tag" "/var/run/dpdk/vbench-dut-$tag"
	if [ -n "${BENCH_KEEP:-}" ]; then
		echo "bench-wire: logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

$SUDO ip netns add "$NS"
$SUDO ip link add "$HOST" type veth peer name "$PEER" netns "$NS"
if [ -d /proc/sys/net/ipv6 ]; then
	$SUDO sh -c "echo 1 > /proc/sys/net/ipv6/conf/$HOST/disable_ipv6"
	$SUDO ip netns exec "$NS" \
		sh -c "echo 1 > /proc/sys/net/ipv6/conf/$PEER/disable_ipv6"
fi
$SUDO ip link set "$HOST" up
$SUDO ip -n "$NS" link set "$PEER" up

read -r CPU0 CPU1 < <($PY -c \
	'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[-1])')
pmd_path=$(realpath "$PMD")

EAL=(--no-huge -m 256 --no-pci --log-level=lib.eal:warning)
# net_af_packet gets the ring geometry and qdisc bypass that softverbs uses
# (2 KiB frames, 4096 of them, no qdisc), so that the two differ in the
# driver only.
AFP_OPTS=framesz=2048,framecnt=4096,qdisc_bypass=1

# One Ethernet/IPv4/UDP frame of SIZE bytes for trafgen, to a MAC address
# that is not the DUT's (both DUTs run promiscuous, the kernel drops it
# early). trafgen pins its workers to CPUs 0..N-1 itself, whatever the
# affinity it was started with: the frame is for the worker on CPU1 only
# (cpu(n):), the others have nothing to send.
{
	printf 'cpu(%d): { 0x02, 0, 0, 0, 0, 0x01,  0x02, 0, 0, 0, 0, 0x02,  c16(0x0800),\n' "$CPU1"
	printf '  0x45, 0, c16(%d), 0, 0, 0x40, 0, 64, 17, csumip(14, 33),\n' $((SIZE - 14))
	printf '  198, 18, 0, 1,  198, 18, 0, 2,\n'
	printf '  c16(1234), c16(5678), c16(%d), c16(0),\n' $((SIZE - 34))
	printf '  fill(0x00, %d) }\n' $((SIZE - 42))
} >"$work/frame.cfg"

counter() {
	if [ "$1" = root ]; then
		cat "/sys/class/net/$2/statistics/$3"
	else
		$SUDO ip netns exec "$NS" cat "/sys/class/net/$2/statistics/$3"
	fi
}

now() {
	date +%s.%N
}

# rate c0 c1 t0 t1: packets per second
rate() {
	awk -v a="$1" -v b="$2" -v s="$3" -v e="$4" \
		'BEGIN { printf "%.0f\n", (b - a) / (e - s) }'
}

# Wait until log $1 has $3 lines matching $2 (30 s at most: testpmd
# starts slowly on a busy machine).
wait_log() {
	local _
	for _ in $(seq 1 600); do
		# The log may not exist yet: the process writing it is
		# starting in the background.
		[ "$(grep -c -e "$2" "$1" 2>/dev/null)" -ge "$3" ] 2>/dev/null &&
			return 0
		sleep 0.05
	done
	cat "$1" >&2
	echo "bench-wire: no '$2' (x$3) in $1" >&2
	exit 1
}

# Start the generator on $PEER, output in $1. timeout bounds it and, when
# signalled, passes the signal to trafgen's worker processes too.
start_gen() {
	if [ "$GEN_TOOL" = trafgen ]; then
		$SUDO ip netns exec "$NS" timeout -s INT $((WARM + DUR + 30)) \
			trafgen --dev "$PEER" --conf "$work/frame.cfg" \
			--cpus $((CPU1 + 1)) --no-sock-mem --notouch-irq \
			>"$1" 2>&1 </dev/null &
		GEN=$!
		wait_log "$1" "Running" 1
	else
		$SUDO ip netns exec "$NS" timeout -s INT $((WARM + DUR + 30)) \
			dpdk-testpmd "${EAL[@]}" \
			--lcores "0@$CPU0,1@$CPU1" --main-lcore 0 \
			--file-prefix "vbench-gen-$tag" \
			--vdev "net_af_packet0,iface=$PEER,$AFP_OPTS" -- \
			--nb-ports=1 --nb-cores=1 --total-num-mbufs=16384 \
			--forward-mode=txonly --txpkts="$SIZE" --stats-period 1 \
			>"$1" 2>&1 </dev/null &
		GEN=$!
		wait_log "$1" "Tx-pps:" 2
	fi
}

# Start the DUT: interactive dpdk-testpmd with driver $1 on $HOST,
# forwarding in mode $2, output in $3, commands through fd 3.
start_dut() {
	local vdev extra=()

	case $1 in
	vsteer)
		vdev="net_vsteer0,dev=soft:$HOST"
		extra=(-d "$pmd_path")
		;;
	vsteer-xdp)
		vdev="net_vsteer0,dev=xdp:$HOST"
		extra=(-d "$pmd_path")
		;;
	af_packet) vdev="net_af_packet0,iface=$HOST,$AFP_OPTS" ;;
	af_xdp) vdev="net_af_xdp0,iface=$HOST" ;;
	esac
	# An XDP program left on the interface would fail the next XDP DUT.
	if $SUDO ip link show dev "$HOST" | grep -q ' xdp'; then
		echo "bench-wire: an XDP program is still on $HOST before $1" >&2
		exit 1
	fi
	rm -f "$work/dut.in"
	mkfifo "$work/dut.in"
	$SUDO timeout -s INT $((2 * (WARM + DUR) + 60)) stdbuf -oL \
		dpdk-testpmd "${EAL[@]}" \
		--lcores "0@$CPU1,1@$CPU0" --main-lcore 0 \
		--file-prefix "vbench-dut-$tag" "${extra[@]}" --vdev "$vdev" -- \
		-i --nb-ports=1 --nb-cores=1 --total-num-mbufs=16384 \
		--forward-mode="$2" --txpkts="$SIZE" \
		<"$work/dut.in" >"$3" 2>&1 &
	DUT=$!
	exec 3>"$work/dut.in"
	echo "start" >&3
	wait_log "$3" "packet forwarding - ports=" 1
}

stop_dut() {
	echo "stop" >&3
	echo "quit" >&3
	exec 3>&-
	wait_log "$1" "^Bye" 1
	wait "$DUT" 2>/dev/null || true
	DUT=
}

# The DUT's forwarding thread ("rte-worker-1", lcore 1): its /proc stat.
dut_worker_stat() {
	local p t

	for p in $(pgrep -f "vbench-dut-$tag"); do
		for t in /proc/"$p"/task/*; do
			[ "$(cat "$t/comm" 2>/dev/null)" = rte-worker-1 ] &&
				echo "$t/stat" && return 0
		done
	done
	echo /nonexistent
}

# CPU time (clock ticks, user + system) of the thread whose stat file is
# $1: what the scheduler gave the DUT's forwarding core.
cpu_ticks() {
	awk '{ print $14 + $15 }' "$1" 2>/dev/null || echo 0
}

# The measured window: stats at both ends; $1: log, $2/$3: namespace and
# interface of the counter read alongside. Sets CNT_PPS to that counter's
# rate, DUT_RX/DUT_TX to testpmd's Rx-pps/Tx-pps over the window, and
# DUT_CPU to the share of a CPU (percent) its forwarding thread got: on
# a shared machine, less than 100 means other work took the DUT's CPU.
window() {
	local c0 c1 t0 t1 n st k0 k1

	n=$(grep -c "Rx-pps:" "$1" || true)
	sleep "$WARM"
	st=$(dut_worker_stat)
	echo "show port stats 0" >&3
	c0=$(counter "$2" "$3" rx_packets)
	k0=$(cpu_ticks "$st")
	t0=$(now)
	wait_log "$1" "Rx-pps:" $((n + 1))
	sleep "$DUR"
	echo "show port stats 0" >&3
	c1=$(counter "$2" "$3" rx_packets)
	k1=$(cpu_ticks "$st")
	t1=$(now)
	wait_log "$1" "Rx-pps:" $((n + 2))
	CNT_PPS=$(rate "$c0" "$c1" "$t0" "$t1")
	DUT_CPU=$(awk -v a="$k0" -v b="$k1" -v s="$t0" -v e="$t1" \
		-v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.0f\n", 100 * (b - a) / hz / (e - s) }')
	DUT_RX=$(awk '$1 == "Rx-pps:" { v = $2 } END { print v }' "$1")
	DUT_TX=$(awk '$1 == "Tx-pps:" { v = $2 } END { print v }' "$1")
}

# One run of driver $1, repeat $2, one DUT process: rx under the
# generator's load, then tx. Sets RX (DUT rx pps), OFFERED, TX (pps
# arriving at the peer), TX_DUT (the DUT's own Tx-pps), and RX_CPU and
# TX_CPU (the DUT's CPU share in each window).
measure() {
	local log=$work/dut-$1-$2.log

	start_gen "$work/gen-$1-$2.log"
	start_dut "$1" rxonly "$log"
	window "$log" root "$HOST"
	RX=$DUT_RX
	OFFERED=$CNT_PPS
	RX_CPU=$DUT_CPU
	stop_pid "$GEN"
	GEN=
	echo "stop" >&3
	echo "set fwd txonly" >&3
	echo "start" >&3
	wait_log "$log" "packet forwarding - ports=" 2
	window "$log" ns "$PEER"
	TX=$CNT_PPS
	TX_DUT=$DUT_TX
	TX_CPU=$DUT_CPU
	stop_dut "$log"
}

median() {
	tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# "1.23 1.45 1.10": the load averages over 1, 5 and 15 minutes.
loadavg() {
	cut -d ' ' -f 1-3 /proc/loadavg
}

echo "bench-wire: $HOST <-> $PEER (namespace $NS), ${SIZE}-byte frames," \
	"generator $GEN_TOOL, ${DUR} s windows after ${WARM} s warm-up," \
	"median of $REPEATS"
echo "load average at the start: $(loadavg)"
declare -A rx off loss tx txn
for drv in $DRIVERS; do
	rx[$drv]=; off[$drv]=; loss[$drv]=; tx[$drv]=; txn[$drv]=
done
for i in $(seq 1 "$REPEATS"); do
	for drv in $DRIVERS; do
		measure "$drv" "$i"
		rx[$drv]+=" $RX"; off[$drv]+=" $OFFERED"; tx[$drv]+=" $TX"
		loss[$drv]+=" $(awk -v r="$RX" -v o="$OFFERED" 'BEGIN {
			l = o > 0 ? 100 * (o - r) / o : 0
			printf "%.2f", l < 0 ? 0 : l }')"
		# Tx per CPU second of the DUT's forwarding thread.
		txn[$drv]+=" $(awk -v t="$TX" -v c="$TX_CPU" 'BEGIN {
			printf "%.0f", (c > 0 ? 100 * t / c : 0) }')"
		printf '  run %d %-10s rx %8d pps (offered %8d, DUT CPU %3d%%)   tx %8d pps at the peer (DUT: %8d, DUT CPU %3d%%)\n' \
			"$i" "$drv" "$RX" "$OFFERED" "$RX_CPU" "$TX" "$TX_DUT" "$TX_CPU"
	done
done

declare -A mrx moff mloss mtx mtxn
for drv in $DRIVERS; do
	mloss[$drv]=$(echo "${loss[$drv]}" | median)
	mrx[$drv]=$(echo "${rx[$drv]}" | median)
	moff[$drv]=$(echo "${off[$drv]}" | median)
	mtx[$drv]=$(echo "${tx[$drv]}" | median)
	mtxn[$drv]=$(echo "${txn[$drv]}" | median)
done

echo
printf '%-18s %10s %14s %10s %10s %14s\n' driver "rx Mpps" "offered Mpps" \
	"rx loss" "tx Mpps" "tx Mpps/CPU"
for drv in $DRIVERS; do
	awk -v d="$drv" -v r="${mrx[$drv]}" -v o="${moff[$drv]}" \
		-v l="${mloss[$drv]}" -v t="${mtx[$drv]}" -v n="${mtxn[$drv]}" 'BEGIN {
		printf "%-18s %10.3f %14.3f %9.1f%% %10.3f %14.3f\n", d, r / 1e6, o / 1e6, l, t / 1e6, n / 1e6 }'
done
# ratio name numerator denominator
ratio() {
	awk -v n="$1" -v r1="${mrx[$2]}" -v r0="${mrx[$3]}" \
		-v t1="${mtx[$2]}" -v t0="${mtx[$3]}" \
		-v u1="${mtxn[$2]}" -v u0="${mtxn[$3]}" 'BEGIN {
		printf "%-18s %10s %14s %10s %10s %14s\n", n, \
			(r0 > 0 ? sprintf("%.2f", r1 / r0) : "n/a"), "", "", \
			(t0 > 0 ? sprintf("%.2f", t1 / t0) : "n/a"), \
			(u0 > 0 ? sprintf("%.2f", u1 / u0) : "n/a") }'
}
case $WIRES in
packet) ratio "vsteer/af_packet" vsteer af_packet ;;
xdp) ratio "vsteer-xdp/af_xdp" vsteer-xdp af_xdp ;;
both)
	ratio "vsteer/af_packet" vsteer af_packet
	ratio "vsteer-xdp/af_xdp" vsteer-xdp af_xdp
	ratio "vsteer-xdp/vsteer" vsteer-xdp vsteer
	;;
esac
echo "vsteer: dev=soft: (AF_PACKET); vsteer-xdp: dev=xdp: (AF_XDP). offered:"
echo "frames the veth delivered to $HOST while the DUT counted; with no loss"
echo "the rx figures are the generator's rate, not the DUT's limit. tx Mpps/CPU:"
echo "tx per second of CPU time the DUT's forwarding thread got (DUT CPU)."
echo "load average at the end: $(loadavg)"
