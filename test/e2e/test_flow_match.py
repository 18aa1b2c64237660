#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Header fields beyond addresses and ports on real traffic, in a real
testpmd with scapy frames: IPv4 TOS and IPv6 traffic class (verbs and the
matcher both match them), IPv4 TTL and IPv6 hop limit (only the matcher
does), and Open vSwitch's partial-offload rule (ETH with has_vlan 0, IPv4
"not a fragment", MARK + RSS over every queue with types ip tcp udp).
Each rule marks its frames with its own id and counts them; each class
has twin frames differing in the one matched field (or a fragment, or a
VLAN tag, for the OVS rule) that the rule must not take. Frames of the
OVS rule land on the queue the Toeplitz hash with the port key predicts.
--engine auto: TOS and traffic class rules go to verbs, the others to
matchers (flow dump says which); dv: every rule on a matcher."""

import collections
import logging
import re

import vsteer_e2e as e2e
from toeplitz import ipv4_input, rss_action_queue, toeplitz_hash

QUEUES = 4
MAC_PREFIX = "02:76:77"

# class -> (priority, pattern, MARK id, queue or "rss", auto engine)
RULES = collections.OrderedDict([
    ("tos", (0, "eth / ipv4 tos is 0x28", 1, 1, "verbs")),
    ("tc", (0, "eth / ipv6 tc is 0x5c", 2, 2, "verbs")),
    ("ttl", (0, "eth / ipv4 ttl is 2", 3, 3, "mlx5dv")),
    ("hop", (0, "eth / ipv6 hop is 60", 4, 0, "mlx5dv")),
    # OVS 3.1 (lib/netdev-offload-dpdk.c) sends both MACs with full masks;
    # here the source MAC prefix names the class.
    ("ovs", (1, "eth src spec %s:04:00:00 src mask ff:ff:ff:ff:00:00 "
             "type is 0x0800 has_vlan is 0 / ipv4 fragment_offset spec 0 "
             "fragment_offset mask 0x3fff" % MAC_PREFIX, 5, "rss",
             "mlx5dv")),
])
OVS_RSS = "rss types ip tcp udp end queues 0 1 2 3 end"
OVS_QUEUES = [0, 1, 2, 3]
PER_CLASS = 10
TWINS = 4


def src_mac(cls, twin, i):
    return "%s:%02x:%02x:%02x" % (MAC_PREFIX, list(RULES).index(cls),
                                  int(twin), i)


def build(cls, i, twin, dst_mac):
    """Frame i of a class (twin: the near miss); (bytes, hash fields)."""
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import IP, UDP, Dot1Q, Ether, IPv6, Raw

    eth = Ether(src=src_mac(cls, twin, i), dst=dst_mac)
    pay = Raw(b"m" * (20 + 3 * i))
    src, dst = "192.0.2.%d" % (1 + i), "198.51.100.%d" % (10 + 7 * i)
    sport, dport = 1000 + 17 * i, 2000 + 5 * i
    l4 = UDP(sport=sport, dport=dport)
    if cls == "tos":
        # The twin differs in the ECN bits alone.
        pkt = eth / IP(src=src, dst=dst, tos=0x29 if twin else 0x28) / \
            l4 / pay
    elif cls == "tc":
        pkt = eth / IPv6(src="2001:db8::%x" % (1 + i), dst="2001:db8:1::1",
                         tc=0x5d if twin else 0x5c) / l4 / pay
    elif cls == "ttl":
        pkt = eth / IP(src=src, dst=dst, ttl=3 if twin else 2) / l4 / pay
    elif cls == "hop":
        pkt = eth / IPv6(src="2001:db8::%x" % (1 + i), dst="2001:db8:1::1",
                         hlim=61 if twin else 60) / l4 / pay
    elif not twin:
        pkt = eth / IP(src=src, dst=dst) / l4 / pay
    elif i % 2:
        # A first fragment (MF) is no "not a fragment".
        pkt = eth / IP(src=src, dst=dst, flags="MF") / l4 / pay
    else:
        pkt = eth / Dot1Q(vlan=10) / IP(src=src, dst=dst) / l4 / pay
    return bytes(pkt), (src, dst, sport, dport)


def main(args):
    extra = "" if args.engine == "auto" else "flow_engine=" + args.engine
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(extra=extra), rxq=QUEUES,
                        txq=QUEUES, testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        _, key = tp.rss_conf()
        ids = {}
        for cls, (prio, pattern, mark, queue, engine) in RULES.items():
            fate = OVS_RSS if queue == "rss" else "queue index %d" % queue
            rule = "0 ingress priority %d pattern %s / end actions mark id " \
                "%d / %s / count / end" % (prio, pattern, mark, fate)
            out = tp.cmd("flow validate " + rule)
            e2e.check("Flow rule validated" in out, "validate %s: %s", rule,
                      out)
            ids[cls] = tp.flow_create(rule)
            dump = tp.cmd("flow dump 0 rule %d" % ids[cls])
            want = engine if args.engine == "auto" else "mlx5dv"
            e2e.check(re.search(r"engine %s, applied" % want, dump),
                      "%s rule not on %s:\n%s", cls, want, dump)

        frames, expect = [], {}
        for cls in RULES:
            for twin, n in ((False, PER_CLASS), (True, TWINS)):
                for i in range(n):
                    frame, fields = build(cls, i, twin, info["mac"])
                    frames.append(frame)
                    expect[src_mac(cls, twin, i)] = (cls, twin, frame,
                                                     fields)
        tp.cmd("set verbose 1")
        pkts = tp.rx_traffic(net, frames, len(frames))
        tp.cmd("set verbose 0")

        wrong, seen, spread = [], collections.Counter(), \
            collections.Counter()
        for p in pkts:
            e2e.check(p.src in expect, "unexpected frame from %s", p.src)
            cls, twin, frame, fields = expect[p.src]
            seen[p.src] += 1
            _, _, mark, queue, _ = RULES[cls]
            if twin:
                if p.fdir_matched:
                    wrong.append("%s (%s twin): marked %s" % (p.src, cls,
                                                              p.fdir_id))
                continue
            if queue == "rss":
                h = toeplitz_hash(key, ipv4_input(*fields))
                queue = rss_action_queue(OVS_QUEUES, h,
                                         e2e.rss_table_max(info))
                spread[p.queue] += 1
            if p.queue != queue:
                wrong.append("%s (%s): queue %d, want %d" % (p.src, cls,
                                                             p.queue, queue))
            if p.fdir_id != mark:
                wrong.append("%s (%s): FDIR id %s, want %d"
                             % (p.src, cls, p.fdir_id, mark))
        e2e.check(not wrong, "%d frames wrong:\n  %s", len(wrong),
                  "\n  ".join(wrong))
        missing = [m for m in expect if seen[m] != 1]
        e2e.check(not missing, "%d frames not received once: %s",
                  len(missing), missing[:8])
        e2e.check(len(spread) >= 2, "OVS RSS spread too weak: %s",
                  dict(spread))
        for cls, rid in ids.items():
            mine = [f for c, t, f, _ in expect.values() if c == cls and
                    not t]
            q = tp.flow_count(rid)
            e2e.check_eq((q["hits"], q["bytes"]),
                         (len(mine), sum(len(f) for f in mine)),
                         "rule %d (%s) hits, bytes" % (rid, cls))
        e2e.log("%s engine: %d frames; rules %s took their own only; OVS "
                "RSS on queues %s" % (args.engine, len(frames),
                                      ", ".join(ids), dict(spread)))
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["auto", "dv"], default="auto",
                    help="flow_engine devarg of the port")


if __name__ == "__main__":
    e2e.run(main, options=options)
