#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Rules on a multicast destination take their frames in a real testpmd,
which starts in promiscuous mode. On mlx5 such a verbs rule would land in
the kernel's multicast table, matched after every priority and after the
port's default flow of promiscuous mode: created, and never matching.
Checked here, on softverbs' mlx5 profile (which models that table), in
promiscuous mode, then in all-multicast mode alone: a rule on the group
bit of the destination MAC steers broadcast and multicast frames to its
queue, unicast ones follow default RSS; a rule on one multicast address
at a better priority, with MARK and RSS, marks every frame of it, each
on the queue the Toeplitz hash predicts within its queues; `flow query`
counts exactly those frames. The driver starts such a verbs chain with
an ETH spec that matches everything (`flow dump`). The mlx5dv matcher
cannot keep such a rule's priority (the kernel decides from the match
itself): flow_engine=dv refuses it, naming why."""

import collections
import re

import vsteer_e2e as e2e
from toeplitz import ipv4_input, reta_queue, rss_action_queue, toeplitz_hash

QUEUES = 4
MAC_PREFIX = "02:76:6d"
MARK_ID = 251
MDNS = "01:00:5e:00:00:fb"

GROUP_RULE = ("0 ingress priority 1 pattern eth dst spec 01:00:00:00:00:00 "
              "dst mask 01:00:00:00:00:00 / end actions queue index 3 / "
              "count / end")
MDNS_RULE = ("0 ingress priority 0 pattern eth dst is %s / end actions mark "
             "id %d / rss queues 0 1 end types ip end / count / end"
             % (MDNS, MARK_ID))
# Destination of each class of frames ("unicast": the port's address).
CLASSES = collections.OrderedDict([
    ("bcast", "ff:ff:ff:ff:ff:ff"),
    ("mcast", "01:00:5e:00:00:01"),
    ("v6mc", "33:33:00:00:00:01"),
    ("mdns", MDNS),
    ("unicast", None),
])
PER_CLASS = 8


def src_mac(cls, phase, i):
    return "%s:%02x:%02x:%02x" % (MAC_PREFIX, list(CLASSES).index(cls),
                                  phase, i)


def i_of(mac):
    """The frame number a source MAC carries."""
    return int(mac.split(":")[-1], 16)


def build(cls, phase, i, port_mac):
    """Frame i of a class; (bytes, source, destination)."""
    from scapy.all import IP, UDP, Ether, Raw

    dst = CLASSES[cls] or port_mac
    src, dip = "192.0.2.%d" % (1 + i * 29 % 250), "198.51.100.%d" % (1 + i)
    pkt = Ether(src=src_mac(cls, phase, i), dst=dst) / \
        IP(src=src, dst=dip) / UDP(sport=2000 + i, dport=3000) / \
        Raw(b"m" * (20 + 3 * i))
    return bytes(pkt), src, dip


def check_phase(tp, net, phase, info, rss, ids, totals):
    """Send every class, check each frame's queue and mark; rss: the
    port's hash functions, key and RETA."""
    functions, key, reta = rss
    frames, expect = [], {}
    for cls in CLASSES:
        for i in range(PER_CLASS):
            frame, src, dst = build(cls, phase, i, info["mac"])
            frames.append(frame)
            expect[src_mac(cls, phase, i)] = (cls, frame, src, dst)
    tp.cmd("set verbose 1")
    pkts = tp.rx_traffic(net, frames, len(frames))
    tp.cmd("set verbose 0")
    wrong, seen = [], collections.Counter()
    for p in pkts:
        e2e.check(p.src in expect, "unexpected frame from %s", p.src)
        cls, frame, src, dst = expect[p.src]
        seen[p.src] += 1
        h = toeplitz_hash(key, ipv4_input(src, dst))
        if cls == "mdns":
            want, mark = rss_action_queue([0, 1], h, info["reta_size"]), \
                MARK_ID
        elif cls == "unicast":
            # The port's own hash: with ports when testpmd says so.
            if "ipv4-udp" in functions:
                h = toeplitz_hash(key, ipv4_input(src, dst, 2000 + i_of(
                    p.src), 3000))
            want, mark = reta_queue(reta, h), None
        else:
            want, mark = 3, None
        if p.queue != want:
            wrong.append("%s (%s): queue %d, want %d" % (p.src, cls, p.queue,
                                                         want))
        if mark is None and p.fdir_matched:
            wrong.append("%s (%s): marked" % (p.src, cls))
        if mark is not None and p.fdir_id != mark:
            wrong.append("%s (%s): FDIR id %s, want %d" % (p.src, cls,
                                                           p.fdir_id, mark))
        if p.length != len(frame):
            wrong.append("%s: length %d, sent %d" % (p.src, p.length,
                                                      len(frame)))
    e2e.check(not wrong, "phase %d: %d frames wrong:\n  %s", phase,
              len(wrong), "\n  ".join(wrong))
    missing = [m for m in expect if seen[m] != 1]
    e2e.check(not missing, "phase %d: %d frames not received once: %s",
              phase, len(missing), missing[:8])
    for cls, frame, _, _ in expect.values():
        rule = "mdns" if cls == "mdns" else None if cls == "unicast" \
            else "group"
        if rule is not None:
            totals[rule][0] += 1
            totals[rule][1] += len(frame)
    for rule, rid in ids.items():
        q = tp.flow_count(rid)
        e2e.check_eq((q["hits"], q["bytes"]), tuple(totals[rule]),
                     "phase %d: rule %d (%s) hits, bytes" % (phase, rid,
                                                             rule))


def main(args):
    with e2e.VethNs() as net:
        with e2e.Testpmd(args.pmd, net.vdev(), rxq=QUEUES, txq=QUEUES,
                         testpmd=args.testpmd,
                         app=["--forward-mode=rxonly"]) as tp:
            info = tp.port_info()
            e2e.check_eq(info["promiscuous"], "enabled",
                         "testpmd's default mode")
            functions, key = tp.rss_conf()
            rss = (functions, key, tp.reta(info["reta_size"]))
            ids = {"group": tp.flow_create(GROUP_RULE),
                   "mdns": tp.flow_create(MDNS_RULE)}
            dump = tp.cmd("flow dump 0 rule %d" % ids["group"])
            e2e.check(re.search(r"spec\[0\] @20 ETH \(0x20\) size 40: dst "
                                r"00:00:00:00:00:00/00:00:00:00:00:00", dump)
                      and re.search(r"spec\[1\] @60 ETH \(0x20\) size 40: "
                                    r"dst 01:00:00:00:00:00/"
                                    r"01:00:00:00:00:00", dump),
                      "the group-bit rule's chain:\n%s", dump)
            totals = {"group": [0, 0], "mdns": [0, 0]}
            check_phase(tp, net, 0, info, rss, ids, totals)
            # All-multicast mode alone: its default flow is a multicast
            # rule itself, made before the application's.
            tp.cmd("set promisc 0 off")
            tp.cmd("set allmulti 0 on")
            e2e.check_eq(tp.port_info()["promiscuous"], "disabled",
                         "promiscuous off")
            check_phase(tp, net, 1, info, rss, ids, totals)
            e2e.log("promiscuous and all-multicast: the group-bit rule took "
                    "%d frames, the mDNS rule %d, all marked"
                    % (totals["group"][0], totals["mdns"][0]))
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")
        with e2e.Testpmd(args.pmd, net.vdev(extra="flow_engine=dv"),
                         rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd) as tp:
            err = tp.flow_refused("flow create " + GROUP_RULE)
            e2e.check("ETH item: dst: the mlx5dv matcher cannot keep the "
                      "priority of a multicast dst" in err.message,
                      "flow_engine=dv: %s", err.message)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
