#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Rx offloads on real frames from the wire, read back through testpmd.

Checksums: scapy sends frames with good and deliberately broken IPv4,
TCP and UDP checksums; testpmd's csum engine (with --enable-rx-cksum)
counts the bad ones itself from the mbuf flags (Bad-ipcsum, Bad-l4csum),
and the verbose dump shows each packet's flags: GOOD, BAD or UNKNOWN as
the frame really was. VLAN: `vlan set strip on` delivers tagged frames
without their tag, the TCI in the mbuf (verbose "VLAN tci="); `vlan set
filter on` with `rx_vlan add` lets only the allowed VLAN in."""

import re

import testpmd_parse as parse
import vsteer_e2e as e2e

CASES = [
    # (what, builder key, expected IP flag, expected L4 flag)
    ("good TCP", "tcp", "IP_CKSUM_GOOD", "L4_CKSUM_GOOD"),
    ("bad IPv4 header", "bad_ip", "IP_CKSUM_BAD", "L4_CKSUM_UNKNOWN"),
    ("bad TCP", "bad_tcp", "IP_CKSUM_GOOD", "L4_CKSUM_BAD"),
    ("bad UDP", "bad_udp", "IP_CKSUM_GOOD", "L4_CKSUM_BAD"),
    ("UDP without checksum", "udp0", "IP_CKSUM_GOOD", "L4_CKSUM_GOOD"),
    ("ICMP", "icmp", "IP_CKSUM_GOOD", "L4_CKSUM_UNKNOWN"),
    ("IPv6 UDP", "v6", "IP_CKSUM_UNKNOWN", "L4_CKSUM_GOOD"),
    ("bad IPv6 TCP", "bad_tcp6", "IP_CKSUM_UNKNOWN", "L4_CKSUM_BAD"),
]


def src_mac(i):
    return "02:76:73:00:0c:%02x" % i


def csum_frame(kind, src, dst):
    from scapy.all import ICMP, IP, TCP, UDP, Ether, IPv6, Raw

    eth = Ether(src=src, dst=dst)
    ip = IP(src="192.0.2.10", dst="198.51.100.10")
    pay = Raw(b"checksum" * 8)
    if kind == "tcp":
        pkt = eth / ip / TCP(sport=1, dport=80) / pay
    elif kind == "bad_ip":
        pkt = eth / IP(src="192.0.2.10", dst="198.51.100.10",
                       chksum=0x1234) / TCP(sport=1, dport=80) / pay
    elif kind == "bad_tcp":
        pkt = eth / ip / TCP(sport=1, dport=80, chksum=0x1234) / pay
    elif kind == "bad_udp":
        pkt = eth / ip / UDP(sport=1, dport=53, chksum=0x1234) / pay
    elif kind == "udp0":
        pkt = eth / ip / UDP(sport=1, dport=53, chksum=0) / pay
    elif kind == "icmp":
        pkt = eth / ip / ICMP() / pay
    elif kind == "bad_tcp6":
        pkt = eth / IPv6(src="2001:db8::1", dst="2001:db8::2") / \
            TCP(sport=1, dport=80, chksum=0x1234) / pay
    else:
        pkt = eth / IPv6(src="2001:db8::1", dst="2001:db8::2") / \
            UDP(sport=1, dport=53) / pay
    return bytes(pkt)


def tagged(vid, prio, src, dst, size=100):
    from scapy.all import IP, UDP, Dot1Q, Ether, Raw

    pkt = Ether(src=src, dst=dst) / Dot1Q(vlan=vid, prio=prio) / \
        IP(src="192.0.2.20", dst="198.51.100.20") / UDP(sport=7, dport=7)
    return bytes(pkt / Raw(b"v" * (size - len(pkt))))


def untagged(src, dst, size=96):
    from scapy.all import IP, UDP, Ether, Raw

    pkt = Ether(src=src, dst=dst) / IP(src="192.0.2.21",
                                       dst="198.51.100.21") / UDP()
    return bytes(pkt / Raw(b"u" * (size - len(pkt))))


def fwd_counter(text, name):
    m = re.findall(r"%s:\s*(\d+)" % name, text)
    if not m:
        raise AssertionError("no %s in testpmd's statistics:\n%s"
                             % (name, text))
    return int(m[0])


def check_checksums(net, tp, mac):
    tp.cmd("set fwd csum")
    tp.cmd("set verbose 1")
    frames = [csum_frame(kind, src_mac(i), mac)
              for i, (_, kind, _, _) in enumerate(CASES)]
    start = len(tp.transcript)
    tp.cmd("start")
    net.exchange(frames, expect=None, timeout=0.3)
    tp.settle(1.0)
    out = tp.cmd("stop")
    pkts = parse_rx(tp.transcript[start:])
    for i, (what, _, ip_flag, l4_flag) in enumerate(CASES):
        got = [p for p in pkts if p.src == src_mac(i)]
        e2e.check(len(got) == 1, "%s: %d packets" % (what, len(got)))
        flags = got[0].ol_flags.split()
        e2e.check("RTE_MBUF_F_RX_" + ip_flag in flags and
                  "RTE_MBUF_F_RX_" + l4_flag in flags,
                  "%s: flags %s, want %s %s"
                  % (what, got[0].ol_flags, ip_flag, l4_flag))
    # testpmd's own count, from the flags of what it forwarded.
    e2e.log("testpmd counted Bad-ipcsum %d, Bad-l4csum %d"
            % (fwd_counter(out, "Bad-ipcsum"), fwd_counter(out, "Bad-l4csum")))
    e2e.check_eq(fwd_counter(out, "Bad-ipcsum"), 1, "Bad-ipcsum")
    e2e.check_eq(fwd_counter(out, "Bad-l4csum"), 3, "Bad-l4csum")


def parse_rx(text):
    return parse.rx_dump(text)


def exchange_rx(net, tp, frames):
    start = len(tp.transcript)
    tp.cmd("start")
    net.exchange(frames, expect=None, timeout=0.3)
    tp.settle(0.8)
    tp.cmd("stop")
    return parse_rx(tp.transcript[start:])


def check_vlan(net, tp, mac):
    tp.cmd("set fwd rxonly")
    tp.cmd("set verbose 1")
    out = tp.cmd("vlan set strip on 0")
    e2e.check("error" not in out.lower(), "strip on: %s" % out)
    pkts = exchange_rx(net, tp, [tagged(100, 5, src_mac(0x40), mac),
                                 untagged(src_mac(0x41), mac)])
    strip = [p for p in pkts if p.src == src_mac(0x40)]
    plain = [p for p in pkts if p.src == src_mac(0x41)]
    e2e.check(len(strip) == 1 and len(plain) == 1,
              "VLAN strip: %d + %d packets" % (len(strip), len(plain)))
    e2e.check_eq(strip[0].vlan_tci, 0xa064, "stripped TCI (PCP 5, VID 100)")
    e2e.check("RTE_MBUF_F_RX_VLAN_STRIPPED" in strip[0].ol_flags.split(),
              "stripped flag: %s" % strip[0].ol_flags)
    e2e.check_eq((strip[0].length, strip[0].ethertype), (96, 0x0800),
                 "length and type after the tag left")
    e2e.check(plain[0].vlan_tci is None, "untagged frame has no TCI")
    tp.cmd("vlan set strip off 0")
    pkts = exchange_rx(net, tp, [tagged(100, 5, src_mac(0x42), mac)])
    kept = [p for p in pkts if p.src == src_mac(0x42)]
    e2e.check(len(kept) == 1 and kept[0].vlan_tci is None and
              kept[0].length == 100 and kept[0].ethertype == 0x8100,
              "tag kept with stripping off: %s" % kept)

    # Filtering: promiscuous off, VLAN 10 only.
    tp.cmd("set promisc 0 off")
    out = tp.cmd("vlan set filter on 0")
    e2e.check("error" not in out.lower(), "filter on: %s" % out)
    out = tp.cmd("rx_vlan add 10 0")
    e2e.check("error" not in out.lower() and "fail" not in out.lower(),
              "rx_vlan add: %s" % out)
    frames = [tagged(10, 0, src_mac(0x50), mac),
              tagged(11, 0, src_mac(0x51), mac),
              untagged(src_mac(0x52), mac),
              tagged(10, 3, src_mac(0x53), "ff:ff:ff:ff:ff:ff")]
    pkts = exchange_rx(net, tp, frames)
    seen = sorted({p.src for p in pkts})
    e2e.check_eq(seen, [src_mac(0x50), src_mac(0x53)],
                 "VLAN 10 to us and broadcast in, VLAN 11 and untagged out")
    tp.cmd("rx_vlan rm 10 0")
    tp.cmd("vlan set filter off 0")
    pkts = exchange_rx(net, tp, [untagged(src_mac(0x54), mac)])
    e2e.check([p.src for p in pkts] == [src_mac(0x54)],
              "untagged frames again with filtering off")


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                        app=["--enable-rx-cksum"]) as tp:
        mac = tp.port_info()["mac"]
        check_checksums(net, tp, mac)
        check_vlan(net, tp, mac)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
