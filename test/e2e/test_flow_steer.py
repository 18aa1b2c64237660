#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""rte_flow rules steer real traffic: testpmd's `flow create` rules with
QUEUE, RSS over a subset of the queues (a power-of-two list and one that
is not), DROP, MARK and FLAG, each with COUNT, on one flow engine
(--engine verbs or dv). scapy frames carry their class and number in the
source MAC, and testpmd's verbose dump (rxonly) says the queue and FDIR
mark of each received one. Checked per frame: the queue (for RSS, the
one the Toeplitz hash of the port's key predicts within the subset), the
mark or flag, the length; per rule: `flow query` hits and bytes equal
what was sent for it (bytes being the frame lengths as sent: no padding,
no FCS); dropped frames never arrive and count in rx_rule_drop_packets;
per-queue xstats agree with the dump; `flow dump` shows each rule's
translation (verbs spec chain or mlx5dv matcher) and the priority
mapping."""

import collections
import re

import vsteer_e2e as e2e
from toeplitz import ipv4_input, rss_action_queue, toeplitz_hash

QUEUES = 4
MAC_PREFIX = "02:76:73"
MARK_ID = 443

# One class of frames per rule, plus frames no rule takes. Each rule is
# (class, testpmd rule, what the frames of the class must show).
RULES = [
    ("tcp80", "eth / ipv4 / tcp dst is 80 / end actions queue index 1 / "
     "count / end", {"queue": 1}),
    ("dns", "eth / ipv4 dst is 10.0.0.53 / udp / end actions queue index 2 "
     "/ count / end", {"queue": 2}),
    ("rss2", "eth / ipv4 / udp dst is 4000 / end actions rss queues 2 3 end "
     "types ipv4-udp end / count / end", {"rss": [2, 3], "l4": True}),
    ("rss3", "eth / ipv4 / udp dst is 4001 / end actions rss queues 0 1 3 "
     "end / count / end", {"rss": [0, 1, 3], "l4": False}),
    ("drop", "eth / ipv4 src is 10.9.9.9 / end actions drop / count / end",
     {"drop": True}),
    ("mark", "eth / ipv4 / tcp dst is 443 / end actions mark id %d / queue "
     "index 3 / count / end" % MARK_ID, {"queue": 3, "mark": MARK_ID}),
    ("flag", "eth / ipv4 / udp dst is 5000 / end actions flag / queue index "
     "0 / count / end", {"queue": 0, "flag": True}),
]
CLASSES = [r[0] for r in RULES] + ["other"]


def src_mac(cls, i):
    return "%s:%02x:%02x:%02x" % (MAC_PREFIX, CLASSES.index(cls), i >> 8,
                                  i & 0xff)


def build(cls, i, dst_mac):
    """Frame i of a class, and its fields (for the hash prediction)."""
    from scapy.all import ICMP, IP, TCP, UDP, Ether, IPv6, Raw

    eth = Ether(src=src_mac(cls, i), dst=dst_mac)
    src = "192.0.2.%d" % (1 + (i * 37) % 250)
    dst = "198.51.100.%d" % (1 + (i * 11) % 250)
    sport = 1024 + i * 97
    pay = Raw(bytes([i & 0xff]) * (i * 13 % 300))
    fields = None
    if cls == "tcp80":
        # The first one without payload: 54 bytes, shorter than the
        # 60-byte Ethernet minimum, and counted as such.
        pkt = eth / IP(src=src, dst=dst) / TCP(sport=sport, dport=80) / \
            (pay if i else Raw(b""))
    elif cls == "dns":
        pkt = eth / IP(src=src, dst="10.0.0.53") / \
            UDP(sport=sport, dport=53) / pay
    elif cls in ("rss2", "rss3"):
        dport = 4000 if cls == "rss2" else 4001
        pkt = eth / IP(src=src, dst=dst) / UDP(sport=sport, dport=dport) / \
            pay
        fields = (src, dst, sport, dport)
    elif cls == "drop":
        ip = IP(src="10.9.9.9", dst=dst)
        kind = i % 3
        pkt = eth / ip / (UDP(sport=sport, dport=9999) if kind == 0 else
                          TCP(sport=sport, dport=22) if kind == 1 else
                          ICMP(id=i, seq=i)) / pay
    elif cls == "mark":
        pkt = eth / IP(src=src, dst=dst) / TCP(sport=sport, dport=443,
                                               flags="PA") / pay
    elif cls == "flag":
        pkt = eth / IP(src=src, dst=dst) / UDP(sport=sport, dport=5000) / pay
    else:
        kind = i % 3
        if kind == 0:
            pkt = eth / IP(src=src, dst=dst) / UDP(sport=sport,
                                                   dport=7000) / pay
        elif kind == 1:
            pkt = eth / IP(src=src, dst=dst) / TCP(sport=sport,
                                                   dport=8080) / pay
        else:
            pkt = eth / IPv6(src="2001:db8::%x" % (i + 1),
                             dst="2001:db8:1::1") / \
                UDP(sport=sport, dport=4000) / pay
    return bytes(pkt), fields


COUNTS = {"tcp80": 16, "dns": 12, "rss2": 32, "rss3": 32, "drop": 12,
          "mark": 12, "flag": 8, "other": 12}


def rss_queue(key, want, fields, table_max):
    """The queue an RSS action's table sends a flow to, and its hash
    (table_max: the device's largest table)."""
    src, dst, sport, dport = fields
    data = ipv4_input(src, dst, *((sport, dport) if want["l4"] else ()))
    h = toeplitz_hash(key, data)
    return rss_action_queue(want["rss"], h, table_max), h


def check_dump(tp, net, engine, ids):
    """`flow dump`: the engine, and per rule the translation of its
    fields and the verbs priority (3 * rte priority + sub-priority: 0 for
    rules matching L4, 1 for L3)."""
    out = tp.cmd("flow dump 0 all")
    glue = "rdma-core" if e2e.model_mode() else "softverbs"
    e2e.check(re.search(r"port 0: %s device %s, flow engine %s"
                        % (glue, re.escape(net.device()),
                           "verbs" if engine == "verbs" else "mlx5dv"), out),
              "flow dump header:\n%s", out)
    e2e.check_eq(out.count("engine %s, applied" % ("verbs" if engine ==
                                                   "verbs" else "mlx5dv")),
                 len(RULES), "rules of the %s engine in the dump" % engine)
    e2e.check("default flow (driver-owned)" in out,
              "no default flow in the dump:\n%s", out)
    if engine == "verbs":
        want = {
            "tcp80": [r"priority 0 num_of_specs 4 ",
                      r"TCP \(0x40\) size 16: src_port 0/0x0000 dst_port "
                      r"80/0xffff", r"ACTION_COUNT \(0x1003\)"],
            "dns": [r"IPV4 \(0x30\) size 24: src 0\.0\.0\.0/0\.0\.0\.0 dst "
                    r"10\.0\.0\.53/255\.255\.255\.255",
                    r"UDP \(0x41\) size 16: src_port 0/0x0000 dst_port "
                    r"0/0x0000"],
            "rss2": [r"fate rss queues 2 3 ", r"hash_fields 0xc3",
                     r"dst_port 4000/0xffff"],
            "rss3": [r"fate rss queues 0 1 3 ", r"hash_fields 0x3,",
                     r"dst_port 4001/0xffff"],
            "drop": [r"priority 1 num_of_specs 4 ",
                     r"IPV4 \(0x30\) size 24: src 10\.9\.9\.9/"
                     r"255\.255\.255\.255", r"ACTION_DROP \(0x1001\)"],
            "mark": [r"mark %d \(tag 0x0001bc\)" % MARK_ID,
                     r"ACTION_TAG \(0x1000\) size 12: tag_id 0x0001bc"],
            "flag": [r"ACTION_TAG \(0x1000\) size 12: tag_id 0xffffff "
                     r"\(FLAG\)"],
        }
    else:
        want = {
            "tcp80": [r"mlx5dv matcher entry 1 of 1, priority 0,",
                      r"outer\.tcp_dport mask 0xffff value 0x0050"],
            "dns": [r"outer\.dst_ip\(ipv4\) mask ff\.ff\.ff\.ff value "
                    r"0a\.00\.00\.35", r"outer\.ip_protocol mask 0xff value "
                    r"0x11"],
            "rss2": [r"fate rss queues 2 3 ",
                     r"outer\.udp_dport mask 0xffff value 0x0fa0"],
            "rss3": [r"fate rss queues 0 1 3 ",
                     r"outer\.udp_dport mask 0xffff value 0x0fa1"],
            "drop": [r"mlx5dv matcher entry 1 of 1, priority 1,", r"fate drop, count",
                     r"outer\.src_ip\(ipv4\) mask ff\.ff\.ff\.ff value "
                     r"0a\.09\.09\.09"],
            "mark": [r"mark %d \(tag 0x0001bc\)" % MARK_ID,
                     r"outer\.tcp_dport mask 0xffff value 0x01bb"],
            "flag": [r"flag \(tag 0xffffff\)",
                     r"outer\.udp_dport mask 0xffff value 0x1388"],
        }
    for cls, _, _ in RULES:
        one = tp.cmd("flow dump 0 rule %d" % ids[cls])
        # Headed with testpmd's own rule ID.
        e2e.check(re.match(r"\s*flow rule %d \(handle 0x" % ids[cls], one),
                  "flow dump 0 rule %d is not headed 'flow rule %d':\n%s",
                  ids[cls], ids[cls], one)
        for pattern in want[cls]:
            e2e.check(re.search(pattern, one),
                      "flow dump of rule %d (%s) lacks /%s/:\n%s",
                      ids[cls], cls, pattern, one)


def main(args):
    engine = args.engine
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(extra="flow_engine=" + engine),
                        rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        e2e.check_eq(info["rx_queues"], QUEUES, "Rx queues")
        _, key = tp.rss_conf()
        e2e.check(key, "no RSS key shown")
        ids = {}
        for cls, rule, _ in RULES:
            ids[cls] = tp.flow_create("0 ingress pattern " + rule)
        e2e.check_eq([r["id"] for r in tp.flow_list()], sorted(ids.values()),
                      "flow list")

        frames, expect = [], {}
        for cls in CLASSES:
            for i in range(COUNTS[cls]):
                frame, fields = build(cls, i, info["mac"])
                frames.append(frame)
                expect[src_mac(cls, i)] = (cls, frame, fields)
        delivered = sum(n for c, n in COUNTS.items() if c != "drop")
        tp.cmd("set verbose 1")
        pkts = tp.rx_traffic(net, frames, delivered)
        tp.cmd("set verbose 0")

        # Per frame: once, on its queue, with its mark, at its length.
        seen = {}
        wrong = []
        spread = collections.defaultdict(collections.Counter)
        per_queue = collections.Counter()
        wants = {cls: want for cls, _, want in RULES}
        for p in pkts:
            e2e.check(p.src in expect, "unexpected frame from %s", p.src)
            e2e.check(p.src not in seen, "frame %s received twice", p.src)
            seen[p.src] = p
            per_queue[p.queue] += 1
            cls, frame, fields = expect[p.src]
            want = wants.get(cls, {})
            if want.get("drop"):
                wrong.append("%s (%s): received on queue %d, must be dropped"
                             % (p.src, cls, p.queue))
                continue
            if p.length != len(frame):
                wrong.append("%s (%s): length %d, sent %d"
                             % (p.src, cls, p.length, len(frame)))
            if "queue" in want and p.queue != want["queue"]:
                wrong.append("%s (%s): queue %d, rule says %d"
                             % (p.src, cls, p.queue, want["queue"]))
            if "rss" in want:
                q, h = rss_queue(key, want, fields,
                                 e2e.rss_table_max(info))
                spread[cls][p.queue] += 1
                if p.queue != q:
                    wrong.append("%s (%s): queue %d, Toeplitz hash 0x%08x "
                                 "predicts %d of %s" % (p.src, cls, p.queue,
                                                        h, q, want["rss"]))
            if "mark" in want:
                if p.fdir_id != want["mark"] or \
                        "RTE_MBUF_F_RX_FDIR_ID" not in p.ol_flags:
                    wrong.append("%s (%s): FDIR id %s flags '%s', want mark "
                                 "%d" % (p.src, cls, p.fdir_id, p.ol_flags,
                                         want["mark"]))
            elif want.get("flag"):
                if not p.fdir_matched or p.fdir_id is not None or \
                        "RTE_MBUF_F_RX_FDIR_ID" in p.ol_flags or \
                        "RTE_MBUF_F_RX_FDIR" not in p.ol_flags:
                    wrong.append("%s (%s): flags '%s', want FDIR without ID"
                                 % (p.src, cls, p.ol_flags))
            elif p.fdir_matched:
                wrong.append("%s (%s): FDIR matched, no rule marks it"
                             % (p.src, cls))
        e2e.check(not wrong, "%d frames wrong:\n  %s", len(wrong),
                  "\n  ".join(wrong))
        e2e.check_eq(len(seen), delivered, "frames received")
        for cls in ("rss2", "rss3"):
            e2e.check(len(spread[cls]) >= 2,
                      "test data too weak: %s on one queue only %s", cls,
                      dict(spread[cls]))
            e2e.log("%s: %s" % (cls, dict(sorted(spread[cls].items()))))

        # Per rule: the counter is exactly what was sent for it.
        for cls, _, _ in RULES:
            sent = [f for _, (c, f, _) in expect.items() if c == cls]
            q = tp.flow_count(ids[cls])
            e2e.check_eq((q["hits_set"], q["bytes_set"]), (1, 1),
                         "rule %d (%s) hits_set/bytes_set" % (ids[cls], cls))
            e2e.check_eq((q["hits"], q["bytes"]),
                         (len(sent), sum(len(f) for f in sent)),
                         "rule %d (%s) hits, bytes" % (ids[cls], cls))

        xs = tp.xstats()
        e2e.check_eq(xs.get("rx_rule_drop_packets"),
                     e2e.soft_xstat(COUNTS["drop"]),
                     "xstat rx_rule_drop_packets")
        e2e.check_eq(xs.get("rx_unsteered_packets"), 0,
                     "xstat rx_unsteered_packets")
        # Dropped by rule is not missed for want of a buffer.
        e2e.check_eq((xs.get("rx_missed_errors"),
                      xs.get("rx_no_buffer_packets")), (0, 0),
                     "xstats rx_missed_errors, rx_no_buffer_packets")
        e2e.check_eq(xs.get("rx_wire_packets"), e2e.soft_xstat(len(frames)),
                     "xstat rx_wire_packets")
        e2e.check_eq(xs.get("rx_good_packets"), delivered,
                     "xstat rx_good_packets")
        for q in range(QUEUES):
            e2e.check_eq(xs.get("rx_q%d_packets" % q), per_queue[q],
                         "xstat rx_q%d_packets" % q)
        e2e.log("%s engine: %d frames sent, %d delivered on queues %s, %d "
                "dropped by rule" % (engine, len(frames), delivered,
                                     dict(sorted(per_queue.items())),
                                     COUNTS["drop"]))

        check_dump(tp, net, engine, ids)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["verbs", "dv"], default="verbs",
                    help="flow_engine devarg of the port")


if __name__ == "__main__":
    e2e.run(main, options=options)
