#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Flow aging in Debian's testpmd: rules with an AGE action (`age timeout
2`) on softverbs over a veth pair, scapy traffic from the peer namespace.
A rule hit every 200 ms does not age (`flow query 0 <n> age`: aged 0,
seconds since the last hit small); once its traffic stops it ages, testpmd
prints the port's "flow aged" event once, `flow aged 0` lists it, and a
second rule aging before the application read the first raises no second
event; a rule with a long timeout keeps counting its idle seconds; `flow
aged 0 destroy` destroys the aged rules and leaves the others. --engine
picks the flow_engine devarg (verbs: ibv_counters; dv: DevX counters)."""

import re
import time

import vsteer_e2e as e2e

EVENT = "Port 0: flow aged event"
PORTS = {"a": 5001, "b": 5002, "c": 5003}


def udp_frame(src, dst, dport):
    from scapy.all import IP, UDP, Ether, Raw

    return bytes(Ether(src=src, dst=dst)
                 / IP(src="192.0.2.1", dst="198.51.100.1")
                 / UDP(sport=1000, dport=dport) / Raw(b"x" * 32))


def age_of(tp, rule):
    """`flow query 0 <rule> age`: {aged, sec_since_last_hit_valid,
    sec_since_last_hit}."""
    out = tp.cmd("flow query 0 %d age" % rule)
    vals = dict((k, int(v)) for k, v in
                re.findall(r"^\s*(aged|sec_since_last_hit_valid|"
                           r"sec_since_last_hit):\s*(\d+)", out, re.M))
    if len(vals) != 3:
        raise AssertionError("flow query 0 %d age: %r" % (rule, out))
    return vals


def aged_list(tp, destroy=False):
    """`flow aged 0 [destroy]`: (total, IDs listed, output)."""
    out = tp.cmd("flow aged 0" + (" destroy" if destroy else ""))
    m = re.search(r"Port 0 total aged flows: (-?\d+)", out)
    if m is None:
        raise AssertionError("flow aged 0: %r" % out)
    ids = [int(i) for i in re.findall(r"^Flow\s+(\d+)\s", out, re.M)]
    return int(m.group(1)), ids, out


def wait_aged(tp, rule, timeout=8.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if age_of(tp, rule)["aged"]:
            return True
        time.sleep(0.3)
    return False


def main(args):
    with e2e.VethNs() as net, \
            e2e.Testpmd(args.pmd,
                        net.vdev(extra="flow_engine=" + args.engine),
                        rxq=4, txq=4, testpmd=args.testpmd,
                        app=["--forward-mode=rxonly"]) as tp:
        mac = tp.port_info()["mac"]
        frames = {k: udp_frame(net.peer_mac, mac, p)
                  for k, p in PORTS.items()}
        ids = {}
        for k, timeout in (("a", 2), ("b", 2), ("c", 60)):
            ids[k] = tp.flow_create(
                "0 ingress pattern eth / ipv4 / udp dst is %d / end "
                "actions queue index 1 / age timeout %d / count / end"
                % (PORTS[k], timeout))
        tp.cmd("start")
        # Both hit every 200 ms for 3 s: neither ages.
        net.exchange([frames["a"], frames["b"]] * 15, expect=None,
                     timeout=0.2, gap=0.1)
        for k in ("a", "b"):
            q = age_of(tp, ids[k])
            e2e.check(not q["aged"] and q["sec_since_last_hit_valid"] and
                      q["sec_since_last_hit"] <= 1,
                      "rule %s while hit: %s", k, q)
        e2e.check(EVENT not in tp.transcript, "aged event while hit")
        # Only b is hit: a ages, the event comes once.
        net.exchange([frames["b"]] * 25, expect=None, timeout=0.2, gap=0.2)
        e2e.check(wait_aged(tp, ids["a"]), "rule a did not age")
        e2e.check(not age_of(tp, ids["b"])["aged"], "rule b aged while hit")
        tp.settle(0.5)
        e2e.check_eq(tp.transcript.count(EVENT), 1, "aged events")
        # b ages too, before the application read a: no second event.
        e2e.check(wait_aged(tp, ids["b"]), "rule b did not age")
        tp.settle(1.5)
        e2e.check_eq(tp.transcript.count(EVENT), 1,
                     "aged events before `flow aged`")
        total, listed, out = aged_list(tp)
        e2e.check_eq((total, sorted(listed)), (2, sorted([ids["a"],
                                                          ids["b"]])),
                     "flow aged 0")
        q = age_of(tp, ids["c"])
        e2e.check(not q["aged"] and q["sec_since_last_hit"] >= 5,
                  "rule c (60 s): %s", q)
        e2e.check(tp.flow_count(ids["b"])["hits"] == 40,
                  "rule b's count: %s", tp.flow_count(ids["b"]))
        # Destroy what aged; c stays.
        total, listed, out = aged_list(tp, destroy=True)
        e2e.check("2 flows destroyed" in out, "flow aged 0 destroy: %r",
                  out)
        e2e.check_eq([r["id"] for r in tp.flow_list()], [ids["c"]],
                     "rules left")
        e2e.check_eq(aged_list(tp)[0], 0, "aged flows after the destroy")
        tp.cmd("stop")
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")


def options(ap):
    ap.add_argument("--engine", choices=["verbs", "dv"], default="verbs")


if __name__ == "__main__":
    e2e.run(main, options=options)
