#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The port's MTU is the interface's: testpmd's `port config mtu` changes
the veth end (a 1614-byte frame the kernel dropped before comes through
after), a value beyond the device's maximum is refused and changes
nothing, one beyond the Rx buffers is refused naming the scatter offload
(on a running port at once, on a stopped one at the start, which then
leaves the interface as it was), and a jumbo MTU configured at start (--max-pkt-len) is on the
interface once the port runs. testpmd's port info shows what the
interface says: link speed and duplex (ethtool of the veth), the largest
frame (max MTU 9978 + 22), the device's firmware version."""

import vsteer_e2e as e2e


def udp_frame(src, dst, size, tag):
    from scapy.all import IP, UDP, Ether, Raw

    pkt = Ether(src=src, dst=dst) / IP(src="192.0.2.1", dst="198.51.100.1") \
        / UDP(sport=1000 + tag, dport=2000)
    return bytes(pkt / Raw(bytes([tag]) * (size - len(pkt))))


def main(args):
    with e2e.VethNs() as net:
        with e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                         app=["--forward-mode=io"]) as tp:
            info = tp.port_info()
            e2e.log("port info %s" % info)
            e2e.check_eq(info["link"], "up", "link status")
            # veth_get_link_ksettings: 10000 Mb/s, full duplex.
            e2e.check_eq(info["speed"], "10 Gbps", "link speed")
            e2e.check_eq(info["duplex"], "full-duplex", "duplex")
            e2e.check_eq(info["firmware"], e2e.firmware(), "firmware")
            e2e.check_eq(info["max_rx_pktlen"], 9978 + 22,
                         "largest frame (jumbo MTU 9978)")
            e2e.check_eq(info["mtu"], 1500, "MTU")
            e2e.check_eq(net.host_mtu(), 1500, "interface MTU")

            big = udp_frame(net.peer_mac, info["mac"], 1614, 1)
            net.set_mtu(1600)
            tp.cmd("start")
            # The veth end drops it (is_skb_forwardable): the peer's
            # send fails.
            back = net.exchange([big], expect=None, timeout=0.5,
                                send_errors_ok=True)
            tp.cmd("stop")
            e2e.check_eq(tp.port_stats()["rx_packets"], 0,
                         "1614 bytes through an MTU of 1500")
            e2e.check(big not in back, "echoed at MTU 1500")

            out = tp.cmd("port config mtu 0 1600")
            e2e.check("failed" not in out.lower(), "MTU 1600: %s" % out)
            e2e.check_eq(net.host_mtu(), 1600, "interface MTU after set")
            e2e.check_eq(tp.port_info()["mtu"], 1600, "port MTU")
            tp.cmd("start")
            back = net.exchange([big], expect=1, timeout=5.0)
            tp.cmd("stop")
            e2e.check(back.count(big) == 1,
                      "the 1614-byte frame came back (%d frames)"
                      % len(back))
            tp.reap_tx(1)
            stats = tp.port_stats()
            e2e.check_eq((stats["rx_packets"], stats["tx_packets"]), (1, 1),
                         "counted once each way")

            out = tp.cmd("port config mtu 0 9979")
            # ethdev refuses it against the device's max_mtu, named.
            e2e.check("max MTU (9978)" in out,
                      "MTU 9979 not refused with the limit: %r" % out)
            e2e.check_eq(net.host_mtu(), 1600, "interface MTU unchanged")

            # Beyond testpmd's 2048-byte mbufs: refused, saying that
            # scatter is the way.
            out = tp.cmd("port config mtu 0 3000")
            e2e.check("enable the Rx scatter offload" in out,
                      "MTU 3000 not refused naming scatter: %r" % out)
            e2e.check_eq(net.host_mtu(), 1600, "interface MTU unchanged")
            # Stopped, the port takes it; the start fails for the same
            # reason and leaves the interface as it was.
            tp.cmd("port stop 0")
            tp.cmd("port config mtu 0 3000")
            out = tp.cmd("port start 0")
            e2e.check("enable the Rx scatter offload" in out and
                      "Fail to start port 0" in out,
                      "start at MTU 3000 did not fail naming scatter: %r"
                      % out)
            e2e.check_eq(net.host_mtu(), 1600,
                         "interface MTU after the failed start")
            tp.cmd("port config mtu 0 1600")
            out = tp.cmd("port start 0")
            e2e.check("Fail" not in out, "start at MTU 1600: %r" % out)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")

        # Jumbo frames, the MTU configured before start.
        net.set_mtu(9000)
        with e2e.Testpmd(args.pmd, net.vdev(), testpmd=args.testpmd,
                         mbufs=4096,
                         app=["--forward-mode=io", "--max-pkt-len=9022",
                              "--mbuf-size=9300"]) as tp:
            e2e.check_eq(tp.port_info()["mtu"], 9000, "port MTU")
            e2e.check_eq(net.host_mtu(), 9000, "interface MTU at start")
            jumbo = udp_frame(net.peer_mac, tp.port_info()["mac"], 9014, 2)
            tp.cmd("start")
            back = net.exchange([jumbo], expect=1, timeout=5.0)
            tp.cmd("stop")
            e2e.check(back.count(jumbo) == 1,
                      "the 9014-byte frame came back (%d frames)"
                      % len(back))
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
