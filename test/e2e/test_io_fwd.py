#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""io forwarding over a veth: testpmd counts and echoes exactly what the
peer sent, byte for byte, over 4 Rx/Tx queues."""

import collections

import vsteer_e2e as e2e

QUEUES = 4


def frames_for(src, dst):
    from scapy.all import ICMP, IP, TCP, UDP, Dot1Q, Ether, Raw

    eth = Ether(src=src, dst=dst)
    frames = []
    # Sizes from the minimum frame to a full 1500-byte MTU, several
    # protocols, distinct flows so that RSS may use every queue.
    for i in range(48):
        payload = Raw(bytes([i]) * (18 + (i * 97) % 1400))
        ip = IP(src="192.0.2.%d" % (1 + i), dst="198.51.100.%d" % (1 + i % 7))
        kind = i % 4
        if kind == 0:
            pkt = eth / ip / UDP(sport=1024 + i, dport=4000 + i) / payload
        elif kind == 1:
            pkt = eth / ip / TCP(sport=2048 + i, dport=80, flags="S") / payload
        elif kind == 2:
            pkt = eth / ip / ICMP(id=i, seq=i) / payload
        else:
            pkt = Ether(src=src, dst=dst) / Dot1Q(vlan=10 + i) / ip / \
                UDP(sport=3000 + i, dport=53) / payload
        frames.append(bytes(pkt))
    frames.append(bytes(eth / IP(src="192.0.2.99", dst="198.51.100.99") /
                        UDP(sport=9, dport=9) / Raw(b"x" * 1472)))
    frames.append(bytes(eth / IP(src="192.0.2.98", dst="198.51.100.98") /
                        UDP(sport=9, dport=9) / Raw(b"y" * 18)))
    return frames


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), rxq=QUEUES, txq=QUEUES,
                        testpmd=args.testpmd,
                        app=["--forward-mode=io"]) as tp:
        info = tp.port_info()
        e2e.check_eq(info["driver"], "net_vsteer", "driver name")
        e2e.check_eq(info["rx_queues"], QUEUES, "Rx queues")
        frames = frames_for(net.peer_mac, info["mac"])
        e2e.check(min(len(f) for f in frames) >= 60, "runt frame in the mix")
        want_bytes = sum(len(f) for f in frames)

        before = tp.port_stats()
        e2e.check_eq((before["rx_packets"], before["tx_packets"]), (0, 0),
                     "counters before traffic")
        tp.cmd("start")
        echoes = net.exchange(frames, expect=len(frames), timeout=10.0)
        stats = tp.wait_rx(len(frames))
        tp.cmd("stop")
        tp.reap_tx(QUEUES)
        stats = tp.port_stats()
        xstats = tp.xstats()
        e2e.log("port stats %s" % stats)

        e2e.check_eq(stats["rx_packets"], len(frames), "RX-packets")
        e2e.check_eq(stats["rx_bytes"], want_bytes, "RX-bytes")
        e2e.check_eq(stats["tx_packets"], len(frames), "TX-packets")
        e2e.check_eq(stats["tx_bytes"], want_bytes, "TX-bytes")
        e2e.check_eq(stats["rx_errors"] + stats["rx_missed"]
                     + stats["rx_nombuf"] + stats["tx_errors"], 0,
                     "error counters")
        e2e.check_eq(xstats.get("rx_good_packets"), len(frames),
                     "xstat rx_good_packets")
        e2e.check_eq(xstats.get("tx_good_bytes"), want_bytes,
                     "xstat tx_good_bytes")
        # What came back is what was sent: same frames, same count.
        sent = collections.Counter(frames)
        back = collections.Counter(echoes)
        missing = sent - back
        extra = back - sent
        e2e.check(not missing and not extra,
                  "echoes differ: %d sent frames missing, %d unexpected "
                  "frames (of %d sent, %d received)",
                  sum(missing.values()), sum(extra.values()), len(frames),
                  len(echoes))
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
