#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The port's link state interrupt and per-queue control with the real
testpmd over a veth:

- testpmd asks for link state interrupts when the port offers them (its
  default, --no-lsc-interrupt turns it off): taking the veth peer down
  and up inside its namespace makes testpmd print the port's link state
  change event, each time, and `show port info` follow;
- `port 0 rxq 1 stop` stops queue 1 of two: what RSS sends there (the
  Toeplitz prediction with testpmd's key and RETA) is dropped and counted
  in RX-missed, queue 0 gets exactly its share; `port 0 rxq 1 start`
  brings it back; `show rxq info` says which;
- `port 0 rxq 1 deferred_start on` (port stopped): `port start` leaves
  queue 1 stopped until `port 0 rxq 1 start`."""

import collections
import re

import vsteer_e2e as e2e
from toeplitz import ipv4_input, reta_queue, toeplitz_hash

QUEUES = 2
LSC = re.compile(r"Port 0: link state change event")


def wait_lsc(tp, start, count, timeout=5.0):
    """Until the transcript after start holds count LSC event lines."""
    tp.settle(0)
    waited = 0.0
    while len(LSC.findall(tp.transcript[start:])) < count and \
            waited < timeout:
        tp.settle(0.2)
        waited += 0.2
    return len(LSC.findall(tp.transcript[start:]))


def set_peer(net, state):
    net.ns_sh("ip", "link", "set", net.peer, state)


def queue_cmd(tp, line):
    out = tp.cmd(line)
    e2e.check(not re.search(r"fail|error|please", out, re.IGNORECASE),
              "%s: %s", line, out.strip())


def rxq_info(tp, q):
    out = tp.cmd("show rxq info 0 %d" % q)
    state = re.search(r"Rx queue state:\s*(\w+)", out)
    deferred = re.search(r"RX deferred start:\s*(\w+)", out)
    return (state.group(1) if state else None,
            deferred.group(1) if deferred else None)


def udp_flows(tp, net, port_mac, n, tag):
    """n UDP frames from varied addresses, and how many RSS sends to each
    queue (testpmd hashes IP addresses by default)."""
    from scapy.all import IP, UDP, Ether, Raw

    functions, key = tp.rss_conf()
    e2e.check("ipv4" in functions or "ipv4-other" in functions,
              "port hashes no IPv4: %s", functions)
    reta = tp.reta(tp.port_info()["reta_size"])
    frames, per_q = [], collections.Counter()
    for i in range(n):
        src = "192.0.2.%d" % (1 + (i * 7 + tag) % 250)
        dst = "198.51.100.%d" % (1 + (i * 13 + tag) % 250)
        per_q[reta_queue(reta, toeplitz_hash(key, ipv4_input(src, dst)))] \
            += 1
        frames.append(bytes(Ether(src=net.peer_mac, dst=port_mac) /
                            IP(src=src, dst=dst) /
                            UDP(sport=1000 + i, dport=2000) /
                            Raw(b"q" * 40)))
    e2e.check(per_q[0] > 0 and per_q[1] > 0,
              "test data too weak: %s", dict(per_q))
    return frames, per_q


def send_and_count(tp, net, frames, want_rx, want_missed):
    """Send frames; RX-packets grows by want_rx, RX-missed by
    want_missed; returns the per-queue xstats deltas."""
    before = tp.port_stats()
    xb = tp.xstats()
    net.exchange(frames, expect=None, timeout=0.2)
    stats = tp.wait_rx(before["rx_packets"] + want_rx)
    tp.settle(0.3)
    stats = tp.port_stats()
    xa = tp.xstats()
    e2e.check_eq(stats["rx_packets"] - before["rx_packets"], want_rx,
                 "RX-packets")
    e2e.check_eq(stats["rx_missed"] - before["rx_missed"], want_missed,
                 "RX-missed")
    got = [xa.get("rx_q%d_packets" % q, 0) - xb.get("rx_q%d_packets" % q, 0)
           for q in range(QUEUES)]
    e2e.log("%d frames: RX-packets +%d, RX-missed +%d, per queue %s"
            % (len(frames), stats["rx_packets"] - before["rx_packets"],
               stats["rx_missed"] - before["rx_missed"], got))
    return got


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), rxq=QUEUES, txq=QUEUES,
                        testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        e2e.check_eq(info["link"], "up", "link at start")
        port_mac = info["mac"]

        # Link state interrupts.
        start = len(tp.transcript)
        set_peer(net, "down")
        e2e.check_eq(wait_lsc(tp, start, 1), 1, "LSC events after peer down")
        e2e.check_eq(tp.port_info()["link"], "down", "link after peer down")
        set_peer(net, "up")
        e2e.check_eq(wait_lsc(tp, start, 2), 2, "LSC events after peer up")
        e2e.check_eq(tp.port_info()["link"], "up", "link after peer up")
        tp.settle(0.5)
        e2e.check_eq(len(LSC.findall(tp.transcript[start:])), 2,
                     "one event per change")
        e2e.log("peer down, up: 2 link state change events, link down, up")

        # Queue 1 stopped at run time (testpmd wants forwarding stopped
        # around the command).
        queue_cmd(tp, "port 0 rxq 1 stop")
        e2e.check_eq(rxq_info(tp, 1)[0], "stopped", "queue 1 state")
        e2e.check_eq(rxq_info(tp, 0)[0], "started", "queue 0 state")
        tp.cmd("start")
        frames, per_q = udp_flows(tp, net, port_mac, 24, 0)
        got = send_and_count(tp, net, frames, per_q[0], per_q[1])
        e2e.check_eq(got, [per_q[0], 0], "per-queue packets, queue 1 off")
        tp.cmd("stop")
        queue_cmd(tp, "port 0 rxq 1 start")
        e2e.check_eq(rxq_info(tp, 1)[0], "started", "queue 1 state")
        tp.cmd("start")
        frames, per_q = udp_flows(tp, net, port_mac, 24, 1)
        got = send_and_count(tp, net, frames, 24, 0)
        e2e.check_eq(got, [per_q[0], per_q[1]], "per-queue packets")
        tp.cmd("stop")

        # Deferred start.
        tp.cmd("port stop 0")
        queue_cmd(tp, "port 0 rxq 1 deferred_start on")
        out = tp.cmd("port start 0", timeout=30)
        e2e.check("fail" not in out.lower(), "port start: %s", out.strip())
        e2e.check_eq(rxq_info(tp, 1), ("stopped", "on"),
                     "queue 1 after port start (state, deferred)")
        e2e.check_eq(rxq_info(tp, 0), ("started", "off"), "queue 0")
        tp.cmd("start")
        frames, per_q = udp_flows(tp, net, port_mac, 24, 2)
        got = send_and_count(tp, net, frames, per_q[0], per_q[1])
        e2e.check_eq(got, [per_q[0], 0], "per-queue packets, queue 1 waits")
        tp.cmd("stop")
        queue_cmd(tp, "port 0 rxq 1 start")
        e2e.check_eq(rxq_info(tp, 1)[0], "started", "queue 1 started")
        tp.cmd("start")
        frames, per_q = udp_flows(tp, net, port_mac, 24, 3)
        got = send_and_count(tp, net, frames, 24, 0)
        e2e.check_eq(got, [per_q[0], per_q[1]], "per-queue packets")
        tp.cmd("stop")
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
