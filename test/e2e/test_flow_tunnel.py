#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""rte_flow items beyond plain IPv4 on real traffic: VLAN, IPv6, VXLAN
(VNI and inner headers), GRE with GRE_KEY, MPLS over UDP, ESP (SPI, with
a MARK), and RSS on the inner headers of VXLAN (level 2). Each rule has a
twin frame that differs in the one matched field (VLAN id, address, VNI,
key, label, SPI) and must not be taken by it: the rule's count holds
exactly its own frames. Inner RSS puts each frame on the queue the
Toeplitz hash of its inner addresses and ports predicts. --engine picks
the flow_engine devarg. The ESP rule: mlx5 kernels refuse the verbs ESP
spec (the driver's probe finds it), so flow_engine=verbs refuses it, while
auto and dv take it on the matcher (misc.outer_esp_spi). MPLS over UDP
needs the firmware's MPLS parser: the device is softverbs' model of
firmware with FLEX_PARSER_PROFILE_ENABLE=1 (sv_flex_parser=1), or in the
model mode a modelled ConnectX-5 with that firmware setting
(devtools/mlx5-model --flex-parser 1)."""

import collections
import logging

import vsteer_e2e as e2e
from toeplitz import ipv4_input, rss_action_queue, toeplitz_hash

QUEUES = 4
MAC_PREFIX = "02:76:75"
ESP_MARK = 7

# class -> (rule, queue its frames reach, or "rss")
RULES = collections.OrderedDict([
    ("vlan", ("eth / vlan vid is 100 / ipv4 / end actions queue index 2 / "
              "count / end", 2)),
    ("ipv6", ("eth / ipv6 src is 2001:db8::1 / udp / end actions queue "
              "index 1 / count / end", 1)),
    ("vxlan", ("eth / ipv4 / udp / vxlan vni is 100 / eth / ipv4 dst is "
               "10.1.0.1 / end actions queue index 1 / count / end", 1)),
    ("gre", ("eth / ipv4 / gre / gre_key value is 0x1234 / ipv4 / end "
             "actions queue index 2 / count / end", 2)),
    ("mpls", ("eth / ipv4 / udp / mpls label is 77 / end actions queue "
              "index 3 / count / end", 3)),
    ("esp", ("eth / ipv4 / esp spi is 0x1001 / end actions mark id %d / "
             "queue index 3 / count / end" % ESP_MARK, 3)),
    ("inner", ("eth / ipv4 / udp / vxlan vni is 200 / eth / ipv4 / udp / "
               "end actions rss level 2 types ipv4-udp end queues 0 1 2 3 "
               "end / count / end", "rss")),
])
PER_CLASS = 12     # frames a rule takes
TWINS = 4          # frames of each class it must not take
INNER_RSS_QUEUES = [0, 1, 2, 3]   # the queues of the "inner" rule


def src_mac(cls, twin, i):
    """The source MAC that names frame i of a class (or of its twins)."""
    return "%s:%02x:%02x:%02x" % (MAC_PREFIX, list(RULES).index(cls),
                                  int(twin), i)


def build(cls, i, twin, dst_mac):
    """Frame i of a class (twin: the near miss); (bytes, inner fields)."""
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import GRE, IP, UDP, Dot1Q, Ether, IPv6, Raw
    from scapy.contrib.mpls import MPLS
    from scapy.layers.ipsec import ESP
    from scapy.layers.vxlan import VXLAN

    eth = Ether(src=src_mac(cls, twin, i), dst=dst_mac)
    outer = IP(src="192.0.2.%d" % (1 + i), dst="198.51.100.1")
    pay = Raw(b"t" * (16 + 5 * i))
    inner_eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    fields = None
    if cls == "vlan":
        pkt = eth / Dot1Q(vlan=101 if twin else 100) / outer / \
            UDP(sport=1000 + i, dport=7) / pay
    elif cls == "ipv6":
        pkt = eth / IPv6(src="2001:db8::2" if twin else "2001:db8::1",
                         dst="2001:db8:1::1") / \
            UDP(sport=1000 + i, dport=7) / pay
    elif cls == "vxlan":
        pkt = eth / outer / UDP(sport=50000 + i, dport=4789) / \
            VXLAN(flags=0x08, vni=101 if twin else 100) / inner_eth / \
            IP(src="10.2.0.%d" % (1 + i), dst="10.1.0.1") / \
            UDP(sport=1000 + i, dport=7) / pay
    elif cls == "gre":
        pkt = eth / outer / GRE(key_present=1, key=0x1235 if twin else
                                0x1234, proto=0x0800) / \
            IP(src="10.2.0.%d" % (1 + i), dst="10.1.0.1") / \
            UDP(sport=1000 + i, dport=7) / pay
    elif cls == "mpls":
        pkt = eth / outer / UDP(sport=50000 + i, dport=6635) / \
            MPLS(label=78 if twin else 77, s=1, ttl=64) / \
            IP(src="10.2.0.%d" % (1 + i), dst="10.1.0.1") / pay
    elif cls == "esp":
        pkt = eth / outer / ESP(spi=0x1002 if twin else 0x1001, seq=1 + i) / \
            pay
    else:
        src, dst = "10.3.%d.%d" % (i, 1 + i * 7), "10.4.0.%d" % (1 + i)
        sport, dport = 2000 + i * 31, 3000 + i * 17
        pkt = eth / outer / UDP(sport=50000 + i, dport=4789) / \
            VXLAN(flags=0x08, vni=201 if twin else 200) / inner_eth / \
            IP(src=src, dst=dst) / UDP(sport=sport, dport=dport) / pay
        fields = (src, dst, sport, dport)
    return bytes(pkt), fields


def main(args):
    if e2e.model_mode():
        e2e.model_options("--flex-parser", "1")
        extra = []
    else:
        extra = ["sv_flex_parser=1"]
    if args.engine != "auto":
        extra.append("flow_engine=" + args.engine)
    extra = ",".join(extra)
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(extra=extra), rxq=QUEUES,
                        txq=QUEUES, testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        _, key = tp.rss_conf()
        ids = {}
        for cls, (rule, _) in RULES.items():
            command = "flow create 0 ingress pattern " + rule
            if cls == "esp" and args.engine == "verbs":
                err = tp.flow_refused(command)
                e2e.check("verbs" in err.message,
                          "ESP on the verbs engine: %s", err)
                continue
            ids[cls] = tp.flow_create("0 ingress pattern " + rule)

        frames, expect = [], {}
        for cls in ids:
            for twin, n in ((False, PER_CLASS), (True, TWINS)):
                for i in range(n):
                    frame, fields = build(cls, i, twin, info["mac"])
                    frames.append(frame)
                    expect[src_mac(cls, twin, i)] = (cls, twin, frame,
                                                     fields)
        tp.cmd("set verbose 1")
        pkts = tp.rx_traffic(net, frames, len(frames))
        tp.cmd("set verbose 0")

        wrong, seen = [], collections.Counter()
        spread = collections.Counter()
        for p in pkts:
            e2e.check(p.src in expect, "unexpected frame from %s", p.src)
            cls, twin, frame, fields = expect[p.src]
            seen[p.src] += 1
            if p.length != len(frame):
                wrong.append("%s: length %d, sent %d" % (p.src, p.length,
                                                          len(frame)))
            if twin:
                if p.fdir_matched:
                    wrong.append("%s (%s twin): marked" % (p.src, cls))
                continue
            want = RULES[cls][1]
            if want == "rss":
                h = toeplitz_hash(key, ipv4_input(*fields))
                want = rss_action_queue(INNER_RSS_QUEUES, h,
                                        e2e.rss_table_max(info))
                spread[p.queue] += 1
            if p.queue != want:
                wrong.append("%s (%s): queue %d, want %d" % (p.src, cls,
                                                             p.queue, want))
            if cls == "esp" and p.fdir_id != ESP_MARK:
                wrong.append("%s (esp): FDIR id %s, want %d"
                             % (p.src, p.fdir_id, ESP_MARK))
            elif cls != "esp" and p.fdir_matched:
                wrong.append("%s (%s): marked" % (p.src, cls))
        e2e.check(not wrong, "%d frames wrong:\n  %s", len(wrong),
                  "\n  ".join(wrong))
        missing = [m for m in expect if seen[m] != 1]
        e2e.check(not missing, "%d frames not received once: %s",
                  len(missing), missing[:8])
        e2e.check(len(spread) >= 2, "inner RSS data too weak: %s",
                  dict(spread))
        for cls, rid in ids.items():
            mine = [f for c, t, f, _ in expect.values() if c == cls and
                    not t]
            q = tp.flow_count(rid)
            e2e.check_eq((q["hits"], q["bytes"]),
                         (len(mine), sum(len(f) for f in mine)),
                         "rule %d (%s) hits, bytes" % (rid, cls))
        e2e.log("%s engine: %d frames; rules %s took their own only; inner "
                "RSS on queues %s" % (args.engine, len(frames),
                                      ", ".join(ids), dict(spread)))
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["auto", "verbs", "dv"],
                    default="auto", help="flow_engine devarg of the port")


if __name__ == "__main__":
    e2e.run(main, options=options)
