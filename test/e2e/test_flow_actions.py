#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Packet actions on real traffic, testpmd forwarding (io) what it
receives back out of the port, the peer comparing every frame it gets
back, byte for byte, with what scapy builds:

- ingress rewrites (SET_IPV4_DST, SET_TP_DST, DEC_TTL, SET_MAC_DST; on
  IPv6 and TCP SET_IPV6_DST, SET_TP_SRC, INC_TCP_SEQ, DEC_TTL on the hop
  limit; MODIFY_FIELD of the TTL) with MARK, on the queue the rule names,
  the IP and L4 checksums as scapy computes them;
- ingress decap (VXLAN_DECAP, NVGRE_DECAP, RAW_DECAP): the inner frame is
  what the queue receives, marked, and what goes back out;
- egress encap (VXLAN_ENCAP and NVGRE_ENCAP from testpmd's `set vxlan` and
  `set nvgre`, RAW_ENCAP of an NVGRE header), an egress rewrite and an
  egress DROP on frames testpmd sends: the outer header as the definition
  gives it with its lengths and IPv4 checksum filled, or nothing at all;
- a near miss of each rule passes untouched; each rule's count holds its
  own frames and their length before the actions; once the rules are
  flushed the same frames come back as they were sent;
- refusals, with the error type, message and errno: encap on ingress,
  decap on egress, a rewrite listed after the encap, a rewrite with DROP,
  a field copy, more header modify actions than the receive table takes.

--engine picks the flow_engine devarg: auto and dv put these rules on
mlx5dv matchers (auto keeps the egress DROP on verbs), verbs refuses
every packet action, naming the engine."""

import collections
import logging
import threading

import testpmd_parse as parse
import vsteer_e2e as e2e

QUEUES = 4
N = 6              # frames per class
ENOTSUP = "Operation not supported"
EINVAL = "Invalid argument"

# testpmd's encap definitions (`set vxlan`, `set nvgre`, `set raw_encap`)
# and the raw decap header.
VXLAN = dict(vni=77, sport=5000, src="192.0.2.100", dst="192.0.2.200",
             esrc="02:aa:00:00:00:01", edst="02:bb:00:00:00:02")
NVGRE = dict(tni=85, src="192.0.2.101", dst="192.0.2.201",
             esrc="02:aa:00:00:00:03", edst="02:bb:00:00:00:04")
RAW = dict(tni=0x77, src="192.0.2.102", dst="192.0.2.202",
           esrc="02:aa:00:00:00:05", edst="02:bb:00:00:00:06")
SETUP = [
    "set vxlan ip-version ipv4 vni {vni} udp-src {sport} udp-dst 4789 "
    "ip-src {src} ip-dst {dst} eth-src {esrc} eth-dst {edst}".format(**VXLAN),
    "set nvgre ip-version ipv4 tni {tni} ip-src {src} ip-dst {dst} "
    "eth-src {esrc} eth-dst {edst}".format(**NVGRE),
    "set raw_encap 2 eth src is {esrc} dst is {edst} / ipv4 src is {src} "
    "dst is {dst} ttl is 64 / nvgre tni is {tni} / end_set".format(**RAW),
    "set raw_decap 1 eth / ipv4 / udp / vxlan / end_set",
]

# class -> (rule after "flow create 0 ", queue or None for RSS, mark or
# None, or "drop" for what never comes back).
RULES = collections.OrderedDict([
    ("rw4", ("ingress pattern eth / ipv4 dst is 198.51.100.1 / udp dst is "
             "7000 / end actions set_ipv4_dst ipv4_addr 203.0.113.9 / "
             "set_tp_dst port 7001 / dec_ttl / set_mac_dst mac_addr "
             "02:00:00:00:00:99 / mark id 11 / count / queue index 1 / end",
             1, 11)),
    ("rw6", ("ingress pattern eth / ipv6 / tcp dst is 8000 / end actions "
             "set_ipv6_dst ipv6_addr 2001:db8::99 / set_tp_src port 4444 / "
             "inc_tcp_seq value 1000 / dec_ttl / mark id 12 / count / rss / "
             "end", None, 12)),
    ("field", ("ingress pattern eth / ipv4 / udp dst is 7005 / end actions "
               "modify_field op set dst_type ipv4_ttl src_type value "
               "src_value 0x21 width 8 / count / queue index 2 / end", 2,
               None)),
    ("vxdecap", ("ingress pattern eth / ipv4 / udp / vxlan vni is 100 / eth "
                 "/ ipv4 / end actions vxlan_decap / mark id 21 / count / "
                 "queue index 2 / end", 2, 21)),
    ("nvdecap", ("ingress pattern eth / ipv4 / nvgre tni is 0x55 / eth / "
                 "end actions nvgre_decap / mark id 22 / count / queue index "
                 "3 / end", 3, 22)),
    ("rawdecap", ("ingress pattern eth / ipv4 / udp / vxlan vni is 101 / end "
                  "actions raw_decap index 1 / count / rss / end", None,
                  None)),
    ("vxencap", ("egress pattern eth / ipv4 / udp dst is 9000 / end actions "
                 "vxlan_encap / count / end", None, None)),
    ("nvencap", ("egress pattern eth / ipv4 / udp dst is 9001 / end actions "
                 "nvgre_encap / count / end", None, None)),
    ("rawencap", ("egress pattern eth / ipv4 / udp dst is 9002 / end actions "
                  "raw_encap index 2 / count / end", None, None)),
    ("egdrop", ("egress pattern eth / ipv4 / udp dst is 9003 / end actions "
                "count / drop / end", None, "drop")),
    ("egrw", ("egress pattern eth / ipv4 / udp dst is 9004 / end actions "
              "set_ipv4_src ipv4_addr 10.9.9.9 / set_tp_src port 4444 / "
              "count / end", None, None)),
])

# (rule, error type, message, strerror) refused on auto and dv.
REFUSED = [
    ("ingress pattern eth / ipv4 / end actions vxlan_encap / queue index 0 "
     "/ end", 16, "VXLAN_ENCAP action: no encap on ingress rules: the "
     "receive table takes decap, the transmit table encap", ENOTSUP),
    ("egress pattern eth / ipv4 / udp / vxlan / end actions vxlan_decap / "
     "end", 16, "VXLAN_DECAP action: no decap on egress rules: the transmit "
     "table takes encap, the receive table decap", ENOTSUP),
    ("egress pattern eth / ipv4 / end actions vxlan_encap / set_ipv4_dst "
     "ipv4_addr 10.0.0.1 / end", 16, "SET_IPV4_DST action: listed after "
     "VXLAN_ENCAP: the device rewrites the frame before it encapsulates "
     "it, list the rewrite first", EINVAL),
    ("ingress pattern eth / ipv4 / end actions set_ipv4_dst ipv4_addr "
     "10.0.0.1 / drop / end", 16, "SET_IPV4_DST action: cannot be combined "
     "with DROP (nothing is left to rewrite or reformat)", EINVAL),
    ("ingress pattern eth / ipv4 / end actions modify_field op set dst_type "
     "ipv4_src src_type ipv4_dst width 32 / queue index 0 / end", 15,
     "MODIFY_FIELD action: a field as source is a copy, which the root "
     "table does not take: give an immediate value or a pointer to one",
     ENOTSUP),
    ("ingress pattern eth / ipv4 / end actions vxlan_decap / queue index 0 "
     "/ end", 16, "VXLAN_DECAP action: the pattern has no VXLAN item: the "
     "device decapsulates the tunnel the rule matches", EINVAL),
    # 2 + 2 + 4 + 4 + 1 + 1 + 1 + 1 + 1: one over the device's 16.
    ("ingress pattern eth / ipv6 / tcp / end actions set_mac_src mac_addr "
     "02:00:00:00:00:01 / set_mac_dst mac_addr 02:00:00:00:00:02 / "
     "set_ipv6_src ipv6_addr 2001:db8::1 / set_ipv6_dst ipv6_addr "
     "2001:db8::2 / set_tp_src port 1 / set_tp_dst port 2 / dec_ttl / "
     "inc_tcp_seq value 1 / inc_tcp_ack value 1 / queue index 0 / end", 16,
     "header rewrites: 17 header modify actions, the device's receive "
     "table takes at most 16 (max_modify_header_actions)", ENOTSUP),
]

VERBS_REFUSED = [
    (RULES["rw4"][0], 16, "SET_IPV4_DST action: verbs cannot take it "
     "(flow_engine=verbs)", ENOTSUP),
    (RULES["vxdecap"][0], 16, "VXLAN_DECAP action: verbs cannot take it "
     "(flow_engine=verbs)", ENOTSUP),
    (RULES["vxencap"][0], 16, "VXLAN_ENCAP action: verbs cannot take it "
     "(flow_engine=verbs)", ENOTSUP),
]


def scapy():
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    import scapy.all as s
    from scapy.layers.vxlan import VXLAN as Vx
    s.VXLAN = Vx
    return s


def src_mac(cls, i, twin=False, outer=False):
    """The source MAC that names frame i of a class, of its near miss,
    of its tunnel's outer header."""
    return "02:76:%02x:%02x:%02x:%02x" % (0x80 if outer else 0x70,
                                          list(RULES).index(cls), int(twin),
                                          i)


def egress_port(cls):
    """The UDP port of an egress class's frames (9000 and on)."""
    return 9000 + list(RULES).index(cls) - list(RULES).index("vxencap")


def sent_frame(s, cls, i, dst_mac, twin):
    """The scapy packet of frame i of a class (twin: its near miss)."""
    pay = s.Raw(bytes([0x41 + i]) * (20 + 37 * i))
    eth = s.Ether(src=src_mac(cls, i, twin), dst=dst_mac)
    outer = s.Ether(src=src_mac(cls, i, twin, True), dst=dst_mac) / \
        s.IP(src="192.0.2.%d" % (1 + i), dst="198.51.100.50")
    inner = s.Ether(src=src_mac(cls, i, twin), dst="02:00:00:00:00:42") / \
        s.IP(src="10.1.0.%d" % (1 + i), dst="10.2.0.1", id=i) / \
        s.UDP(sport=1000 + i, dport=2000) / pay
    # class -> (IPv4 destination, TTL, UDP port) of the plain UDP ones
    udp = {"rw4": ("198.51.100.1", 20 + i, 7000),
           "field": ("198.51.100.5", 3 + i, 7005)}
    if cls in udp or cls.startswith("eg") or cls.endswith("encap"):
        dst, ttl, port = udp.get(cls, ("198.51.100.9", 64, egress_port(cls)))
        return eth / s.IP(src="192.0.2.%d" % (1 + i), dst=dst, ttl=ttl) / \
            s.UDP(sport=3000 + i, dport=port + 10 * twin) / pay
    if cls == "rw6":
        return eth / s.IPv6(src="2001:db8:1::%d" % (1 + i),
                            dst="2001:db8::5", hlim=30 + i) / \
            s.TCP(sport=3000 + i, dport=8000 + twin,
                  seq=0xfffffc00 + 100 * i, flags="PA") / pay
    if cls == "nvdecap":
        return outer / s.GRE(key_present=1, proto=0x6558,
                             key=((0x56 if twin else 0x55) << 8) | i) / inner
    vni = 102 if twin else {"vxdecap": 100, "rawdecap": 101}[cls]
    return outer / s.UDP(sport=50000 + i, dport=4789) / \
        s.VXLAN(flags=0x08, vni=vni) / inner


def encap(s, cls, sent):
    """What an egress encap rule sends: the definition's header, IPv4 ID
    0 and TTL 64 (the driver's default), the lengths and IPv4 checksum
    filled, VXLAN's UDP checksum 0."""
    if cls == "vxencap":
        c = VXLAN
        tunnel = s.UDP(sport=c["sport"], dport=4789, chksum=0) / \
            s.VXLAN(flags=0x08, vni=c["vni"])
    else:
        c = NVGRE if cls == "nvencap" else RAW
        tunnel = s.GRE(key_present=1, proto=0x6558, key=c["tni"] << 8)
    return bytes(s.Ether(src=c["esrc"], dst=c["edst"]) /
                 s.IP(src=c["src"], dst=c["dst"], id=0, ttl=64) / tunnel /
                 s.Raw(sent))


def frame(cls, i, dst_mac, twin=False):
    """Frame i of a class (twin: the near miss no rule takes): (bytes
    sent, bytes the peer gets back or None)."""
    s = scapy()
    pkt = sent_frame(s, cls, i, dst_mac, twin)
    sent = bytes(pkt)
    if twin:
        return sent, sent
    if cls.endswith("decap"):
        return sent, bytes(pkt[s.Ether:2])
    if cls.endswith("encap"):
        return sent, encap(s, cls, sent)
    if cls == "egdrop":
        return sent, None
    out = s.Ether(sent)
    if cls == "rw4":
        out.dst = "02:00:00:00:00:99"
        out[s.IP].dst = "203.0.113.9"
        out[s.IP].ttl -= 1
        out[s.UDP].dport = 7001
    elif cls == "rw6":
        out[s.IPv6].dst = "2001:db8::99"
        out[s.IPv6].hlim -= 1
        out[s.TCP].sport = 4444
        out[s.TCP].seq = (out[s.TCP].seq + 1000) & 0xffffffff
    elif cls == "field":
        out[s.IP].ttl = 0x21
    else:  # egrw
        out[s.IP].src = "10.9.9.9"
        out[s.UDP].sport = 4444
    # scapy recomputes the checksums of the fields it no longer has.
    for layer in (s.IP, s.UDP, s.TCP):
        if out.haslayer(layer):
            del out[layer].chksum
    return sent, bytes(out)


def check_refused(tp, cases):
    for rule, etype, msg, errno_str in cases:
        for verb in ("validate", "create"):
            err = tp.flow_refused("flow %s 0 %s" % (verb, rule))
            what = "flow %s 0 %s" % (verb, rule)
            e2e.check_eq(err.type, etype, "error type of " + what)
            e2e.check_eq(err.message, msg, "message of " + what)
            e2e.check_eq(err.strerror, errno_str, "errno of " + what)
        e2e.check_eq(tp.flow_list(), [], "flow list after refusing " + rule)


def exchange(tp, net, frames, expect):
    """Forward, send frames, collect the echoes (expect of them) and the
    verbose Rx dump of the packets testpmd received. testpmd's verbose
    output is read meanwhile: a full pty would stop its forwarding."""
    start = len(tp.transcript)
    tp.cmd("start")
    res = {}
    peer = threading.Thread(target=lambda: res.update(
        echoes=net.exchange(frames, expect=expect, timeout=10.0)))
    peer.start()
    while peer.is_alive():
        tp.settle(0.1)
    peer.join()
    tp.settle(0.3)
    tp.cmd("stop")
    e2e.check("echoes" in res, "the peer failed")
    return res["echoes"], parse.rx_dump(tp.transcript[start:])


def compare(what, want, got):
    want, got = collections.Counter(want), collections.Counter(got)
    missing, extra = want - got, got - want
    if missing or extra:
        s = scapy()
        lines = ["missing: " + s.Ether(f).summary() + " " + f.hex()
                 for f in missing] + \
                ["extra: " + s.Ether(f).summary() + " " + f.hex()
                 for f in extra]
        raise AssertionError("%s: %d frames missing, %d extra\n  %s"
                             % (what, sum(missing.values()),
                                sum(extra.values()), "\n  ".join(lines[:12])))


def traffic(tp, net, engine):
    mac = tp.port_info()["mac"]
    for line in SETUP:
        tp.cmd(line)
    ids = {cls: tp.flow_create("0 " + r[0]) for cls, r in RULES.items()}
    dump = tp.cmd("flow dump 0 all")
    for cls, rid in ids.items():
        want = "verbs" if cls == "egdrop" and engine == "auto" else "mlx5dv"
        e2e.check("flow rule %d (handle 0x%x): %s, priority 0, engine %s, "
                  "applied" % (rid, (rid + 1) << 32 | rid,
                               RULES[cls][0].split()[0], want) in dump,
                  "rule %d (%s) not on %s:\n%s", rid, cls, want, dump)

    sent, echoes, rx = [], [], {}
    for cls, (rule, queue, mark) in RULES.items():
        for twin in (False, True):
            for i in range(N if not twin else 2):
                f, back = frame(cls, i, mac, twin)
                sent.append(f)
                if back is not None:
                    echoes.append(back)
                rx[src_mac(cls, i, twin, cls.endswith("decap") and twin)] = \
                    (cls, twin, queue, mark,
                     len(back) if cls.endswith("decap") else len(f))
    got, pkts = exchange(tp, net, sent, len(echoes))
    compare("frames back with the rules", echoes, got)

    wrong = []
    e2e.check_eq(len(pkts), len(sent), "packets testpmd received")
    for p in pkts:
        e2e.check(p.src in rx, "unexpected frame from %s", p.src)
        cls, twin, queue, mark, length = rx[p.src]
        if twin:
            queue = mark = None
        if p.length != length:
            wrong.append("%s (%s): length %d, want %d" % (p.src, cls,
                                                          p.length, length))
        if queue is not None and p.queue != queue:
            wrong.append("%s (%s): queue %d, want %d" % (p.src, cls,
                                                         p.queue, queue))
        if isinstance(mark, int) and p.fdir_id != mark:
            wrong.append("%s (%s): mark %s, want %d" % (p.src, cls,
                                                        p.fdir_id, mark))
        elif not isinstance(mark, int) and p.fdir_matched:
            wrong.append("%s (%s): marked" % (p.src, cls))
    e2e.check(not wrong, "%d frames wrong on the queues:\n  %s", len(wrong),
              "\n  ".join(wrong))

    # Counts: the rule's own frames, their length before the actions.
    for cls, rid in ids.items():
        mine = [frame(cls, i, mac)[0] for i in range(N)]
        q = tp.flow_count(rid)
        e2e.check_eq((q["hits"], q["bytes"]),
                     (N, sum(len(f) for f in mine)),
                     "rule %d (%s) hits, bytes" % (rid, cls))

    # Without the rules every frame comes back as it was sent.
    tp.cmd("flow flush 0")
    e2e.check_eq(tp.flow_list(), [], "flow list after flush")
    plain = [frame(cls, 0, mac)[0] for cls in RULES]
    got, pkts = exchange(tp, net, plain, len(plain))
    compare("frames back once the rules are gone", plain, got)
    e2e.check(not any(p.fdir_matched for p in pkts),
              "a frame is marked once the rules are gone")
    e2e.log("%s engine: %d frames through %d rules, %d back as scapy "
            "builds them" % (engine, len(sent), len(ids), len(echoes)))


def main(args):
    extra = "" if args.engine == "auto" else "flow_engine=" + args.engine
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(extra=extra), rxq=QUEUES,
                        txq=QUEUES, testpmd=args.testpmd,
                        app=["--forward-mode=io"]) as tp:
        if args.engine == "verbs":
            for line in SETUP:
                tp.cmd(line)
            check_refused(tp, VERBS_REFUSED)
        else:
            check_refused(tp, REFUSED)
            tp.cmd("set verbose 1")
            traffic(tp, net, args.engine)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main, options=e2e.engine_option)
