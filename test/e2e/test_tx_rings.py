#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The largest Tx ring the port offers, with multi-segment frames: the
port starts with its Tx queue running and two-segment frames go out,
counted exactly. The ring is the most descriptors `show port info`
allows; a ConnectX sizes a send queue in 64-byte blocks (libmlx5:
control and Ethernet segments, 16 bytes per SGE, at most max_qp_wr
blocks), so a queue of multi-segment work requests holds fewer of them
than one of single-segment ones: a driver that asks libmlx5 for the full
ring of multi-segment WRs gets EINVAL and the queue does not start (the
model mode runs this on libmlx5 itself)."""

import time

import vsteer_e2e as e2e


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                        app=["--forward-mode=txonly",
                             "--tx-offloads=0x8000"]) as tp:
        info = tp.port_info()
        e2e.check(info["max_txd"] and info["max_txd"] >= 1024,
                  "the port offers %s Tx descriptors", info["max_txd"])
        tp.cmd("port stop 0")
        tp.cmd("port config all txd %d" % info["max_txd"])
        out = tp.cmd("port start 0")
        e2e.check("Fail" not in out and "fail" not in out,
                  "port start with %d Tx descriptors: %s", info["max_txd"],
                  out)
        out = tp.cmd("show txq info 0 0")
        e2e.check("Tx queue state: started" in out,
                  "Tx queue of %d descriptors, multi-segment, not started:"
                  "\n%s", info["max_txd"], out)
        e2e.check("multi-segment" in out, "no multi-segment queue:\n%s", out)
        base = net.host_stats()
        tp.cmd("set txpkts 64,64")
        tp.cmd("start")
        time.sleep(0.5)
        tp.cmd("stop")
        tp.reap_tx(1)
        stats = tp.port_stats()
        end = net.host_stats()
        e2e.log("%d Tx descriptors: port %s, interface %s"
                % (info["max_txd"], stats, end))
        sent = end["tx_packets"] - base["tx_packets"] + \
            end["tx_dropped"] - base["tx_dropped"]
        e2e.check(stats["tx_packets"] > 100, "two-segment frames did not go "
                  "out: %d", stats["tx_packets"])
        e2e.check_eq(stats["tx_packets"], sent, "TX-packets against the "
                     "interface")
        e2e.check_eq(stats["tx_bytes"], 128 * stats["tx_packets"],
                     "TX-bytes of 128-byte frames")
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
