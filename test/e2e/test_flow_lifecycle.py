#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The life of rte_flow rules in a real testpmd, with traffic at each
step.

- Rules created while the port is stopped (which a PMD may allow only
  with RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP) are kept, and take effect at
  `port start 0`; an indirect COUNT action counts for the two rules that
  share it.
- testpmd 22.11 flushes its rules itself when it stops a port
  (stop_port() calls rte_flow_flush() whatever the PMD keeps), so rules
  cannot outlive `port stop 0` there; what is checked is that no stale
  rule stays in the device after it, and that the indirect action, which
  testpmd keeps, survives the restart with its count and serves a new
  rule. Rules surviving stop/start are checked in-process
  (test_flow_ethdev.c), where the application does not flush them.
- `flow destroy` ends one rule's effect only.
- `flow isolate 0 true` on the stopped port: after the start only the
  rules' traffic arrives, the rest counts as unsteered; `flow isolate 0
  false` on the running port brings the default traffic back.
- An indirect action in use cannot be destroyed; `flow flush` leaves
  nothing in the device.
"""

import collections
import re

import vsteer_e2e as e2e

QUEUES = 4
MAC_PREFIX = "02:76:74"
HANDLE = 10

CLASSES = {           # frames per round
    "tcp80": 6,
    "drop": 4,        # from 10.9.9.9
    "udp53": 5,
    "udp54": 3,
    "other": 6,       # no rule ever takes these
}
ORDER = list(CLASSES)
QUEUE_OF = {"tcp80": 1, "udp53": 2, "udp54": 3}
RULE = {
    "tcp80": "eth / ipv4 / tcp dst is 80 / end actions queue index 1 / "
             "count / end",
    "drop": "eth / ipv4 src is 10.9.9.9 / end actions drop / count / end",
    "udp53": "eth / ipv4 / udp dst is 53 / end actions indirect %d / "
             "queue index 2 / end" % HANDLE,
    "udp54": "eth / ipv4 / udp dst is 54 / end actions indirect %d / "
             "queue index 3 / end" % HANDLE,
}


class Traffic:
    """Rounds of frames; the source MAC tells round, class and number
    apart in the verbose dump."""

    def __init__(self, dst_mac):
        self.dst = dst_mac
        self.round = 0
        self.bytes = {}                       # class -> bytes of a round

    def make(self, classes):
        from scapy.all import IP, TCP, UDP, Ether, Raw

        self.round += 1
        frames, cls_of = [], {}
        for cls in classes:
            size = 0
            for i in range(CLASSES[cls]):
                mac = "%s:%02x:%02x:%02x" % (MAC_PREFIX, self.round,
                                             ORDER.index(cls), i)
                src = "10.9.9.9" if cls == "drop" else \
                    "192.0.2.%d" % (1 + i * 29 % 250)
                l4 = {"tcp80": TCP(sport=2000 + i, dport=80),
                      "drop": UDP(sport=2000 + i, dport=9),
                      "udp53": UDP(sport=2000 + i, dport=53),
                      "udp54": UDP(sport=2000 + i, dport=54),
                      "other": UDP(sport=2000 + i, dport=7000)}[cls]
                frame = bytes(Ether(src=mac, dst=self.dst) /
                              IP(src=src, dst="198.51.100.%d" % (1 + i)) /
                              l4 / Raw(b"L" * (10 + 7 * i)))
                frames.append(frame)
                cls_of[mac] = cls
                size += len(frame)
            self.bytes[cls] = size
        return frames, cls_of


def run_round(tp, net, traffic, classes, arrive, queues):
    """Send a round of the classes; those in arrive must all arrive (on
    their rule's queue when queues names it), the others never."""
    frames, cls_of = traffic.make(classes)
    want = sum(CLASSES[c] for c in classes if c in arrive)
    got = collections.Counter()
    for p in tp.rx_traffic(net, frames, want):
        cls = cls_of.get(p.src)
        e2e.check(cls is not None, "unexpected frame from %s", p.src)
        e2e.check(cls in arrive, "round %d: %s frame %s arrived (queue %d)",
                  traffic.round, cls, p.src, p.queue)
        if cls in queues:
            e2e.check_eq(p.queue, queues[cls], "round %d: queue of %s frame"
                         % (traffic.round, cls))
        got[cls] += 1
    for cls in arrive:
        e2e.check_eq(got[cls], CLASSES[cls], "round %d: %s frames received"
                     % (traffic.round, cls))
    e2e.log("round %d: %s arrived, %s did not"
            % (traffic.round, dict(got),
               [c for c in classes if c not in arrive]))


def create(tp, cls):
    return tp.flow_create("0 ingress pattern " + RULE[cls])


def check_count(tp, rule, hits, nbytes, what):
    q = tp.flow_count(rule)
    e2e.check_eq((q["hits"], q["bytes"]), (hits, nbytes), what)


def check_indirect(tp, hits, nbytes, what):
    q = e2e.parse.indirect_count(tp.cmd("flow indirect_action 0 query %d"
                                        % HANDLE))
    e2e.check_eq((q["hits"], q["bytes"]), (hits, nbytes), what)


def check_ids(tp, what):
    """`flow dump 0 all` heads each rule with the ID `flow list 0` shows."""
    dump = tp.cmd("flow dump 0 all")
    dumped = sorted(int(i) for i in re.findall(r"^flow rule (\d+) ", dump,
                                               re.M))
    listed = sorted(r["id"] for r in tp.flow_list())
    e2e.check_eq(dumped, listed, "rule IDs in the dump, %s" % what)


def dump_flows(tp):
    """`flow dump 0 all`: (text, number of rte_flow rules in it)."""
    out = tp.cmd("flow dump 0 all")
    return out, len(re.findall(r"^flow rule \d+ \(handle 0x[0-9a-f]+\): ",
                               out, re.M))


def main(args):
    extra = "" if args.engine == "auto" else "flow_engine=" + args.engine
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd, net.vdev(extra=extra), rxq=QUEUES,
                        txq=QUEUES, testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        info = tp.port_info()
        traffic = Traffic(info["mac"])
        everything = list(CLASSES)
        tp.cmd("set verbose 1")

        # 1. Made on the stopped port, applied at start.
        tp.cmd("port stop 0")
        out = tp.cmd("flow indirect_action 0 create action_id %d ingress "
                     "action count / end" % HANDLE)
        e2e.check("Indirect action #%d created" % HANDLE in out,
                  "indirect COUNT action: %s", out)
        ids = {cls: create(tp, cls) for cls in RULE}
        check_ids(tp, "rules made")
        dump, n = dump_flows(tp)
        e2e.check_eq((n, dump.count("kept (port stopped)")),
                     (len(RULE), len(RULE)), "rules kept while stopped")
        tp.cmd("port start 0")
        dump, n = dump_flows(tp)
        e2e.check_eq((n, dump.count(", applied")), (len(RULE), len(RULE)),
                     "rules applied at start")
        run_round(tp, net, traffic, everything,
                  {"tcp80", "udp53", "udp54", "other"}, QUEUE_OF)
        check_count(tp, ids["tcp80"], CLASSES["tcp80"], traffic.bytes["tcp80"],
                    "rule tcp80 count")
        check_count(tp, ids["drop"], CLASSES["drop"], traffic.bytes["drop"],
                    "rule drop count")
        shared = (CLASSES["udp53"] + CLASSES["udp54"],
                  traffic.bytes["udp53"] + traffic.bytes["udp54"])
        check_indirect(tp, *shared, "indirect COUNT of two rules")
        e2e.check_eq(tp.xstats()["rx_rule_drop_packets"],
                     e2e.soft_xstat(CLASSES["drop"]),
                     "xstat rx_rule_drop_packets")

        # 2. testpmd flushes at stop: nothing stale stays in the device,
        # the indirect action stays with its count and serves a new rule.
        tp.cmd("port stop 0")
        e2e.check_eq(tp.flow_list(), [], "testpmd's rules after port stop")
        dump, n = dump_flows(tp)
        e2e.check_eq(n, 0, "rules in the device after testpmd's flush")
        tp.cmd("port start 0")
        run_round(tp, net, traffic, everything, set(everything), {})
        check_indirect(tp, *shared, "indirect COUNT after the restart")
        udp53 = create(tp, "udp53")
        run_round(tp, net, traffic, ["udp53", "drop"], {"udp53", "drop"},
                  QUEUE_OF)
        check_indirect(tp, shared[0] + CLASSES["udp53"],
                       shared[1] + traffic.bytes["udp53"],
                       "indirect COUNT with a rule made after the restart")

        # 3. Destroying one rule ends its effect only.
        tcp80 = create(tp, "tcp80")
        drop = create(tp, "drop")
        run_round(tp, net, traffic, ["tcp80", "drop"], {"tcp80"}, QUEUE_OF)
        out = tp.cmd("flow destroy 0 rule %d" % drop)
        e2e.check("Flow rule #%d destroyed" % drop in out, "destroy: %s",
                  out)
        e2e.check_eq(sorted(r["id"] for r in tp.flow_list()),
                     sorted([udp53, tcp80]), "rules after the destroy")
        run_round(tp, net, traffic, ["tcp80", "drop"], {"tcp80", "drop"},
                  QUEUE_OF)
        check_count(tp, tcp80, 2 * CLASSES["tcp80"],
                    2 * traffic.bytes["tcp80"], "rule tcp80 count")
        # testpmd gives the destroyed newest rule's ID again; so does the
        # dump. An older one destroyed leaves a gap in both.
        again = create(tp, "drop")
        e2e.check_eq(again, drop, "testpmd's ID for the next rule")
        tp.cmd("flow destroy 0 rule %d" % udp53)
        check_ids(tp, "after destroying the newest and an older rule")
        tp.cmd("flow destroy 0 rule %d" % again)

        # 4. Isolated mode, entered on the stopped port.
        tp.cmd("port stop 0")
        out = tp.cmd("flow isolate 0 true")
        e2e.check("now restricted to the defined flow rules" in out,
                  "flow isolate 0 true: %s", out)
        tp.cmd("port start 0")
        create(tp, "tcp80")
        create(tp, "udp53")
        check_ids(tp, "after testpmd's flush at stop")
        dump, n = dump_flows(tp)
        e2e.check(re.search(r"flow engine (verbs|mlx5dv|auto \([^)]*\)), "
                            r"isolated", dump),
                  "dump header does not say isolated:\n%s", dump)
        e2e.check("default flow" not in dump,
                  "default flows left in isolated mode:\n%s", dump)
        base = tp.xstats()["rx_unsteered_packets"]
        run_round(tp, net, traffic, ["tcp80", "udp53", "other", "drop"],
                  {"tcp80", "udp53"}, QUEUE_OF)
        e2e.check_eq(tp.xstats()["rx_unsteered_packets"] - base,
                     e2e.soft_xstat(CLASSES["other"] + CLASSES["drop"]),
                     "frames no rule takes, counted as unsteered")
        # Leaving it on the running port brings the default flows back.
        out = tp.cmd("flow isolate 0 false")
        e2e.check("not restricted anymore" in out,
                  "flow isolate 0 false: %s", out)
        e2e.check("default flow" in dump_flows(tp)[0],
                  "no default flows after leaving isolated mode")
        run_round(tp, net, traffic, ["tcp80", "other"], {"tcp80", "other"},
                  QUEUE_OF)

        # 5. A used indirect action stays; flush leaves nothing.
        err = tp.flow_refused("flow indirect_action 0 destroy action_id %d"
                              % HANDLE)
        e2e.check("indirect COUNT still used by 1 flow(s)" in err.message
                  and err.strerror == "Device or resource busy",
                  "destroying a used indirect action: %s", err)
        tp.cmd("flow flush 0")
        e2e.check_eq(tp.flow_list(), [], "rules after flush")
        e2e.check_eq(dump_flows(tp)[1], 0, "rules in the device after flush")
        out = tp.cmd("flow indirect_action 0 destroy action_id %d" % HANDLE)
        e2e.check("Indirect action #%d destroyed" % HANDLE in out,
                  "destroying the unused indirect action: %s", out)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["auto", "verbs", "dv"],
                    default="auto", help="flow_engine devarg of the port")


if __name__ == "__main__":
    e2e.run(main, options=options)
