#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The traffic peer: runs inside the test's network namespace.

  peer.py --json            read {"ifname", "frames": [hex], "expect",
                            "timeout", "gap"} on stdin, send the frames on
                            ifname, collect frames arriving on ifname (never
                            our own outgoing copies) until "expect" of them
                            came or "timeout" seconds passed, and print
                            {"sent", "send_errors", "received": [hex]}.
  peer.py --ping            read {"pings": [{"src", "dst", "count",
                            "size"}], "timeout"} on stdin, send ICMP echo
                            requests from each src address to its dst one
                            at a time (the namespace's kernel routes them,
                            the other end's kernel answers), wait up to
                            "timeout" seconds for each reply, and print
                            {"results": [{"sent", "replies", "sizes"}]} in
                            the same order. "size" (optional) is the IP
                            length of each request, sent with DF and never
                            fragmented (a request beyond the route's MTU
                            is not sent and gets no reply); "sizes" are
                            the IP lengths of the replies that came.

The tests and the demo build their frames with scapy and hand them over
(vsteer_e2e.VethNs.exchange). Only the interface named is used, so
nothing leaves the namespace.
"""

import argparse
import errno
import ipaddress
import json
import os
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
DRAIN_MAX = 100000   # frames read per drain: bounds the loops


def open_socket(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    # The kernel moves a received VLAN tag into metadata; ask for it back.
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((ifname, 0))
    s.setblocking(False)
    # Frames queued before we were ready are not ours to count (a socket
    # buffer holds far fewer than the bound).
    for _ in range(DRAIN_MAX):
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
        for _ in range(DRAIN_MAX):
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
            except OSError as exc:
                # The other end dropped it (a veth whose MTU is too
                # small answers ENOBUFS): a send error, not a crash.
                if exc.errno != errno.ENOBUFS:
                    raise
                errors += 1
                break
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


ICMP_ECHO_REPLY = 0
ICMP_ECHO_REQUEST = 8
PING_PAYLOAD = bytes(range(56))  # ping(8)'s default size
IP_ICMP_HEADERS = 20 + 8
# <linux/in.h>: IP_MTU_DISCOVER's "do": DF on every packet, and a send
# beyond the path MTU fails (EMSGSIZE) instead of being fragmented.
IP_MTU_DISCOVER = 10
IP_PMTUDISC_DO = 2


def inet_checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def ping_one(s, ident, seq, dst, timeout, payload=PING_PAYLOAD):
    """One echo request to dst; the IP length of its reply when it came
    within timeout, else None (also when the kernel refused to send it:
    too big for the route's MTU with DF)."""
    hdr = struct.pack("!BBHHH", ICMP_ECHO_REQUEST, 0, 0, ident, seq)
    csum = inet_checksum(hdr + payload)
    try:
        s.sendto(struct.pack("!BBHHH", ICMP_ECHO_REQUEST, 0, csum, ident,
                             seq) + payload, (dst, 0))
    except OSError as exc:
        if exc.errno != errno.EMSGSIZE:
            raise
        return None
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        s.settimeout(left)
        try:
            data, addr = s.recvfrom(65536)
        except socket.timeout:
            return None
        # A raw IPv4 socket hands over the IP header too.
        ihl = (data[0] & 0x0f) * 4
        if len(data) < ihl + 8 or addr[0] != dst:
            continue
        kind, _, _, r_ident, r_seq = struct.unpack("!BBHHH",
                                                   data[ihl:ihl + 8])
        if kind == ICMP_ECHO_REPLY and r_ident == ident and r_seq == seq:
            return len(data)


def ping_mode():
    req = json.load(sys.stdin)
    timeout = float(req.get("timeout", 1.0))
    ident = os.getpid() & 0xffff
    seq = 0
    results = []
    for p in req["pings"]:
        ipaddress.IPv4Address(p["src"])  # IPv4 only; fail loudly otherwise
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                          socket.IPPROTO_ICMP)
        s.bind((p["src"], 0))
        payload = PING_PAYLOAD
        if p.get("size") is not None:
            size = int(p["size"])
            if size < IP_ICMP_HEADERS:
                raise ValueError("ping size %d: less than the headers"
                                 % size)
            payload = bytes(i & 0xff for i in range(size - IP_ICMP_HEADERS))
            s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        sizes = []
        for _ in range(int(p["count"])):
            seq = (seq + 1) & 0xffff
            got = ping_one(s, ident, seq, p["dst"], timeout, payload)
            if got is not None:
                sizes.append(got)
        s.close()
        results.append({"sent": int(p["count"]), "replies": len(sizes),
                        "sizes": sizes})
    json.dump({"results": results}, sys.stdout)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--ping", action="store_true")
    args = ap.parse_args()
    if args.json:
        return json_mode()
    if args.ping:
        return ping_mode()
    ap.error("give --json or --ping")
    return 2


if __name__ == "__main__":
    sys.exit(main())
