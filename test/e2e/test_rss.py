#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""RSS over 4 queues: every packet lands on the queue that the Toeplitz
hash of its fields, with the port's own key and indirection table,
predicts; the hash testpmd reports (when the port delivers one) is the
one computed here. Checked with the port's default hash types, then with
UDP ports hashed too when the port offers it."""

import collections

import vsteer_e2e as e2e
from toeplitz import ipv4_input, reta_queue, toeplitz_hash

QUEUES = 4
FLOWS = 32
MAC_PREFIX = "02:76:73:00"


def flow_mac(phase, i):
    return "%s:%02x:%02x" % (MAC_PREFIX, phase, i)


def flows(phase):
    """(src, dst, sport, dport): phase 1 varies everything, phase 2 only
    the ports (so only an L4 hash can spread them)."""
    out = []
    for i in range(FLOWS):
        if phase == 1:
            out.append(("192.0.2.%d" % (1 + (i * 7) % 250),
                        "198.51.100.%d" % (1 + (i * 13) % 250),
                        1000 + i * 17, 2000 + i * 31))
        else:
            out.append(("192.0.2.1", "198.51.100.1",
                        1000 + i * 17, 2000 + i * 31))
    return out


def hash_fields(functions):
    """What the port hashes for an IPv4/UDP packet, from testpmd's list."""
    if "ipv4-udp" in functions:
        return "l4"
    if "ipv4" in functions or "ipv4-other" in functions:
        return "l3"
    raise AssertionError("port hashes neither ipv4 nor ipv4-udp: %s"
                         % " ".join(functions))


def run_phase(tp, net, phase, port_mac, reta_size):
    from scapy.all import IP, UDP, Ether, Raw

    functions, key = tp.rss_conf()
    e2e.check(functions, "RSS disabled with %d queues", QUEUES)
    e2e.check(key, "no RSS key shown")
    reta = tp.reta(reta_size)
    e2e.check(all(0 <= q < QUEUES for q in reta),
              "RETA points outside the %d queues: %s", QUEUES, reta)
    # A query of the first entries only is valid too.
    head = e2e.parse.reta(tp.cmd("show port 0 rss reta 4 (0xf)"), 4)
    e2e.check_eq(head, reta[:4], "show port 0 rss reta 4 (0xf)")
    mode = hash_fields(functions)
    e2e.log("phase %d: hash %s (%s), key %s, reta %s..." %
            (phase, mode, " ".join(functions), key.hex(), reta[:16]))

    frames = []
    expect = {}
    for i, (src, dst, sport, dport) in enumerate(flows(phase)):
        data = ipv4_input(src, dst, *((sport, dport) if mode == "l4" else ()))
        h = toeplitz_hash(key, data)
        expect[flow_mac(phase, i)] = (h, reta_queue(reta, h))
        frames.append(bytes(Ether(src=flow_mac(phase, i), dst=port_mac) /
                            IP(src=src, dst=dst) /
                            UDP(sport=sport, dport=dport) /
                            Raw(b"r" * 40)))
    predicted = collections.Counter(q for _, q in expect.values())
    e2e.check(len(predicted) >= 2,
              "test data too weak: all flows predicted on one queue %s",
              predicted)

    start = len(tp.transcript)
    base = tp.port_stats()["rx_packets"]
    tp.cmd("start")
    net.exchange(frames, expect=None, timeout=0.2)
    stats = tp.wait_rx(base + len(frames))
    tp.settle(0.5)
    tp.cmd("stop")
    e2e.check_eq(stats["rx_packets"] - base, len(frames), "RX-packets")

    seen = {}
    for pkt in e2e.parse.rx_dump(tp.transcript[start:]):
        if pkt.src in expect:
            e2e.check(pkt.src not in seen, "flow %s received twice", pkt.src)
            seen[pkt.src] = pkt
    e2e.check_eq(len(seen), len(frames), "packets in the verbose dump")
    wrong = []
    for mac, (h, q) in sorted(expect.items()):
        pkt = seen[mac]
        if pkt.queue != q or (pkt.rss_hash is not None and pkt.rss_hash != h):
            wrong.append("%s: queue %d hash %s, predicted queue %d hash "
                         "0x%08x" % (mac, pkt.queue,
                                     "none" if pkt.rss_hash is None
                                     else "0x%08x" % pkt.rss_hash, q, h))
    e2e.check(not wrong, "%d of %d packets off prediction:\n  %s",
              len(wrong), len(frames), "\n  ".join(wrong))
    hashes = sum(1 for p in seen.values() if p.rss_hash is not None)
    e2e.log("phase %d: %d packets on queues %s as predicted, %d with the "
            "RSS hash in the mbuf" % (phase, len(frames),
                                      dict(sorted(predicted.items())),
                                      hashes))
    return predicted


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), rxq=QUEUES, txq=QUEUES,
                        testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        e2e.check_eq(info["driver"], "net_vsteer", "driver name")
        e2e.check_eq(info["rx_queues"], QUEUES, "Rx queues")
        e2e.check(info["reta_size"], "port reports no redirection table")
        tp.cmd("set verbose 1")
        total = collections.Counter(run_phase(tp, net, 1, info["mac"],
                                              info["reta_size"]))
        if "ipv4-udp" in info["rss_offload_types"]:
            out = tp.cmd("port config all rss udp")
            e2e.check("fail" not in out.lower(),
                      "port config all rss udp: %s", out.strip())
            total += run_phase(tp, net, 2, info["mac"], info["reta_size"])
        else:
            e2e.skip_part("the port offers no ipv4-udp hashing: L4 phase")
        # Per-queue counters, when the port fills them, agree.
        xstats = tp.xstats()
        if "rx_q0_packets" in xstats:
            for q in range(QUEUES):
                e2e.check_eq(xstats.get("rx_q%d_packets" % q), total[q],
                             "xstat rx_q%d_packets" % q)
        else:
            e2e.skip_part("the port fills no per-queue xstats")
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
