#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""softverbs on the AF_XDP wire (dev=xdp:<veth>) under the real testpmd:
the XDP program is on the interface (native mode) while the port lives
and gone after testpmd quits; io forwarding over 4 queues echoes exactly
what the peer sent, byte for byte (VLAN-tagged frames included); one
flow rule steers its frames to a queue, counted by `flow query`, while
the other frames spread over the queues by the default RSS. A wire that
cannot open fails the probe with one line naming the cause."""

import collections
import re

import test_io_fwd
import vsteer_e2e as e2e

QUEUES = 4
RULE_QUEUE = 3
RULE = ("0 ingress pattern eth / ipv4 / udp dst is 5555 / end "
        "actions queue index %d / count / end" % RULE_QUEUE)


def xdp_mode(ifname):
    """'xdp' (native), 'xdpgeneric' or None, as ip(8) shows it."""
    out = e2e.sh("ip", "link", "show", "dev", ifname).stdout
    m = re.search(r" mtu \d+ (xdp|xdpgeneric) ", out)
    return m.group(1) if m else None


HIT_MAC = "02:76:73:01:00:%02x"
MISS_MAC = "02:76:73:02:00:%02x"


def steer_frames(dst):
    """Frames for the rule (UDP to 5555) and frames for no rule, told
    apart by their source MAC address."""
    from scapy.all import IP, TCP, UDP, Ether, Raw

    hit = [bytes(Ether(src=HIT_MAC % i, dst=dst) /
                 IP(src="192.0.2.%d" % (1 + i), dst="198.51.100.1") /
                 UDP(sport=2000 + i, dport=5555) / Raw(b"h" * (10 + 7 * i)))
           for i in range(20)]
    miss = [bytes(Ether(src=MISS_MAC % i, dst=dst) /
                  IP(src="192.0.2.%d" % (1 + i), dst="198.51.100.2") /
                  (UDP(sport=3000 + i, dport=5556) if i % 2 else
                   TCP(sport=3000 + i, dport=80)) / Raw(b"m" * (20 + i)))
            for i in range(24)]
    return hit, miss


def check_refused(args, dev, why):
    """testpmd with dev= exits 1, and one PMD line says why."""
    prefix = e2e.unique_prefix("xdp-bad")
    argv = [args.testpmd, "--no-huge", "-m", "256", "--no-pci",
            "--lcores", e2e.lcores_arg(), "--file-prefix", prefix,
            "-d", e2e.loadable_pmd(args.pmd), "--vdev",
            "net_vsteer0,dev=" + dev, "--", "-i", "--nb-ports=1",
            "--total-num-mbufs=2048"]
    rc, out = e2e.run_testpmd_once(argv, timeout=60)
    e2e.remove_runtime_dir(prefix)
    e2e.check_eq(rc, 1, "exit status with dev=%s" % dev)
    lines = [line for line in out.splitlines()
             if "dev=%s: " % dev in line and "vsteer" in line]
    e2e.check(len(lines) == 1 and why in lines[0],
              "want one line with %r, got:\n%s", why, out)
    e2e.log(lines[0].strip())


def main(args):
    with e2e.VethNs() as net:
        e2e.check(xdp_mode(net.host) is None, "an XDP program before start")
        vdev = "net_vsteer0,dev=xdp:%s" % net.host
        with e2e.Testpmd(args.pmd, vdev, rxq=QUEUES, txq=QUEUES,
                         testpmd=args.testpmd,
                         app=["--forward-mode=io"]) as tp:
            info = tp.port_info()
            e2e.check_eq(info["driver"], "net_vsteer", "driver name")
            e2e.check_eq(info["mac"].lower(), net.host_mac.lower(),
                         "the interface's MAC address")
            e2e.check_eq(xdp_mode(net.host), "xdp",
                         "native XDP program on the veth")

            # io forwarding: every frame comes back as it was sent.
            frames = test_io_fwd.frames_for(net.peer_mac, info["mac"])
            want_bytes = sum(len(f) for f in frames)
            tp.cmd("start")
            echoes = net.exchange(frames, expect=len(frames), timeout=10.0)
            tp.wait_rx(len(frames))
            tp.cmd("stop")
            stats = tp.port_stats()
            e2e.log("port stats %s" % stats)
            e2e.check_eq(stats["rx_packets"], len(frames), "RX-packets")
            e2e.check_eq(stats["rx_bytes"], want_bytes, "RX-bytes")
            e2e.check_eq(stats["tx_packets"], len(frames), "TX-packets")
            e2e.check_eq(stats["tx_bytes"], want_bytes, "TX-bytes")
            sent = collections.Counter(frames)
            back = collections.Counter(echoes)
            e2e.check(sent == back,
                      "echoes differ: %d sent frames missing, %d unexpected"
                      " (of %d sent, %d received)",
                      sum((sent - back).values()),
                      sum((back - sent).values()), len(frames), len(echoes))
            xstats = tp.xstats()
            e2e.check_eq(xstats.get("rx_wire_packets"), len(frames),
                         "xstat rx_wire_packets")
            e2e.check_eq(xstats.get("tx_wire_packets"), len(frames),
                         "xstat tx_wire_packets")
            e2e.check_eq(xstats.get("tx_wire_errors"), 0,
                         "xstat tx_wire_errors")

            # One rule steers its frames to a queue; the rest spread.
            rule_id = tp.flow_create(RULE)
            tp.cmd("set fwd rxonly")
            tp.cmd("set verbose 1")
            hit, miss = steer_frames(info["mac"])
            got = tp.rx_traffic(net, hit + miss, len(hit) + len(miss))
            e2e.check_eq(len(got), len(hit) + len(miss), "packets received")
            hits = [p for p in got if p.src.lower()[:11] == HIT_MAC[:11]]
            misses = [p for p in got if p.src.lower()[:11] == MISS_MAC[:11]]
            e2e.check_eq(sorted(p.length for p in hits),
                         sorted(len(f) for f in hit), "the rule's frames")
            e2e.check_eq(collections.Counter(p.queue for p in hits),
                         collections.Counter({RULE_QUEUE: len(hit)}),
                         "the rule's frames all on queue %d" % RULE_QUEUE)
            e2e.check_eq(len(misses), len(miss), "the other frames")
            spread = collections.Counter(p.queue for p in misses)
            e2e.check(len(spread) > 1,
                      "the other frames spread over the queues: %s" % spread)
            count = tp.flow_count(rule_id)
            e2e.check_eq(count["hits"], len(hit), "flow query hits")
            e2e.check_eq(count["bytes"], sum(len(f) for f in hit),
                         "flow query bytes")
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")
        e2e.check(xdp_mode(net.host) is None,
                  "the XDP program left with testpmd")

        check_refused(args, "xdp:lo", "not an Ethernet interface")
        e2e.sh("ip", "link", "set", net.host, "mtu", "4000")
        check_refused(args, "xdp:" + net.host, "MTU too large for XDP")
        e2e.check(xdp_mode(net.host) is None, "nothing left on the veth")


if __name__ == "__main__":
    e2e.run(main)
