#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The life of rte_flow rules in a real testpmd, with traffic at each
step: rules (one with an indirect COUNT action shared by two rules)
created while the port is stopped take effect at `port start 0`; they
survive `port stop 0` / `port start 0` with their counters; `flow
destroy` ends one rule's effect only; `flow isolate 0 true` stops the
default traffic (the device counts it as unsteered) while rule traffic
still arrives, and `flow isolate 0 false` brings it back; an indirect
action in use cannot be destroyed; `flow flush` leaves nothing."""

import collections
import re

import vsteer_e2e as e2e

QUEUES = 4
MAC_PREFIX = "02:76:74"
HANDLE = 10

# class -> (frames per round, rule's queue or None: default RSS / drop)
CLASSES = {
    "tcp80": 6,     # rule 0: queue 1, own COUNT
    "drop": 4,      # rule 1: DROP, own COUNT
    "udp53": 5,     # rule 2: queue 2, indirect COUNT
    "udp54": 3,     # rule 3: queue 3, the same indirect COUNT
    "other": 6,     # no rule: default flows
}
RULES = [
    "0 ingress pattern eth / ipv4 / tcp dst is 80 / end actions "
    "queue index 1 / count / end",
    "0 ingress pattern eth / ipv4 src is 10.9.9.9 / end actions drop / "
    "count / end",
    "0 ingress pattern eth / ipv4 / udp dst is 53 / end actions indirect "
    "%d / queue index 2 / end" % HANDLE,
    "0 ingress pattern eth / ipv4 / udp dst is 54 / end actions indirect "
    "%d / queue index 3 / end" % HANDLE,
]
ORDER = list(CLASSES)


class Traffic:
    """Frames of each round with fresh source MACs, so that every frame
    of the test is told apart in the verbose dump."""

    def __init__(self, dst_mac):
        self.dst = dst_mac
        self.round = 0
        self.bytes = {}                       # class -> bytes a round

    def make(self, classes):
        from scapy.all import IP, TCP, UDP, Ether, Raw

        self.round += 1
        frames, cls_of = [], {}
        for cls in classes:
            for i in range(CLASSES[cls]):
                mac = "%s:%02x:%02x:%02x" % (MAC_PREFIX, self.round,
                                             ORDER.index(cls), i)
                eth = Ether(src=mac, dst=self.dst)
                src = "10.9.9.9" if cls == "drop" else \
                    "192.0.2.%d" % (1 + i * 29 % 250)
                ip = IP(src=src, dst="198.51.100.%d" % (1 + i))
                l4 = {"tcp80": TCP(sport=2000 + i, dport=80),
                      "drop": UDP(sport=2000 + i, dport=9),
                      "udp53": UDP(sport=2000 + i, dport=53),
                      "udp54": UDP(sport=2000 + i, dport=54),
                      "other": UDP(sport=2000 + i, dport=7000)}[cls]
                frame = bytes(eth / ip / l4 / Raw(b"L" * (10 + 7 * i)))
                frames.append(frame)
                cls_of[mac] = cls
            # A class's frames differ from round to round in MACs only.
            self.bytes[cls] = sum(len(f) for m, f in zip(cls_of, frames)
                                  if cls_of[m] == cls)
        return frames, cls_of


def run_round(tp, net, traffic, classes, arrive, queues):
    """Send one round; classes in arrive must all arrive, the others
    never; queues maps a class to the queue its rule names."""
    frames, cls_of = traffic.make(classes)
    want = sum(CLASSES[c] for c in classes if c in arrive)
    pkts = tp.rx_traffic(net, frames, want)
    got = collections.Counter()
    for p in pkts:
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
    e2e.log("round %d: %s arrived, %s did not" % (
        traffic.round, dict(got),
        [c for c in classes if c not in arrive]))
    return got


def check_counts(tp, traffic, rounds_of):
    """Rule 0 and 1 counters, and the shared one of rules 2 and 3, hold
    everything their frames did over the rounds the rule existed in."""
    for rule, cls in ((0, "tcp80"), (1, "drop")):
        q = tp.flow_count(rule)
        n = rounds_of[cls]
        e2e.check_eq((q["hits"], q["bytes"]),
                     (n * CLASSES[cls], n * traffic.bytes[cls]),
                     "rule %d (%s) count" % (rule, cls))
    q = e2e.parse.indirect_count(tp.cmd("flow indirect_action 0 query %d"
                                        % HANDLE))
    want = sum(rounds_of[c] * CLASSES[c] for c in ("udp53", "udp54"))
    e2e.check_eq(q["hits"], want, "indirect COUNT hits (rules 2 and 3)")
    want = sum(rounds_of[c] * traffic.bytes[c] for c in ("udp53", "udp54"))
    e2e.check_eq(q["bytes"], want, "indirect COUNT bytes (rules 2 and 3)")


def main(args):
    extra = "" if args.engine == "auto" else "flow_engine=" + args.engine
    with e2e.VethNs() as net:
        with e2e.Testpmd(args.pmd, net.vdev(extra=extra), rxq=QUEUES,
                         txq=QUEUES, testpmd=args.testpmd,
                         app=["--forward-mode=rxonly"]) as tp:
            info = tp.port_info()
            traffic = Traffic(info["mac"])
            all_classes = list(CLASSES)
            queues = {"tcp80": 1, "udp53": 2, "udp54": 3}
            tp.cmd("set verbose 1")

            # Rules made on a stopped port apply at start.
            tp.cmd("port stop 0")
            out = tp.cmd("flow indirect_action 0 create action_id %d "
                         "ingress action count / end" % HANDLE)
            e2e.check("Indirect action #%d created" % HANDLE in out,
                      "indirect COUNT action: %s", out)
            ids = [tp.flow_create(r) for r in RULES]
            e2e.check_eq(ids, [0, 1, 2, 3], "rule numbers")
            out = tp.cmd("flow dump 0 all")
            e2e.check_eq(out.count("kept (port stopped)"), len(RULES),
                         "rules kept while stopped, in the dump")
            tp.cmd("port start 0")
            out = tp.cmd("flow dump 0 all")
            e2e.check_eq(out.count(", applied"), len(RULES),
                         "rules applied after start, in the dump")
            rounds_of = collections.Counter()
            run_round(tp, net, traffic, all_classes,
                      {"tcp80", "udp53", "udp54", "other"}, queues)
            rounds_of.update(all_classes)
            check_counts(tp, traffic, rounds_of)

            # Stop and start again: same rules, counters carry on.
            tp.cmd("port stop 0")
            e2e.check_eq(len(tp.flow_list()), len(RULES),
                         "rules listed while stopped")
            tp.cmd("port start 0")
            run_round(tp, net, traffic, all_classes,
                      {"tcp80", "udp53", "udp54", "other"}, queues)
            rounds_of.update(all_classes)
            check_counts(tp, traffic, rounds_of)
            xs = tp.xstats()
            e2e.check_eq(xs.get("rx_rule_drop_packets"),
                         2 * CLASSES["drop"], "xstat rx_rule_drop_packets")

            # Destroying the DROP rule lets its frames in; rule 0 stays.
            out = tp.cmd("flow destroy 0 rule 1")
            e2e.check("Flow rule #1 destroyed" in out, "destroy: %s", out)
            e2e.check_eq([r["id"] for r in tp.flow_list()], [0, 2, 3],
                         "rules after destroying #1")
            run_round(tp, net, traffic, ["tcp80", "drop"],
                      {"tcp80", "drop"}, queues)
            rounds_of["tcp80"] += 1
            q = tp.flow_count(0)
            e2e.check_eq(q["hits"], rounds_of["tcp80"] * CLASSES["tcp80"],
                         "rule 0 hits after rule 1 went")

            # Isolated mode: only the rules' traffic arrives.
            base = tp.xstats()
            tp.cmd("port stop 0")
            out = tp.cmd("flow isolate 0 true")
            e2e.check("now restricted to the defined flow rules" in out,
                      "flow isolate 0 true: %s", out)
            tp.cmd("port start 0")
            dump = tp.cmd("flow dump 0 all")
            e2e.check(re.search(r"flow engine \S+( \(auto\))?, isolated",
                                dump), "dump header not isolated:\n%s", dump)
            e2e.check("default flow" not in dump,
                      "default flows left in isolated mode:\n%s", dump)
            run_round(tp, net, traffic, ["tcp80", "udp53", "other"],
                      {"tcp80", "udp53"}, queues)
            after = tp.xstats()
            e2e.check_eq(after["rx_unsteered_packets"]
                         - base["rx_unsteered_packets"], CLASSES["other"],
                         "frames unsteered in isolated mode")

            # Leaving it, with the port running, brings the default back.
            out = tp.cmd("flow isolate 0 false")
            e2e.check("not restricted anymore" in out,
                      "flow isolate 0 false: %s", out)
            e2e.check("default flow" in tp.cmd("flow dump 0 all"),
                      "no default flows after leaving isolated mode")
            run_round(tp, net, traffic, ["other"], {"other"}, queues)

            # An indirect action in use stays; flush leaves nothing.
            err = tp.flow_refused("flow indirect_action 0 destroy "
                                  "action_id %d" % HANDLE)
            e2e.check("indirect COUNT still used by 2 flow(s)" in
                      err.message and err.strerror ==
                      "Device or resource busy",
                      "destroying a used indirect action: %s", err)
            tp.cmd("flow flush 0")
            e2e.check_eq(tp.flow_list(), [], "rules after flush")
            dump = tp.cmd("flow dump 0 all")
            e2e.check(not re.search(r"^flow 0x", dump, re.M),
                      "flows left in the dump after flush:\n%s", dump)
            out = tp.cmd("flow indirect_action 0 destroy action_id %d"
                         % HANDLE)
            e2e.check("Indirect action #%d destroyed" % HANDLE in out,
                      "destroying the unused indirect action: %s", out)
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["auto", "verbs", "dv"],
                    default="auto", help="flow_engine devarg of the port")


if __name__ == "__main__":
    e2e.run(main, options=options)
