#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Secondary processes on a running testpmd (the primary, on huge pages,
io forwarding over a veth with 2 Rx/Tx queues):

- dpdk-pdump attaches to the port while scapy frames go through; the RX
  capture holds exactly the frames the peer sent, the TX capture exactly
  the frames testpmd sent back, byte for byte;
- dpdk-proc-info --stats and --xstats show the port's counters: the same
  numbers testpmd shows, per queue too, and the device's wire counters
  (read by the primary for the secondary) equal to the frames on the wire;
- mp_client, a secondary of our own: statistics as above, flow rules
  refused with E_RTE_SECONDARY and a message naming the primary, stop,
  promiscuous mode, MTU and queue status refused with -ENOTSUP, bursts
  that move nothing; the primary goes on forwarding afterwards;
- dpdk-proc-info --stats-reset from the secondary resets the primary's
  counters, device counters included; the next traffic counts from 0.
"""

import collections
import errno
import logging
import os
import shutil

import testpmd_parse as parse
import vsteer_e2e as e2e

QUEUES = 2
E_RTE_SECONDARY = 1001


def frames_for(src, dst, n, tag):
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import IP, TCP, UDP, Ether, Raw

    out = []
    for i in range(n):
        ip = IP(src="192.0.2.%d" % (1 + i), dst="198.51.100.%d" % (1 + i % 5))
        payload = Raw(bytes([tag, i]) * (9 + (i * 37) % 500))
        l4 = UDP(sport=1024 + i, dport=4000 + i % 3) if i % 3 else \
            TCP(sport=2048 + i, dport=80, flags="S")
        out.append(bytes(Ether(src=src, dst=dst) / ip / l4 / payload))
    return out


def read_pcap(path):
    from scapy.all import rdpcap

    return [bytes(p) for p in rdpcap(path)]


def same_frames(got, want, what):
    missing = collections.Counter(want) - collections.Counter(got)
    extra = collections.Counter(got) - collections.Counter(want)
    e2e.check(not missing and not extra,
              "%s: %d frames missing, %d unexpected (%d wanted, %d got)",
              what, sum(missing.values()), sum(extra.values()), len(want),
              len(got))


def traffic(tp, net, frames, started=False):
    """Forward frames through testpmd; the peer gets every one back."""
    if not started:
        tp.cmd("start")
    echoes = net.exchange(frames, expect=len(frames), timeout=10.0)
    tp.wait_rx(len(frames))
    tp.cmd("stop")
    same_frames(echoes, frames, "frames echoed to the peer")


def check_stats_agree(st, pi, xs, what):
    """proc-info's statistics (pi) against testpmd's (st, xs)."""
    for key in ("rx_packets", "rx_bytes", "rx_errors", "rx_nombuf",
                "tx_packets", "tx_bytes", "tx_errors"):
        e2e.check_eq(pi[key], st[key], "%s: %s" % (what, key))
    for q in range(QUEUES):
        e2e.check_eq(pi["q_rx_packets"].get(q), xs["rx_q%d_packets" % q],
                     "%s: Rx queue %d packets" % (what, q))
        e2e.check_eq(pi["q_rx_bytes"].get(q), xs["rx_q%d_bytes" % q],
                     "%s: Rx queue %d bytes" % (what, q))
        e2e.check_eq(pi["q_tx_packets"].get(q), xs["tx_q%d_packets" % q],
                     "%s: Tx queue %d packets" % (what, q))


def main(args):
    for tool in (args.proc_info, args.pdump, args.client):
        # The same package as testpmd (dpdk), or built here: never a skip.
        if shutil.which(tool) is None:
            raise RuntimeError("%s not found" % tool)
    pmd = e2e.loadable_pmd(args.pmd)
    work = e2e.private_dir()
    rx_pcap = os.path.join(work, "rx.pcap")
    tx_pcap = os.path.join(work, "tx.pcap")
    with e2e.Hugepages(256) as huge, e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), rxq=QUEUES, txq=QUEUES,
                        testpmd=args.testpmd, huge_dir=huge.dir,
                        app=["--forward-mode=io"]) as tp:
        info = tp.port_info()
        e2e.check_eq(info["driver"], "net_vsteer", "driver name")
        sec = ["--file-prefix", tp.prefix, "-d", pmd, "--no-pci",
               "--log-level=pmd.net.vsteer*:info"]
        # The secondaries number the mempool drivers as testpmd does.
        preload = e2e.mempool_preload(args.testpmd)
        env = ["env", "LD_PRELOAD=" + ":".join(preload)] if preload else []
        e2e.log("secondaries preload %s" % (preload or "nothing"))

        # -- capture with dpdk-pdump while traffic goes through --------
        # Forwarding first: pdump hot-plugs its capture ports into the
        # primary too, and testpmd starts forwarding only when every
        # port is started.
        first = frames_for(net.peer_mac, info["mac"], 40, 1)
        tp.cmd("start")
        with e2e.Background([*env, args.pdump, *sec, "--", "--pdump",
                             "port=0,queue=*,rx-dev=%s,tx-dev=%s,"
                             "ring-size=1024,total-num-mbufs=2047"
                             % (rx_pcap, tx_pcap)], "dpdk-pdump") as pd:
            pd.wait_for(r"capture for \(\d+\) tuples", 60)
            e2e.check("attached in a secondary process" in pd.out,
                      "the port was not attached in dpdk-pdump")
            traffic(tp, net, first, started=True)
            # What the callbacks copied is in the rings: let it drain.
            tp.settle(0.5)
            e2e.check_eq(pd.stop(), 0, "dpdk-pdump exit status")
            dumped = parse.pdump_stats(pd.out)
        e2e.log("pdump: %s" % dumped)
        e2e.check_eq(dumped["dequeued"], 2 * len(first),
                     "frames pdump took from its rings")
        e2e.check_eq(dumped["transmitted"], 2 * len(first),
                     "frames pdump wrote to its captures")
        same_frames(read_pcap(rx_pcap), first, "RX capture")
        same_frames(read_pcap(tx_pcap), first, "TX capture")

        # -- counters from dpdk-proc-info ------------------------------
        st = tp.port_stats()
        xs = tp.xstats()
        e2e.check_eq((st["rx_packets"], st["tx_packets"]),
                     (len(first), len(first)), "testpmd RX/TX-packets")
        e2e.check(all(xs["rx_q%d_packets" % q] > 0 for q in range(QUEUES)),
                  "traffic on every Rx queue: %s" % xs)
        rc, out = e2e.run_secondary([*env, args.proc_info, *sec, "--",
                                     "--stats"])
        e2e.check_eq(rc, 0, "dpdk-proc-info --stats exit status")
        check_stats_agree(st, parse.proc_info_stats(out), xs,
                          "proc-info --stats")
        rc, out = e2e.run_secondary([*env, args.proc_info, *sec, "--",
                                     "--xstats"])
        e2e.check_eq(rc, 0, "dpdk-proc-info --xstats exit status")
        pxs = parse.xstats(out)
        e2e.check_eq(pxs, xs, "proc-info --xstats against testpmd's")
        for name in ("rx_wire_packets", "tx_wire_packets"):
            e2e.check_eq(pxs[name], len(first), "proc-info " + name)

        # -- what a secondary may do, and what it is refused -----------
        rc, out = e2e.run_secondary([*env, args.client, *sec,
                                     "--proc-type=secondary"])
        e2e.log("mp_client:\n" + out)
        e2e.check_eq(rc, 0, "mp_client exit status")
        kl = parse.key_lines(out)
        e2e.check("done" in kl, "mp_client did not finish")
        e2e.check_eq(kl["port"], ["0", "net_vsteer0", "net_vsteer"],
                     "mp_client port")
        stats = dict(zip(kl["stats"][1::2], map(int, kl["stats"][2::2])))
        e2e.check_eq(int(kl["stats"][0]), 0, "stats_get in a secondary")
        e2e.check_eq((stats["ipackets"], stats["opackets"],
                      stats["ibytes"], stats["obytes"], stats["imissed"]),
                     (st["rx_packets"], st["tx_packets"], st["rx_bytes"],
                      st["tx_bytes"], st["rx_missed"]),
                     "mp_client statistics")
        e2e.check_eq(kl["xstats"], ["0"], "xstats_get in a secondary")
        e2e.check_eq(kl["xstat"], xs, "mp_client xstats")
        e2e.check_eq(kl["link"], ["up"], "link as the primary sees it")
        for what in ("flow_validate", "flow_create"):
            words = kl[what]
            e2e.check(words[0] in ("-%d" % E_RTE_SECONDARY, "NULL") and
                      words[1] == str(E_RTE_SECONDARY) and
                      "managed by the primary process" in " ".join(words),
                      "%s in a secondary: %s" % (what, words))
        for what in ("dev_stop", "promiscuous_disable", "mtu_set",
                     "rx_queue_count"):
            e2e.check_eq(kl[what], [str(-errno.ENOTSUP)],
                         "%s in a secondary" % what)
        e2e.check_eq(kl["rx_burst"], ["0"], "Rx burst in a secondary")
        e2e.check_eq(kl["tx_burst"], ["0"], "Tx burst in a secondary")

        # -- a reset from a secondary; the primary goes on -------------
        rc, out = e2e.run_secondary([*env, args.proc_info, *sec, "--",
                                     "--stats-reset"])
        e2e.check_eq(rc, 0, "dpdk-proc-info --stats-reset exit status")
        xs = tp.xstats()
        e2e.check(all(v == 0 for v in xs.values()),
                  "counters after a reset from a secondary: %s"
                  % {k: v for k, v in xs.items() if v})
        second = frames_for(net.peer_mac, info["mac"], 24, 2)
        traffic(tp, net, second)
        st = tp.port_stats()
        xs = tp.xstats()
        e2e.check_eq((st["rx_packets"], st["tx_packets"]),
                     (len(second), len(second)), "counts after the reset")
        rc, out = e2e.run_secondary([*env, args.proc_info, *sec, "--",
                                     "--xstats"])
        e2e.check_eq(rc, 0, "dpdk-proc-info --xstats exit status")
        pxs = parse.xstats(out)
        e2e.check_eq(pxs, xs, "proc-info --xstats after the reset")
        e2e.check_eq(pxs["rx_wire_packets"], len(second),
                     "wire packets since the reset")
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--proc-info", default="dpdk-proc-info")
    ap.add_argument("--pdump", default="dpdk-pdump")
    ap.add_argument("--client", required=True,
                    help="the mp_client secondary built with the tests")


if __name__ == "__main__":
    e2e.run(main, tools=("ip", "mount", "umount"), options=options)
