#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The demo session (devtools/demo.sh sets up, builds and runs it as
root): dpdk-testpmd with net_vsteer on softverbs over a veth pair, rte_flow
rules in testpmd's syntax, a scapy traffic mix from the peer namespace,
then the rules' counters, the per-queue counters, the verbs translation
of two rules and a summary that checks every frame against its rule.

With --model devtools/mlx5-model --model-lib libmlx5model.so the port is
a modelled ConnectX-5 (dev=mlx5_0) on the same veth end, driven by
rdma-core's own libibverbs and libmlx5 (doc/mlx5-model.md).

usage: demo.py --pmd librte_net_vsteer.so [--testpmd dpdk-testpmd]
               [--model WRAPPER --model-lib LIB]
"""

import argparse
import collections
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "e2e"))

import vsteer_e2e as e2e  # noqa: E402
from toeplitz import (ipv4_input, rss_action_queue,  # noqa: E402
                      toeplitz_hash)

QUEUES = 4
ENGINE = "verbs"   # every rule an ibv_create_flow() spec chain
MAC_PREFIX = "02:76:73:de"

# (label for the summary, testpmd rule, traffic class it is for)
RULES = [
    ("steer TCP/80 to queue 1",
     "eth / ipv4 / tcp dst is 80 / end actions queue index 1 / count / end",
     "web"),
    ("steer UDP to 10.0.0.53 to queue 2",
     "eth / ipv4 dst is 10.0.0.53 / udp / end actions queue index 2 / "
     "count / end", "dns"),
    ("RSS UDP/4000 over queues 2,3",
     "eth / ipv4 / udp dst is 4000 / end actions rss queues 2 3 end types "
     "ipv4-udp end / count / end", "stream"),
    ("drop everything from 10.9.9.9",
     "eth / ipv4 src is 10.9.9.9 / end actions drop / count / end", "bad"),
    ("mark TCP/443 with id 443, queue 3",
     "eth / ipv4 / tcp dst is 443 / end actions mark id 443 / queue index 3 "
     "/ count / end", "tls"),
]
# class -> (frames, what they are)
TRAFFIC = collections.OrderedDict([
    ("web", (20, "TCP to port 80 from 20 clients")),
    ("dns", (16, "UDP to 10.0.0.53 port 53")),
    ("stream", (24, "UDP to port 4000, 24 flows")),
    ("bad", (10, "from 10.9.9.9: TCP/22, UDP, ICMP")),
    ("tls", (16, "TCP to port 443")),
    ("other", (14, "no rule: UDP/7000, ICMP, IPv6")),
])


def frame(cls, i, dst_mac):
    """Frame i of a class; the source MAC numbers it (class, i)."""
    from scapy.all import ICMP, IP, TCP, UDP, Ether, IPv6, Raw

    eth = Ether(src="%s:%02x:%02x" % (MAC_PREFIX, list(TRAFFIC).index(cls),
                                      i), dst=dst_mac)
    client = "192.0.2.%d" % (10 + i * 7 % 240)
    server = "198.51.100.%d" % (1 + i % 4)
    sport = 30000 + i * 111
    if cls == "web":
        return eth / IP(src=client, dst=server) / \
            TCP(sport=sport, dport=80, flags="S"), None
    if cls == "dns":
        return eth / IP(src=client, dst="10.0.0.53") / \
            UDP(sport=sport, dport=53) / Raw(b"q" * (30 + i)), None
    if cls == "stream":
        return eth / IP(src=client, dst=server) / \
            UDP(sport=sport, dport=4000) / Raw(b"v" * 200), \
            (client, server, sport, 4000)
    if cls == "bad":
        ip = IP(src="10.9.9.9", dst=server)
        l4 = [TCP(sport=sport, dport=22, flags="S"),
              UDP(sport=sport, dport=161), ICMP(id=i, seq=i)][i % 3]
        return eth / ip / l4 / Raw(b"x" * 32), None
    if cls == "tls":
        return eth / IP(src=client, dst=server) / \
            TCP(sport=sport, dport=443, flags="PA") / Raw(b"s" * 500), None
    return [eth / IP(src=client, dst=server) / UDP(sport=sport, dport=7000)
            / Raw(b"o" * 64),
            eth / IP(src=client, dst=server) / ICMP(id=i, seq=i),
            eth / IPv6(src="2001:db8::%x" % (i + 1), dst="2001:db8:1::1") /
            UDP(sport=sport, dport=5001) / Raw(b"6" * 40)][i % 3], None


def say(text):
    print("\n=== %s" % text, flush=True)


def show(tp, command, keep=None):
    """Run a testpmd command and print it with its output (the lines
    matching keep, when given)."""
    out = tp.cmd(command)
    print("testpmd> " + command)
    for line in out.rstrip("\n").splitlines():
        if keep is None or re.search(keep, line):
            print(line)
    return out


def dump_excerpt(text):
    """The decoded lines of a rule's dump, without the hex bytes."""
    return [line for line in text.splitlines()
            if line.strip() and not re.match(r"^\s+[0-9a-f]{4}:", line)
            and not line.startswith("Flow dump finished")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pmd", required=True)
    ap.add_argument("--testpmd", default="dpdk-testpmd")
    ap.add_argument("--model", help="devtools/mlx5-model: the port on a "
                    "modelled ConnectX-5")
    ap.add_argument("--model-lib", help="its library (libmlx5model.so)")
    args = ap.parse_args()
    # The framework's progress lines are for tests; the demo narrates.
    e2e.log = lambda msg: None
    e2e.enter_model_mode(args)

    with e2e.VethNs() as net:
        say("network: %s (root namespace, the port's wire) <-> %s "
            "(namespace %s, scapy)" % (net.host, net.peer, net.ns))
        vdev = net.vdev(extra="flow_engine=" + ENGINE)
        if e2e.model_mode():
            say("the port's device: a modelled ConnectX-5, %s, wired to %s"
                % (net.device(), net.host))
        say("%sdpdk-testpmd --vdev %s -- --rxq=%d --forward-mode=rxonly"
            % ("mlx5-model --link %s -- " % net.host
               if e2e.model_mode() else "", vdev, QUEUES))
        with e2e.Testpmd(args.pmd, vdev, rxq=QUEUES, txq=QUEUES,
                         testpmd=args.testpmd,
                         app=["--forward-mode=rxonly"]) as tp:
            try:
                return session(tp, net)
            except Exception:
                print("---- testpmd transcript (last lines) ----\n%s"
                      % tp.transcript[-6000:])
                raise


def session(tp, net):
    info = tp.port_info()
    print("port 0: driver %s, MAC %s, %d Rx queues, RETA %d entries"
          % (info["driver"], info["mac"], info["rx_queues"],
             info["reta_size"]))
    if e2e.model_mode():
        print("testpmd maps rdma-core's libibverbs.so.1 and libmlx5.so.1, "
              "the model under them (checked in /proc/PID/maps); "
              "firmware %s" % info["firmware"])
    _, key = tp.rss_conf()

    say("flow rules, in testpmd's own syntax")
    ids = []
    for _, rule, _ in RULES:
        out = show(tp, "flow create 0 ingress pattern " + rule)
        ids.append(e2e.parse.flow_created(out))
    show(tp, "flow list 0")

    frames, expect = [], {}
    for cls, (n, _) in TRAFFIC.items():
        for i in range(n):
            pkt, fields = frame(cls, i, info["mac"])
            data = bytes(pkt)
            frames.append(data)
            expect[pkt.src] = (cls, data, fields)
    say("traffic: %d frames from %s, sent with scapy" % (len(frames),
                                                         net.peer))
    for cls, (n, what) in TRAFFIC.items():
        print("  %-7s %3d  %s" % (cls, n, what))
    tp.cmd("set verbose 1")   # per packet: queue and mark (kept quiet)
    delivered = sum(n for c, (n, _) in TRAFFIC.items() if c != "bad")
    t0 = time.monotonic()
    pkts = tp.rx_traffic(net, frames, delivered)
    took = time.monotonic() - t0
    tp.cmd("set verbose 0")

    say("per-rule counters: flow query 0 <rule> count")
    counts = []
    for rid in ids:
        out = tp.cmd("flow query 0 %d count" % rid)
        q = e2e.parse.flow_count(out)
        counts.append(q)
        print("testpmd> flow query 0 %d count   -> hits %d, bytes %d"
              % (rid, q["hits"], q["bytes"]))

    say("per-queue and device counters: show port xstats 0 (excerpt)")
    out = show(tp, "show port xstats 0",
               keep=r"^(rx_q\d_packets|rx_good_packets|rx_rule_drop_packets"
                    r"|rx_unsteered_packets|rx_wire_packets):")
    xs = e2e.parse.xstats(out)

    say("flow dump 0 rule <n>: the verbs translation (hex bytes left out)")
    for cls in ("bad", "tls"):
        rid = ids[[r[2] for r in RULES].index(cls)]
        out = tp.cmd("flow dump 0 rule %d" % rid)
        print("testpmd> flow dump 0 rule %d" % rid)
        print("\n".join(dump_excerpt(out)))
    out = tp.cmd("flow dump 0 all")
    print("(flow dump 0 all: %d rules, %d verbs rules, %d default flows "
          "of the driver)" % (len(re.findall(r"^flow rule ", out, re.M)),
                              len(re.findall(r"^  verbs rule \d+ of", out,
                                             re.M)),
                              out.count("default flow (driver-owned)")))
    rc = tp.quit()

    return summary(key, info, ids, counts, xs, expect, pkts, took, rc)


def summary(key, info, ids, counts, xs, expect, pkts, took, rc):
    by_cls = collections.defaultdict(list)
    for p in pkts:
        cls = expect.get(p.src, ("stranger", None, None))[0]
        by_cls[cls].append(p)
    sent = collections.Counter(c for c, _, _ in expect.values())
    nbytes = collections.Counter()
    for c, data, _ in expect.values():
        nbytes[c] += len(data)

    results = []

    def line(label, ok, text):
        results.append(ok)
        print("%-44s %s  %s" % (label + ":", text, "ok" if ok else "FAILED"))

    say("summary")
    for (label, _, cls), rid, q in zip(RULES, ids, counts):
        got = by_cls[cls]
        counted = (q["hits"], q["bytes"]) == (sent[cls], nbytes[cls])
        queues = collections.Counter(p.queue for p in got)
        if cls == "bad":
            ok = not got and counted and \
                xs.get("rx_rule_drop_packets") == e2e.soft_xstat(sent[cls])
            text = "%d packets dropped, %d delivered" % (q["hits"], len(got))
        elif cls == "stream":
            right = 0
            for p in got:
                src, dst, sport, dport = expect[p.src][2]
                h = toeplitz_hash(key, ipv4_input(src, dst, sport, dport))
                right += p.queue == rss_action_queue([2, 3], h,
                                                     info["reta_size"])
            ok = counted and len(got) == sent[cls] and right == len(got)
            text = "%d packets, %s, %d on their Toeplitz queue" % (
                len(got), " ".join("q%d=%d" % kv for kv in
                                   sorted(queues.items())), right)
        else:
            want_q = 1 if cls == "web" else 2 if cls == "dns" else 3
            marked = sum(1 for p in got if p.fdir_id == 443)
            ok = counted and len(got) == sent[cls] and \
                queues == {want_q: sent[cls]}
            text = "%d packets on queue %s" % (
                len(got), ",".join(str(k) for k in sorted(queues)))
            if cls == "tls":
                ok = ok and marked == sent[cls]
                text += ", %d with mark 443" % marked
        line("rule %d: %s" % (rid, label), ok, text + " (counted %d)"
             % q["hits"])
    others = by_cls["other"]
    ok = len(others) == sent["other"] and \
        not any(p.fdir_matched for p in others)
    line("no rule: default RSS", ok, "%d packets on queues %s, unmarked"
         % (len(others), ",".join(str(k) for k in
                                  sorted({p.queue for p in others}))))
    per_q = collections.Counter(p.queue for p in pkts)
    ok = all(xs.get("rx_q%d_packets" % q) == per_q[q]
             for q in range(QUEUES)) and not by_cls["stranger"]
    line("per-queue counters agree with the packets", ok, " ".join(
        "q%d=%d" % (q, per_q[q]) for q in range(QUEUES)))
    line("testpmd exit", rc == 0, "status %d" % rc)
    failed = results.count(False)
    print("\ndemo: %d frames, %d delivered in %.1f s; %d of %d checks "
          "passed" % (len(expect), len(pkts), took, len(results) - failed,
                      len(results)))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        if os.geteuid() != 0:
            raise e2e.Skip("needs root (network namespace, veth pair)")
        sys.exit(main())
    except e2e.Skip as exc:
        # As a test: skipped (meson's 77).
        print("demo: %s" % exc, file=sys.stderr)
        sys.exit(e2e.SKIP)
    except (AssertionError, RuntimeError, OSError) as exc:
        print("demo: %s" % exc, file=sys.stderr)
        sys.exit(1)
