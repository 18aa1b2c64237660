#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The port offloads the verbs API reaches, in Debian's testpmd on
softverbs (mlx5 profile) over a veth pair, scapy on the peer:

- Rx timestamps (`--enable-rx-timestamp`): testpmd lists TIMESTAMP among
  the port's Rx offloads, and its verbose dump shows a timestamp on each
  frame, in the device clock (1 GHz on softverbs, hca_core_clock on the
  modelled ConnectX-5), growing by the gaps between the peer's sends;
- TCP segmentation (`tso set 1400 0` with the csum engine): a 5000-byte
  TCP payload the peer sends on a jumbo MTU comes back cut into 1400-byte
  frames whose sequence numbers, IPv4 lengths and ids, flags and
  checksums are right, carrying the payload in order."""

import re

import vsteer_e2e as e2e

TS = re.compile(r" - timestamp (\d+) ")


def tcp_frame(src, dst, payload, flags="PA"):
    from scapy.all import IP, TCP, Ether, Raw

    return bytes(Ether(src=src, dst=dst)
                 / IP(src="192.0.2.1", dst="198.51.100.1", id=100)
                 / TCP(sport=40000, dport=80, seq=1000, flags=flags)
                 / Raw(payload))


def check_timestamps(args, net):
    with e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                     app=["--forward-mode=rxonly",
                          "--enable-rx-timestamp"]) as tp:
        out = tp.cmd("show port 0 rx_offload capabilities")
        e2e.check("TIMESTAMP" in out, "no TIMESTAMP Rx offload: %s", out)
        mac = tp.port_info()["mac"]
        tp.cmd("set verbose 1")
        frames = [tcp_frame(net.peer_mac, mac, bytes([i]) * 20)
                  for i in range(5)]
        start = len(tp.transcript)
        tp.cmd("start")
        net.exchange(frames, expect=None, timeout=0.2, gap=0.2)
        tp.settle(0.5)
        tp.cmd("stop")
        stamps = [int(t) for t in TS.findall(tp.transcript[start:])]
        e2e.check_eq(len(stamps), 5, "frames with a timestamp")
        gaps = [b - a for a, b in zip(stamps, stamps[1:])]
        # 200 ms apart on the device clock (1 GHz on softverbs); the
        # peer's own timing is loose.
        hz = e2e.device_clock_hz()
        e2e.check(all(0.1 * hz < g < 1.0 * hz for g in gaps),
                  "timestamp gaps %s for frames sent 200 ms apart on a "
                  "%g Hz clock", gaps, hz)
        e2e.log("Rx timestamps %s, gaps %s" % (stamps, gaps))
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def check_tso(args, net):
    from scapy.all import IP, TCP, Ether

    net.set_mtu(9000)
    with e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                     mbufs=4096,
                     app=["--forward-mode=csum", "--max-pkt-len=9022",
                          "--mbuf-size=9300"]) as tp:
        out = tp.cmd("show port 0 tx_offload capabilities")
        e2e.check("TCP_TSO" in out, "no TCP_TSO Tx offload: %s", out)
        mac = tp.port_info()["mac"]
        tp.cmd("port stop 0")
        for c in ("csum set ip hw 0", "csum set tcp hw 0",
                  "tso set 1400 0"):
            out = tp.cmd(c)
            e2e.check("not supported" not in out.lower(), "%s: %s", c, out)
        tp.cmd("port start 0")
        payload = bytes((i * 7 + 3) & 0xff for i in range(5000))
        tp.cmd("start")
        back = net.exchange([tcp_frame(net.peer_mac, mac, payload, "FPA")],
                            expect=4, timeout=5.0)
        tp.cmd("stop")
        segs = [Ether(b) for b in back if TCP in Ether(b)]
        e2e.check_eq(len(segs), 4, "frames back (5000 bytes by 1400)")
        got = b""
        for i, s in enumerate(segs):
            pay = bytes(s[TCP].payload)
            e2e.check_eq(len(pay), 1400 if i < 3 else 800,
                         "frame %d payload" % i)
            e2e.check_eq(s[TCP].seq, 1000 + 1400 * i, "frame %d seq" % i)
            e2e.check_eq(s[IP].len, 40 + len(pay), "frame %d IPv4 length"
                         % i)
            e2e.check_eq(s[IP].id, 100 + i, "frame %d IPv4 id" % i)
            e2e.check_eq(str(s[TCP].flags), "FPA" if i == 3 else "A",
                         "frame %d flags" % i)
            chk = s.copy()
            del chk[IP].chksum
            del chk[TCP].chksum
            chk = Ether(bytes(chk))
            e2e.check((chk[IP].chksum, chk[TCP].chksum) ==
                      (s[IP].chksum, s[TCP].chksum),
                      "frame %d checksums %#x %#x, want %#x %#x", i,
                      s[IP].chksum, s[TCP].chksum, chk[IP].chksum,
                      chk[TCP].chksum)
            got += pay
        e2e.check(got == payload, "the payload cut and put back differs")
        tp.reap_tx(1)
        stats = tp.port_stats()
        e2e.check_eq(stats["tx_packets"], 1, "one TSO packet sent")
        e2e.log("TSO: 4 frames %s" % [len(bytes(s)) for s in segs])
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def main(args):
    with e2e.VethNs() as net:
        check_timestamps(args, net)
        check_tso(args, net)


if __name__ == "__main__":
    e2e.run(main)
