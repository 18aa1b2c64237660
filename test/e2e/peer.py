#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The traffic peer: runs inside the test's network namespace.

Two ways to use it:

  peer.py --json            read {"ifname", "frames": [hex], "expect",
                            "timeout", "gap"} on stdin, send the frames on
                            ifname, collect frames arriving on ifname (never
                            our own outgoing copies) until "expect" of them
                            came or "timeout" seconds passed, and print
                            {"sent", "send_errors", "received": [hex]}.
  peer.py --mix demo --ifname IF --dst-mac MAC [--count N]
                            build a traffic mix with scapy, send it, and
                            print a human summary of what came back.

Only the interface named is used, so nothing leaves the namespace.
"""

import argparse
import json
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
AUXDATA = struct.Struct("=IIIHHHH")


def open_socket(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    # The kernel moves a received VLAN tag into metadata; ask for it back.
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((ifname, 0))
    s.setblocking(False)
    # Frames queued before we were ready are not ours to count.
    while True:
        try:
            s.recv(65536)
        except BlockingIOError:
            break
    return s


def receive(s):
    """One incoming frame with its VLAN tag restored, None for our own
    outgoing copies; BlockingIOError when nothing is queued."""
    data, anc, _flags, addr = s.recvmsg(65536, socket.CMSG_SPACE(64))
    if addr[2] == PACKET_OUTGOING:
        return None
    for level, kind, raw in anc:
        if level != SOL_PACKET or kind != PACKET_AUXDATA:
            continue
        status, _, _, _, _, tci, tpid = AUXDATA.unpack(raw[:AUXDATA.size])
        if status & TP_STATUS_VLAN_VALID:
            if not status & TP_STATUS_VLAN_TPID_VALID:
                tpid = 0x8100
            data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
    return data


def exchange(ifname, frames, expect, timeout, gap=0.0):
    """Send frames, then collect incoming frames; return (sent, errs, rx)."""
    s = open_socket(ifname)
    sent = errors = 0
    received = []

    def drain():
        while True:
            try:
                data = receive(s)
            except BlockingIOError:
                return
            if data is not None:
                received.append(data)

    for frame in frames:
        for _ in range(100):
            try:
                s.send(frame)
                sent += 1
                break
            except BlockingIOError:
                drain()
                time.sleep(0.001)
        else:
            errors += 1
        if gap:
            time.sleep(gap)
        drain()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if expect is not None and len(received) >= expect:
            # Linger a little: extra frames (duplicates) must be seen too.
            time.sleep(0.2)
            drain()
            break
        drain()
        time.sleep(0.005)
    s.close()
    return sent, errors, received


def json_mode():
    req = json.load(sys.stdin)
    frames = [bytes.fromhex(f) for f in req["frames"]]
    sent, errors, received = exchange(req["ifname"], frames,
                                      req.get("expect"),
                                      float(req.get("timeout", 3.0)),
                                      float(req.get("gap", 0.0)))
    json.dump({"sent": sent, "send_errors": errors,
               "received": [r.hex() for r in received]}, sys.stdout)
    return 0


def demo_mix(src_mac, dst_mac, count):
    """A mix of what a service port sees: UDP/TCP to a few services,
    ICMP, IPv6, a VLAN-tagged frame. Returns [(kind, frame bytes)]."""
    import logging
    # scapy warns about interfaces without addresses: all of them here.
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import ICMP, IP, TCP, UDP, Dot1Q, Ether, IPv6, Raw

    eth = Ether(src=src_mac, dst=dst_mac)
    kinds = [
        ("udp/dns", lambda i: eth / IP(src="192.0.2.%d" % (10 + i % 50),
                                       dst="198.51.100.1") /
         UDP(sport=10000 + i, dport=53) / Raw(b"q" * 40)),
        ("udp/4789", lambda i: eth / IP(src="192.0.2.%d" % (10 + i % 50),
                                        dst="198.51.100.2") /
         UDP(sport=20000 + i, dport=4789) / Raw(b"v" * 100)),
        ("tcp/80", lambda i: eth / IP(src="192.0.2.%d" % (60 + i % 50),
                                      dst="198.51.100.3") /
         TCP(sport=30000 + i, dport=80, flags="S") / Raw(b"t" * 20)),
        ("tcp/443", lambda i: eth / IP(src="192.0.2.%d" % (60 + i % 50),
                                       dst="198.51.100.4") /
         TCP(sport=40000 + i, dport=443, flags="PA") / Raw(b"s" * 600)),
        ("icmp", lambda i: eth / IP(src="203.0.113.7", dst="198.51.100.1") /
         ICMP(id=7, seq=i) / Raw(b"p" * 56)),
        ("ipv6/udp", lambda i: eth / IPv6(src="2001:db8::%x" % (i + 1),
                                          dst="2001:db8:1::1") /
         UDP(sport=5000 + i, dport=5001) / Raw(b"6" * 64)),
        ("vlan/udp", lambda i: Ether(src=src_mac, dst=dst_mac) /
         Dot1Q(vlan=100) / IP(src="192.0.2.200", dst="198.51.100.5") /
         UDP(sport=7000 + i, dport=7001) / Raw(b"l" * 30)),
    ]
    mix = []
    for i in range(count):
        kind, build = kinds[i % len(kinds)]
        mix.append((kind, bytes(build(i))))
    return mix


def mac_of(ifname):
    with open("/sys/class/net/%s/address" % ifname) as f:
        return f.read().strip()


def mix_mode(args):
    mix = demo_mix(mac_of(args.ifname), args.dst_mac, args.count)
    frames = [f for _, f in mix]
    sent, errors, received = exchange(args.ifname, frames, len(frames),
                                      args.timeout, args.gap)
    # An echo is one of our frames coming back unchanged.
    pending = {}
    for kind, frame in mix:
        pending.setdefault(frame, []).append(kind)
    back = {}
    others = 0
    for r in received:
        kinds = pending.get(r)
        if kinds:
            kind = kinds.pop()
            back[kind] = back.get(kind, 0) + 1
        else:
            others += 1
    per_kind = {}
    for kind, _ in mix:
        per_kind[kind] = per_kind.get(kind, 0) + 1
    print("peer: sent %d frames (%d bytes) from %s to %s, %d send errors"
          % (sent, sum(len(f) for f in frames), args.ifname, args.dst_mac,
             errors))
    for kind in per_kind:
        print("peer:   %-9s sent %3d  echoed back %3d"
              % (kind, per_kind[kind], back.get(kind, 0)))
    print("peer: %d of %d frames came back unchanged, %d other frames seen"
          % (sum(back.values()), sent, others))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--mix", choices=["demo"])
    ap.add_argument("--ifname")
    ap.add_argument("--dst-mac")
    ap.add_argument("--count", type=int, default=70)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--gap", type=float, default=0.0)
    args = ap.parse_args()
    if args.json:
        return json_mode()
    if args.mix and args.ifname and args.dst_mac:
        return mix_mode(args)
    ap.error("either --json or --mix with --ifname and --dst-mac")
    return 2


if __name__ == "__main__":
    sys.exit(main())
