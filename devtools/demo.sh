#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# vsteer demo: Debian's dpdk-testpmd drives net_vsteer on the softverbs
# device over one end of a veth pair; the other end sits in a network
# namespace, where python3-scapy sends a traffic mix and counts what
# testpmd sends back. Sets itself up (packages, build), needs root or sudo
# for the namespace and the veth pair, and removes everything it made when
# it ends. Nothing leaves the veth pair.
#
# usage: devtools/demo.sh
set -eu

# --- the scenario -----------------------------------------------------------
# Flow rules created before the traffic (testpmd syntax, port 0).
FLOW_RULES=(
	# "flow create 0 ingress pattern eth / ipv4 dst is 198.51.100.1 / udp dst is 53 / end actions queue index 1 / count / end"
	# "flow create 0 ingress pattern eth / ipv4 / tcp dst is 443 / end actions rss queues 2 3 end / count / end"
	# "flow create 0 ingress pattern eth / ipv4 src is 203.0.113.7 / end actions drop / count / end"
	# "flow create 0 ingress pattern eth / ipv4 / udp dst is 4789 / end actions mark id 42 / rss / end"
)
# testpmd commands after the traffic, besides port statistics.
AFTER_TRAFFIC=(
	# "flow query 0 0 count"
	# "flow dump 0 all"
)
FWD_MODE=io       # io: echo every packet back to the peer; rxonly: count only
QUEUES=4          # Rx and Tx queues
PACKETS=70        # frames in the scapy mix
# ----------------------------------------------------------------------------

cd "$(dirname "$0")/.."
PMD=build/drivers/net/vsteer/librte_net_vsteer.so
PY=/usr/bin/python3

say() {
	printf '\n=== %s\n' "$*"
}

say "setting up and building"
devtools/setup.sh
[ -f build/build.ninja ] || meson setup build -Ddpdk_sdk_dir=build-sdk
ninja -C build

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "demo: needs root (network namespace, veth pair) or sudo" >&2
		exit 1
	}
	SUDO=sudo
fi

tag=$(printf '%04x' $(($$ % 65536)))
NS=vsteer-demo-$tag
HOST=vdh$tag         # root namespace end: the PMD's wire
PEER=vdp$tag         # namespace end: scapy's
PREFIX=vsteer-demo-$tag
work=$(mktemp -d)
LOG=$work/testpmd.log
FIFO=$work/testpmd.in
tp_pid=
pmd_dir=

cleanup() {
	exec 3>&- 2>/dev/null || true
	if [ -n "$tp_pid" ] && kill -0 "$tp_pid" 2>/dev/null; then
		$SUDO kill "$tp_pid" 2>/dev/null || true
		sleep 1
		$SUDO kill -9 "$tp_pid" 2>/dev/null || true
	fi
	$SUDO ip netns del "$NS" 2>/dev/null || true
	$SUDO ip link del "$HOST" 2>/dev/null || true
	$SUDO rm -rf "/var/run/dpdk/$PREFIX"
	[ -z "$pmd_dir" ] || $SUDO rm -rf "$pmd_dir"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "network: $HOST (root namespace) <-> $PEER (namespace $NS)"
$SUDO ip netns add "$NS"
$SUDO ip link add "$HOST" type veth peer name "$PEER" netns "$NS"
# No IPv6 and no addresses: the kernel stays silent on the pair.
if [ -d /proc/sys/net/ipv6 ]; then
	$SUDO sh -c "echo 1 > /proc/sys/net/ipv6/conf/$HOST/disable_ipv6"
	$SUDO ip netns exec "$NS" \
		sh -c "echo 1 > /proc/sys/net/ipv6/conf/$PEER/disable_ipv6"
fi
$SUDO ip link set "$HOST" up
$SUDO ip -n "$NS" link set "$PEER" up

# Two lcores (main, forwarding) on the CPUs this shell may use.
read -r CPU0 CPU1 < <($PY -c \
	'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[-1])')

# EAL refuses a plugin below a world-writable directory (a checkout in
# /tmp, say): then load a copy from a private directory.
pmd_path=$(realpath "$PMD")
d=$(dirname "$pmd_path")
while :; do
	if [ -n "$(find "$d" -maxdepth 0 -perm -0002)" ]; then
		pmd_dir=$($SUDO mktemp -d /run/vsteer-demo.XXXXXX)
		$SUDO cp "$pmd_path" "$pmd_dir/"
		pmd_path=$pmd_dir/$(basename "$PMD")
		echo "demo: $d is world-writable, loading the driver from $pmd_dir"
		break
	fi
	[ "$d" != / ] || break
	d=$(dirname "$d")
done

say "starting dpdk-testpmd with net_vsteer0,dev=soft:$HOST"
mkfifo "$FIFO"
$SUDO stdbuf -oL dpdk-testpmd --no-huge -m 1024 --no-pci --lcores "0@$CPU0,1@$CPU1" \
	--file-prefix "$PREFIX" -d "$pmd_path" \
	--vdev "net_vsteer0,dev=soft:$HOST" -- \
	-i --nb-ports=1 --rxq=$QUEUES --txq=$QUEUES --total-num-mbufs=8192 \
	--forward-mode=$FWD_MODE <"$FIFO" >"$LOG" 2>&1 &
tp_pid=$!
exec 3>"$FIFO"

send() {
	printf '%s\n' "$1" >&3
}

# Wait until the log holds a line matching $1, at most $2 seconds.
wait_for() {
	local _
	for _ in $(seq 1 $(($2 * 10))); do
		grep -q -e "$1" "$LOG" && return 0
		if ! kill -0 "$tp_pid" 2>/dev/null; then
			cat "$LOG"
			echo "demo: dpdk-testpmd exited early" >&2
			exit 1
		fi
		sleep 0.1
	done
	cat "$LOG"
	echo "demo: no '$1' from dpdk-testpmd within $2 s" >&2
	exit 1
}

send "show port info 0"
wait_for "^Driver name:" 60
MAC=$(sed -n 's/^MAC address: *//p' "$LOG" | head -n 1)
grep -e "^Driver name:" -e "^MAC address:" -e "^Current number of RX" "$LOG"

for rule in "${FLOW_RULES[@]}"; do
	send "$rule"
done
send "start"
wait_for "packet forwarding - ports=" 10
[ ${#FLOW_RULES[@]} -eq 0 ] || grep -e "^Flow rule" -e "Caught" "$LOG" || true

say "sending $PACKETS frames from $PEER to $MAC with scapy"
$SUDO ip netns exec "$NS" $PY test/e2e/peer.py --mix demo --ifname "$PEER" \
	--dst-mac "$MAC" --count "$PACKETS" --timeout 5

mark=$(wc -l <"$LOG")
send "stop"
send "show port stats 0"
send "show port xstats 0"
for c in "${AFTER_TRAFFIC[@]}"; do
	send "$c"
done
send "quit"
exec 3>&-
for _ in $(seq 1 300); do
	kill -0 "$tp_pid" 2>/dev/null || break
	sleep 0.1
done
rc=0
wait "$tp_pid" || rc=$?
tp_pid=

say "dpdk-testpmd after the traffic (zero extended statistics left out)"
tail -n +$((mark + 1)) "$LOG" | grep -v -E '^[A-Za-z0-9_]+: 0$' |
	sed -e 's/^testpmd> //' | grep -v -e '^$' -e '^Bye' || true
if [ "$rc" -ne 0 ]; then
	echo "demo: dpdk-testpmd exited with status $rc" >&2
	exit 1
fi
say "done"
