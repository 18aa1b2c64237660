#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Differential test, in the model mode only: the same rte_flow rules,
typed in testpmd, and the same frames, once on Debian's own net_mlx5 PMD
(dv_flow_en=0: its verbs flow engine) and once on net_vsteer, both on the
modelled ConnectX-5 behind the same veth end. Every frame must land the
same way under both: delivered or dropped, on the same queue, with the
same MARK or FLAG; and every rule must count the same hits and bytes.

The rules: queue by TCP port and by IPv4 destination, RSS over two
queues with an explicit key, DROP, MARK and FLAG, and two overlapping
rules of different priorities. Left out, because the two PMDs may differ
there and both be right: RSS over a queue count that is no power of two
(each PMD fills its indirection table its own way) and the frames no rule
takes (each PMD's default RSS key and hash types).

Then net_mlx5 forwards (io mode): its own send WQEs, through the model,
bring every frame back to the peer unchanged.

net_mlx5 runs with rxq_cqe_comp_en=0: the model writes no compressed
CQEs (doc/mlx5-model.md)."""

import collections
import logging

import vsteer_e2e as e2e

QUEUES = 4
MAC_PREFIX = "02:76:78"
PCI = "0000:10:00.0"
MLX5_ARGS = "dv_flow_en=0,rxq_cqe_comp_en=0"
KEY = ("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
       "6a42b73bbeac01fa")
RSS = "rss queues 2 3 end types ipv4-udp end key %s" % KEY

# class -> (testpmd rule after "flow create 0 ingress", frames)
RULES = collections.OrderedDict([
    ("web", ("pattern eth / ipv4 / tcp dst is 80 / end actions queue "
             "index 1 / count / end", 12)),
    ("dns", ("pattern eth / ipv4 dst is 10.0.0.53 / udp / end actions "
             "queue index 2 / count / end", 10)),
    ("stream", ("pattern eth / ipv4 / udp dst is 4000 / end actions %s / "
                "count / end" % RSS, 24)),
    ("bad", ("pattern eth / ipv4 src is 10.9.9.9 / end actions drop / "
             "count / end", 8)),
    ("tls", ("pattern eth / ipv4 / tcp dst is 443 / end actions mark id "
             "443 / queue index 3 / count / end", 10)),
    ("flag", ("pattern eth / ipv4 / udp dst is 5000 / end actions flag / "
              "queue index 0 / count / end", 8)),
    ("hi", ("priority 0 pattern eth / ipv4 dst is 198.51.100.77 / udp dst "
            "is 6000 / end actions queue index 1 / count / end", 8)),
    ("lo", ("priority 1 pattern eth / ipv4 dst is 198.51.100.77 / end "
            "actions queue index 2 / count / end", 8)),
])


def src_mac(cls, i):
    return "%s:de:%02x:%02x" % (MAC_PREFIX, list(RULES).index(cls), i)


def build(cls, i, dst_mac):
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import ICMP, IP, TCP, UDP, Ether, Raw

    eth = Ether(src=src_mac(cls, i), dst=dst_mac)
    client = "192.0.2.%d" % (10 + i * 7 % 240)
    server = "198.51.100.%d" % (1 + i % 4)
    sport = 30000 + i * 111
    pay = Raw(b"d" * (20 + 5 * i))
    if cls == "web":
        return eth / IP(src=client, dst=server) / TCP(sport=sport, dport=80)
    if cls == "dns":
        return eth / IP(src=client, dst="10.0.0.53") / \
            UDP(sport=sport, dport=53) / pay
    if cls == "stream":
        return eth / IP(src=client, dst=server) / \
            UDP(sport=sport, dport=4000) / pay
    if cls == "bad":
        return eth / IP(src="10.9.9.9", dst=server) / \
            [TCP(sport=sport, dport=22), UDP(sport=sport, dport=161),
             ICMP(id=i)][i % 3] / pay
    if cls == "tls":
        return eth / IP(src=client, dst=server) / \
            TCP(sport=sport, dport=443, flags="PA") / pay
    if cls == "flag":
        return eth / IP(src=client, dst=server) / \
            UDP(sport=sport, dport=5000) / pay
    # hi: UDP/6000 to the address both rules match (the priority 0 rule
    # wins); lo: other traffic to it (only the priority 1 rule matches).
    l4 = UDP(sport=sport, dport=6000) if cls == "hi" else \
        [UDP(sport=sport, dport=7000), TCP(sport=sport, dport=6000)][i % 2]
    return eth / IP(src=client, dst="198.51.100.77") / l4 / pay


def run_pmd(net, what, args):
    """The rules and the frames on one PMD: {src MAC: (queue, MARK, FLAG
    or MARK)} of what arrived, and each rule's (hits, bytes)."""
    if what == "net_mlx5":
        tp_args = dict(pmd=None, vdev=None, pci="%s,%s" % (PCI, MLX5_ARGS))
    else:
        tp_args = dict(pmd=args.pmd,
                       vdev=net.vdev(extra="flow_engine=verbs"))
    testpmd = args.testpmd
    with e2e.Testpmd(rxq=QUEUES, txq=QUEUES, mbufs=32768, testpmd=testpmd,
                     app=["--forward-mode=rxonly"], **tp_args) as tp:
        info = tp.port_info()
        ids = {cls: tp.flow_create("0 ingress " + rule)
               for cls, (rule, _) in RULES.items()}
        frames = [bytes(build(cls, i, info["mac"]))
                  for cls, (_, n) in RULES.items() for i in range(n)]
        tp.cmd("set verbose 1")
        want = sum(n for cls, (_, n) in RULES.items() if cls != "bad")
        pkts = tp.rx_traffic(net, frames, want)
        tp.cmd("set verbose 0")
        got = {}
        for p in pkts:
            e2e.check(p.src not in got, "%s: %s arrived twice", what, p.src)
            got[p.src] = (p.queue, p.fdir_id if p.fdir_matched else None,
                          p.fdir_matched)
        counts = {cls: (q["hits"], q["bytes"]) for cls, q in
                  ((c, tp.flow_count(r)) for c, r in ids.items())}
        e2e.check_eq(tp.quit(), 0, "%s: testpmd exit status" % what)
    e2e.log("%s: %d frames sent, %d arrived; counts %s"
            % (what, len(frames), len(got), counts))
    return got, counts


def echo_mlx5(net, args):
    """net_mlx5 in io mode: what the peer sends comes back."""
    from scapy.all import IP, UDP, Ether, Raw

    with e2e.Testpmd(None, None, pci="%s,%s" % (PCI, MLX5_ARGS),
                     mbufs=32768, testpmd=args.testpmd,
                     app=["--forward-mode=io"]) as tp:
        mac = tp.port_info()["mac"]
        frames = [bytes(Ether(src=net.peer_mac, dst=mac) /
                        IP(src="192.0.2.1", dst="192.0.2.2") /
                        UDP(sport=1000 + i, dport=2000) /
                        Raw(b"e" * (20 + 37 * i))) for i in range(32)]
        tp.cmd("start")
        back = net.exchange(frames, expect=len(frames), timeout=5.0)
        tp.cmd("stop")
        tp.reap_tx(1)
        stats = tp.port_stats()
        e2e.check_eq(sum(1 for f in frames if f in back), len(frames),
                     "frames net_mlx5 sent back")
        e2e.check_eq((stats["rx_packets"], stats["tx_packets"]),
                     (len(frames), len(frames)), "net_mlx5 Rx, Tx packets")
        e2e.check_eq(tp.quit(), 0, "net_mlx5 io: testpmd exit status")


def main(args):
    if not e2e.model_mode():
        raise e2e.Skip("net_mlx5 runs on the modelled device only: "
                       "give --model")
    with e2e.VethNs() as net:
        mlx5, mlx5_counts = run_pmd(net, "net_mlx5", args)
        vsteer, vsteer_counts = run_pmd(net, "net_vsteer", args)
        echo_mlx5(net, args)
    wrong = []
    for cls, (_, n) in RULES.items():
        for i in range(n):
            mac = src_mac(cls, i)
            a, b = mlx5.get(mac), vsteer.get(mac)
            if a != b:
                wrong.append("%s (%s): net_mlx5 %s, net_vsteer %s"
                             % (mac, cls, a, b))
        if mlx5_counts[cls] != vsteer_counts[cls]:
            wrong.append("rule %s: net_mlx5 counts %s, net_vsteer %s"
                         % (cls, mlx5_counts[cls], vsteer_counts[cls]))
    e2e.check(not wrong, "%d differences:\n  %s", len(wrong),
              "\n  ".join(wrong))
    # Agreeing is not enough: the rules did what they say.
    queues = collections.Counter(q for q, _, _ in mlx5.values())
    e2e.check_eq(len(mlx5), sum(n for c, (_, n) in RULES.items()
                                if c != "bad"), "frames delivered")
    e2e.check(queues[2] > 0 and queues[3] > 0, "RSS over 2 and 3: %s",
              dict(queues))
    e2e.check_eq(mlx5_counts["bad"][0], RULES["bad"][1], "dropped, counted")
    e2e.check(all(mlx5[src_mac("tls", i)][1] == 443
                  for i in range(RULES["tls"][1])), "MARK 443")
    e2e.check(all(mlx5[src_mac("hi", i)][0] == 1
                  for i in range(RULES["hi"][1])), "the priority 0 rule")
    e2e.log("the same %d frames, the same landing under net_mlx5 and "
            "net_vsteer; per queue %s" % (len(mlx5), dict(queues)))


if __name__ == "__main__":
    e2e.run(main)
