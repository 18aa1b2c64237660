#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Indirect RSS in Debian's testpmd: one RSS action made with `flow
indirect_action 0 create ... action rss ...`, shared by two rules (`actions
indirect <id> / count / end`), then updated with `flow indirect_action 0
update <id> action rss ...`: new queues, then new types. After each step
every scapy frame of both rules lands on the queue the Toeplitz hash of
the port's key predicts among the action's queues of the moment; the rules
stay the same (IDs, counters that count every frame); an update the port
cannot take is refused and changes nothing; the action cannot be destroyed
while rules use it. --engine picks the flow_engine devarg."""

import collections

import vsteer_e2e as e2e
from toeplitz import ipv4_input, rss_action_queue, toeplitz_hash

QUEUES = 4
ACTION = 7
DSTS = ("198.51.100.10", "198.51.100.20")


def frames(mac, peer_mac, step, n=24):
    """n UDP flows to each destination: {source MAC: (dst, sport, dport)}
    and the frames. The source MAC carries the step and the flow."""
    from scapy.all import IP, UDP, Ether, Raw

    out, meta = [], {}
    for d, dst in enumerate(DSTS):
        for i in range(n):
            src_mac = "02:49:%02x:%02x:%02x:00" % (step, d, i)
            src = "192.0.2.%d" % (1 + (i * 7 + step * 3) % 250)
            sport, dport = 1024 + i * 131 + step, 4000 + i
            pkt = Ether(src=src_mac, dst=mac) / IP(src=src, dst=dst) / \
                UDP(sport=sport, dport=dport) / Raw(b"r" * 20)
            out.append(bytes(pkt))
            meta[src_mac.upper()] = (src, dst, sport, dport)
    return out, meta


def run_step(tp, net, info, key, step, queues, l4):
    """Send the step's frames; each on the queue the action predicts."""
    data, meta = frames(info["mac"], net.peer_mac, step)
    pkts = tp.rx_traffic(net, data, len(data))
    wrong, spread = [], collections.Counter()
    for p in pkts:
        if p.src.upper() not in meta:
            continue
        src, dst, sport, dport = meta.pop(p.src.upper())
        h = toeplitz_hash(key, ipv4_input(src, dst, *((sport, dport)
                                                      if l4 else ())))
        q = rss_action_queue(queues, h, info["reta_size"])
        spread[p.queue] += 1
        if p.queue != q:
            wrong.append("%s > %s %d > %d: queue %d, hash 0x%08x predicts %d"
                         % (src, dst, sport, dport, p.queue, h, q))
    e2e.check(not meta, "step %d: %d frames not received", step, len(meta))
    e2e.check(not wrong, "step %d: %d frames on the wrong queue:\n  %s",
              step, len(wrong), "\n  ".join(wrong))
    e2e.check(set(spread) <= set(queues) and len(spread) >= 2,
              "step %d: spread %s over %s", step, dict(spread), queues)
    e2e.log("step %d, queues %s (%s): %s" % (step, queues,
                                              "L4" if l4 else "L3",
                                              dict(sorted(spread.items()))))
    return len(data) // len(DSTS)


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd,
                        net.vdev(extra="flow_engine=" + args.engine),
                        rxq=QUEUES, txq=QUEUES, testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        _, key = tp.rss_conf()
        out = tp.cmd("flow indirect_action 0 create action_id %d ingress action rss "
                     "queues 1 2 end types ipv4-udp end / end" % ACTION)
        e2e.check("Indirect action #%d created" % ACTION in out,
                  "indirect RSS: %s", out)
        ids = [tp.flow_create("0 ingress pattern eth / ipv4 dst is %s / end "
                              "actions indirect %d / count / end"
                              % (dst, ACTION)) for dst in DSTS]
        tp.cmd("set verbose 1")
        sent = run_step(tp, net, info, key, 1, [1, 2], True)

        out = tp.cmd("flow indirect_action 0 update %d action rss queues 0 3 "
                     "end types ipv4-udp end / end" % ACTION)
        e2e.check("Indirect action #%d updated" % ACTION in out,
                  "update of the queues: %s", out)
        sent += run_step(tp, net, info, key, 2, [0, 3], True)

        out = tp.cmd("flow indirect_action 0 update %d action rss queues 0 2 "
                     "3 end types ipv4 end / end" % ACTION)
        e2e.check("Indirect action #%d updated" % ACTION in out,
                  "update of the types: %s", out)
        sent += run_step(tp, net, info, key, 3, [0, 2, 3], False)

        # Refused, nothing changed.
        err = tp.flow_refused("flow indirect_action 0 update %d action rss "
                              "queues 0 9 end / end" % ACTION)
        e2e.check("queue[1] index 9 out of range" in err.message,
                  "update with queue 9: %s", err)
        sent += run_step(tp, net, info, key, 4, [0, 2, 3], False)
        err = tp.flow_refused("flow indirect_action 0 destroy action_id %d"
                              % ACTION)
        e2e.check("indirect RSS still used by 2 flow(s)" in err.message,
                  "destroy while used: %s", err)

        # The same rules, counting all along.
        e2e.check_eq(sorted(r["id"] for r in tp.flow_list()), sorted(ids),
                     "rules")
        for rule in ids:
            e2e.check_eq(tp.flow_count(rule)["hits"], sent,
                         "rule %d hits" % rule)
        dump = tp.cmd("flow dump 0 rule %d" % ids[0])
        e2e.check("(indirect RSS)" in dump and "queues 0 2 3" in dump,
                  "flow dump: %s", dump)
        tp.cmd("set verbose 0")
        tp.cmd("flow flush 0")
        out = tp.cmd("flow indirect_action 0 destroy action_id %d" % ACTION)
        e2e.check("Indirect action #%d destroyed" % ACTION in out,
                  "destroy: %s", out)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["verbs", "dv"], default="verbs")


if __name__ == "__main__":
    e2e.run(main, options=options)
