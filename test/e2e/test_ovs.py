#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Open vSwitch 3.1 (Debian's ovs-vswitchd-dpdk) with two net_vsteer
ports: forwarding, and partial hardware offload through rte_flow.

Two veth pairs; the PMD's ends in OVS's namespace, each other end in a
namespace of its own with addresses of 192.0.2.0/24 and permanent
neighbour entries (so the only frames are the test's ICMP echoes). A
netdev bridge forwards with NORMAL; hw-offload=true makes OVS ask the
driver, for each datapath flow, for a full-offload rule (transfer,
PORT_ID) and then a partial one (MARK + RSS over the port's queues).

Checked:
1. ping across the bridge, both ways: every request answered;
2. OVS offloaded the IPv4 datapath flow of each port (dpctl/dump-flows
   says offloaded, dpctl/offload-stats-show counts inserted rules), and
   every packet of a later burst came back marked: the PMD threads'
   "phwol hits" equal the packets they received;
3. the driver's per-queue counters (the xstats OVS shows in the
   interface's statistics) hold exactly the packets each queue should
   have: the rule's RSS (all queues, the port's key, the driver's default
   since OVS sets none) puts a packet on queue (Toeplitz hash of source
   and destination address) mod 2;
4. the rte_flow rules OVS asked for, with the driver's answer to each
   (created, with the engine and verbs rule count the driver logged, or
   refused, with the error type and message OVS got back), are printed;
   each refusal carries a message and each created rule the driver's log
   line.
"""

import collections
import time

import ovs_e2e
import ovs_parse
import vsteer_e2e as e2e
from toeplitz import ipv4_input, toeplitz_hash

QUEUES = 2
SUBNET = "192.0.2."  # RFC 5737 TEST-NET-1, only inside the namespaces
# The key the driver gives a port whose configuration has none (OVS sets
# none): mlx4/mlx5's historical default (rss_hash_default_key).
DEFAULT_RSS_KEY = bytes.fromhex(
    "2cc681d15bdbf4f7fca28319db1a3e946b9e38d9"
    "2c9c03d1ad9944a7d9563d59063c25f3fc1fdc2a")
BURST = 16           # echo requests per address pair in the marked burst
OFFLOAD_WAIT = 10.0  # seconds for OVS to offload the flows


def queue_of(src, dst):
    """Queue of an IPv4 packet that is neither TCP nor UDP: RSS over
    queues 0..QUEUES-1 (a power of two: the low bits of the hash)."""
    return toeplitz_hash(DEFAULT_RSS_KEY, ipv4_input(src, dst)) % QUEUES


def address_pairs():
    """(a, b) pairs, a in namespace 0 and b in namespace 1, such that
    the requests (a -> b, on port 0) and the replies (b -> a, on port 1)
    each use every queue."""
    cands = [(SUBNET + str(2 * i + 1), SUBNET + str(2 * j + 2))
             for i in range(6) for j in range(6)]
    pairs = []
    seen = (set(), set())
    for a, b in cands:
        qa, qb = queue_of(a, b), queue_of(b, a)
        if qa in seen[0] and qb in seen[1]:
            continue
        pairs.append((a, b))
        seen[0].add(qa)
        seen[1].add(qb)
        if len(seen[0]) == QUEUES and len(seen[1]) == QUEUES:
            return pairs
    raise AssertionError("no address pairs spread over %d queues" % QUEUES)


class Traffic:
    """What was sent, to know what each port and queue must have seen."""

    def __init__(self, topo, pairs):
        self.topo = topo
        self.pairs = pairs
        self.rx = [collections.Counter(), collections.Counter()]

    def ping(self, count):
        """count echo requests per pair; all must be answered. Returns
        the number of packets the ports received (requests + replies)."""
        got = self.topo.ping(0, [(a, b, count) for a, b in self.pairs])
        for (a, b), n in zip(self.pairs, got):
            e2e.check(n == count, "ping %s -> %s across the bridge: %d of "
                      "%d replies", a, b, n, count)
            self.rx[0][queue_of(a, b)] += count
            self.rx[1][queue_of(b, a)] += count
        return 2 * count * len(self.pairs)


def ipv4_flows(ovs):
    """The datapath's IPv4 flows, by input port."""
    flows = ovs_parse.dump_flows(ovs.appctl("dpctl/dump-flows", "-m"))
    return {f["in_port"]: f for f in flows if f["eth_type"] == 0x0800}


def wait_offloaded(ovs, traffic, out):
    """Keep traffic going until the IPv4 flow of every port is offloaded
    (the offload thread works asynchronously) with its final actions, or
    OFFLOAD_WAIT passed. out maps a port to the one its traffic leaves
    by once the bridge has learnt the MAC addresses: until then a flow
    floods, and OVS offloads it again when its actions change."""
    deadline = time.monotonic() + OFFLOAD_WAIT
    while True:
        traffic.ping(1)
        flows = ipv4_flows(ovs)
        done = [p for p in out if p in flows and flows[p]["offloaded"] and
                flows[p]["actions"] == out[p]]
        if len(done) == len(out) or time.monotonic() > deadline:
            return flows
        time.sleep(0.2)


def report_rules(attempts):
    """Print every distinct rule OVS asked for with the driver's answer."""
    groups = collections.OrderedDict()
    for a in attempts:
        answer = ("created (%s)" % (a["driver"] or "no driver log line")
                  if a["ok"] else "refused: %s: %s" % (a["error_type"],
                                                       a["error"]))
        key = (a["netdev"], ovs_parse.rule_shape(a["rule"]), answer)
        groups[key] = groups.get(key, 0) + 1
    e2e.log("rte_flow rules OVS asked for (%d), and the driver's answers:"
            % len(attempts))
    for (netdev, rule, answer), n in groups.items():
        print("  %s x%d: flow create %s\n      -> %s" % (netdev, n, rule,
                                                         answer))


def wait_port_counts(ovs, ports, want, timeout=15.0):
    """OVS refreshes the statistics column every 5 s: wait until each
    port's rx_packets reaches what was sent, then return the columns."""
    deadline = time.monotonic() + timeout
    while True:
        stats = {p: ovs.statistics(p) for p in ports}
        if all(stats[p].get("rx_packets", 0) >= want[p] for p in ports) \
                or time.monotonic() > deadline:
            return stats
        time.sleep(0.5)


def main(args):
    ovs_e2e.require_ovs(args.ovs_vswitchd)
    failures = []

    def soft(cond, msg, *fmt):
        """A check whose failure does not stop the test: what follows
        still runs and is reported."""
        if not cond:
            failures.append(msg % fmt if fmt else msg)
            e2e.log("FAILED: " + failures[-1])

    with ovs_e2e.Topology(2) as topo, \
            ovs_e2e.Ovs(args.pmd, topo.ovs_ns,
                        vswitchd=args.ovs_vswitchd) as ovs:
        ports = ["p0", "p1"]
        bridge = "vsb" + topo.tag
        ovs.add_bridge(bridge)
        for i, port in enumerate(ports):
            devargs = "net_vsteer%d,dev=soft:%s" % (i, topo.host[i])
            ofport = ovs.add_dpdk_port(bridge, port, devargs, n_rxq=QUEUES)
            e2e.log("%s: %s, ofport %d, %d Rx queues"
                    % (port, devargs, ofport, QUEUES))
        row = ovs.rows("Interface", "p0", "status")["status"]
        e2e.check_eq(row.get("driver_name"), "net_vsteer", "p0 driver")

        pairs = address_pairs()
        for side, addrs in enumerate((sorted({a for a, _ in pairs}),
                                      sorted({b for _, b in pairs}))):
            for addr in addrs:
                topo.add_address(side, addr)
                topo.add_neighbour(1 - side, addr, topo.peer_mac[side])
        e2e.log("address pairs (request queue on p0, reply queue on p1): "
                + ", ".join("%s->%s (q%d, q%d)" % (a, b, queue_of(a, b),
                                                   queue_of(b, a))
                            for a, b in pairs))
        traffic = Traffic(topo, pairs)

        # 1. Forwarding (a failure here stops the test).
        traffic.ping(3)
        e2e.log("ping across the bridge: %d pairs x 3, every reply came"
                % len(pairs))

        # 2. Offload.
        flows = wait_offloaded(ovs, traffic, {"p0": "p1", "p1": "p0"})
        for port in ports:
            f = flows.get(port)
            e2e.log("%s IPv4 datapath flow: %s"
                    % (port, f["line"] if f else "none"))
            soft(f is not None and f["offloaded"] is not None,
                 "%s: the IPv4 datapath flow was not offloaded (%s)", port,
                 ("dpctl/dump-flows -m shows no 'offloaded:'" if f else
                  "no such flow"))
        stats = ovs_parse.offload_stats(ovs.appctl("dpctl/offload-stats-show"))
        e2e.log("dpctl/offload-stats-show: %s" % stats)
        soft(stats["inserted"] >= len(ports),
             "dpctl/offload-stats-show: %d offloads inserted, want at least "
             "%d (one per port)", stats["inserted"], len(ports))

        ovs.appctl("dpif-netdev/pmd-stats-clear")
        sent = traffic.ping(BURST)
        pmd = ovs_parse.pmd_stats(ovs.appctl("dpif-netdev/pmd-stats-show"))
        received = ovs_parse.pmd_total(pmd, "packets received")
        marked = ovs_parse.pmd_total(pmd, "phwol hits")
        e2e.log("burst of %d packets: PMD threads received %d, phwol hits %d"
                % (sent, received, marked))
        e2e.check_eq(received, sent, "packets the PMD threads received")
        soft(marked == sent, "partial hardware offload: %d of %d packets "
             "came marked (pmd-stats-show 'phwol hits')", marked, sent)

        # 3. Per-queue counters of the driver.
        want = {p: sum(traffic.rx[i].values()) for i, p in enumerate(ports)}
        stats = wait_port_counts(ovs, ports, want)
        for i, port in enumerate(ports):
            s = stats[port]
            got = {q: s.get("rx_q%d_packets" % q) for q in range(QUEUES)}
            exp = {q: traffic.rx[i][q] for q in range(QUEUES)}
            e2e.log("%s: rx_packets %s (sent %d), per queue %s (expected %s)"
                    % (port, s.get("rx_packets"), want[port], got, exp))
            e2e.check_eq(s.get("rx_packets"), want[port],
                         "%s rx_packets" % port)
            e2e.check_eq(got, exp, "%s packets per Rx queue" % port)
            for c in ("rx_dropped", "rx_errors", "rx_missed_errors",
                      "rx_mbuf_allocation_errors"):
                e2e.check_eq(s.get(c), 0, "%s %s" % (port, c))

        # 4. The rules and the answers.
        attempts = ovs_parse.offload_log(ovs.log())
        report_rules(attempts)
        e2e.check(attempts, "OVS logged no rte_flow rule at all")
        for a in attempts:
            if a["ok"]:
                e2e.check(a["driver"], "%s: rule %s created but the driver "
                          "logged no creation", a["netdev"], a["handle"])
            else:
                e2e.check(a["error"], "%s: rule refused without a message: "
                          "%s", a["netdev"], a["rule"])
        for port in ports:
            partial = [a for a in attempts if a["netdev"] == port and
                       not a["transfer"] and "type is 0x0800" in a["rule"]]
            reasons = sorted({"%s: %s" % (a["error_type"], a["error"])
                              for a in partial if not a["ok"]})
            soft(any(a["ok"] for a in partial),
                 "%s: no partial-offload rule (MARK + RSS) for IPv4 was "
                 "accepted; %d asked, refused with: %s", port, len(partial),
                 "; ".join(reasons) or "-")
        if failures:
            raise AssertionError("%d check(s) failed:\n  %s"
                                 % (len(failures), "\n  ".join(failures)))


def options(ap):
    ap.add_argument("--ovs-vswitchd", default=ovs_e2e.VSWITCHD_DPDK,
                    help="ovs-vswitchd built with DPDK")


if __name__ == "__main__":
    e2e.run(main, options=options, testpmd=False)
