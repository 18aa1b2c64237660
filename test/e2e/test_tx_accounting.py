#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Nothing is lost silently on Tx: testpmd's txonly engine sends 1800-byte
frames (over the 1500 MTU) for a while, then 64-byte frames. The long
ones are dropped before the device and counted as errors; the short ones
go out at once. The port's TX-packets equals what the veth end took
(its tx_packets + tx_dropped), exactly. Then the interface's MTU is
lowered behind the port's back: the device fails each frame it can no
longer carry (the send queue goes to error and is reset at the next
burst), and when the MTU comes back the frames flow again at once; the
count is still exact."""

import time

import vsteer_e2e as e2e


def reached(before, after):
    """Frames the veth end took from us: sent on, or dropped by it."""
    return (after["tx_packets"] - before["tx_packets"]) + \
        (after["tx_dropped"] - before["tx_dropped"])


def phase(tp, size, seconds):
    tp.cmd("set txpkts %d" % size)
    tp.cmd("start")
    time.sleep(seconds)
    tp.cmd("stop")
    tp.reap_tx(1)


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                        app=["--forward-mode=txonly"]) as tp:
        base = net.host_stats()
        phase(tp, 1800, 1.0)
        mid = net.host_stats()
        stats = tp.port_stats()
        e2e.log("after 1800-byte frames: port %s, interface %s"
                % (stats, mid))
        e2e.check_eq(stats["tx_packets"], 0, "1800-byte frames sent")
        e2e.check(stats["tx_errors"] > 0, "no frame refused")
        e2e.check_eq(reached(base, mid), 0, "frames on the interface")
        errors_long = stats["tx_errors"]

        phase(tp, 64, 1.0)
        after = net.host_stats()
        stats = tp.port_stats()
        xs = tp.xstats()
        e2e.log("after 64-byte frames: port %s, interface %s"
                % (stats, after))
        e2e.check(stats["tx_packets"] > 1000,
                  "64-byte frames did not go out: %d" % stats["tx_packets"])
        e2e.check_eq(stats["tx_packets"], reached(base, after),
                     "TX-packets against the interface")
        e2e.check_eq(stats["tx_bytes"], 64 * stats["tx_packets"], "TX-bytes")
        e2e.check_eq(stats["tx_errors"], errors_long, "no error at 64 bytes")
        e2e.check_eq(xs.get("tx_q0_dropped_packets"), errors_long,
                     "dropped before the device")
        e2e.check_eq(xs.get("tx_q0_completion_errors"), 0,
                     "nothing failed in the device")

        # The interface's MTU drops under the port: the device refuses
        # 1400-byte frames it would still have taken. (Not below 1280:
        # the kernel would bring IPv6 back on the interface, and its
        # own frames with it.)
        net.set_mtu(1300, which="host")
        sent_before = stats["tx_packets"]
        phase(tp, 1400, 0.5)
        net.set_mtu(1500, which="host")
        stats = tp.port_stats()
        xs = tp.xstats()
        e2e.log("after the MTU drop: port %s, xstats resets %s"
                % (stats, xs.get("tx_q0_send_queue_resets")))
        e2e.check_eq(stats["tx_packets"], sent_before,
                     "1400-byte frames counted as sent over MTU 1300")
        e2e.check(xs.get("tx_q0_completion_errors", 0) > 0,
                  "the device failed none")
        e2e.check(xs.get("tx_q0_send_queue_resets", 0) > 0,
                  "the send queue was never reset")
        phase(tp, 64, 0.5)
        end = net.host_stats()
        stats = tp.port_stats()
        e2e.check(stats["tx_packets"] > sent_before + 1000,
                  "the queue did not recover: %d sent after"
                  % (stats["tx_packets"] - sent_before))
        e2e.check_eq(stats["tx_packets"], reached(base, end),
                     "TX-packets against the interface, in the end")
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
