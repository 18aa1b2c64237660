#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Open vSwitch 3.1 (Debian's ovs-vswitchd-dpdk) with two net_vsteer
ports: forwarding, partial hardware offload through rte_flow, and the
ports behaving as NICs do under OVS (link, reconfiguration, MTU).

Two veth pairs; the PMD's ends in OVS's namespace, each other end in a
namespace of its own with addresses of 192.0.2.0/24 and permanent
neighbour entries (so the only frames are the test's ICMP echoes). A
netdev bridge forwards with NORMAL; hw-offload=true makes OVS ask the
driver, for each datapath flow, for a full-offload rule (transfer,
PORT_ID) and then a partial one (MARK + RSS over the port's queues).

Checked (--scenario main, the default):
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
4. the link: link_speed is the veth's 10 Gbit/s, duplex full, link_state
   up; taking a peer's veth end down and up makes OVS show link_state
   down and up again, on p0 as OVS 3.1 does by default (it polls the
   link) and on p1 with options:dpdk-lsc-interrupt=true (ethdev then
   returns the link the driver's link-state-change event left, so only
   that event can change what OVS shows);
5. options:n_rxq 2 -> 4 -> 2 on both ports: OVS reconfigures them (stop,
   configure, start) and creates no rule again; the kept rules still
   mark every packet (datapath flows offloaded:partial, phwol hits equal
   the packets), a rule made over queues 0..1 still spreads over 0..1
   with 4 queues, and the counters count on: rx/tx packets and bytes are
   exactly what was sent since the start, per queue too;
6. mtu_request=1600 on both ports: with the ports still at 1500 a
   1600-byte IP packet (DF set) is lost, so the check means something;
   then the interface's mtu column and the veth ends the driver uses say
   1600, every 1600-byte ping comes back whole (each port counts one
   1614-byte frame per packet: none was fragmented), marked, and the
   counters count on; a request beyond OVS's own ceiling (9702) is
   refused by OVS, the port keeps 1600 and forwards;
7. a monitor reads both ports' statistics column every second through
   all of this, as OVS's users' monitoring does: no counter ever goes
   backwards;
8. the rte_flow rules OVS asked for, with the driver's answer to each
   (created, with the engine and verbs rule count the driver logged, or
   refused, with the error type and message OVS got back), are printed;
   each refusal carries a message and each created rule the driver's log
   line.

Two more scenarios, each a test of its own:
- rxq-shrink: n_rxq 2 -> 4, a datapath flow offloaded again at 4 queues
  (its rule's RSS lists queues 0..3), then n_rxq 4 -> 2: the port starts
  again with the rule kept, marking, over the listed queues that are
  left (OVS makes no rule again after a reconfiguration).
- mtu-max: mtu_request at OVS 3.1's own ceiling (9702; OVS checks no
  device's max_mtu and drops a port whose MTU the driver refuses): the
  driver takes it, jumbo pings cross the bridge whole and marked.
"""

import collections
import re
import threading
import time

import ovs_e2e
import ovs_parse
import vsteer_e2e as e2e
from toeplitz import ipv4_input, toeplitz_hash

QUEUES = 2
MORE_QUEUES = 4
SUBNET = "192.0.2."  # RFC 5737 TEST-NET-1, only inside the namespaces
# The key the driver gives a port whose configuration has none (OVS sets
# none): mlx4/mlx5's historical default (rss_hash_default_key).
DEFAULT_RSS_KEY = bytes.fromhex(
    "2cc681d15bdbf4f7fca28319db1a3e946b9e38d9"
    "2c9c03d1ad9944a7d9563d59063c25f3fc1fdc2a")
BURST = 8            # echo requests per address pair in a marked burst
OFFLOAD_WAIT = 10.0  # seconds for OVS to offload the flows
LINK_WAIT = 10.0     # seconds for OVS to show a link change
ETH_HLEN = 14
PING_IP_LEN = 84     # peer.py's default echo request: 20 + 8 + 56
VETH_SPEED = 10 ** 10  # veth_get_link_ksettings(): SPEED_10000, full
MTU = 1600
# OVS 3.1 refuses by itself an MTU whose frame with two VLAN tags and the
# CRC exceeds NETDEV_DPDK_MAX_PKT_LEN, 9728 (netdev_dpdk_set_mtu()).
OVS_MTU_CEILING = 9728 - 26
# The driver's largest MTU on a veth (the guide's "MTU": softverbs' links
# take up to an mlx5 netdev's 9978), above OVS's ceiling.
DRIVER_MAX_MTU = 9978
RXQ_COUNTER = re.compile(r"^rx_q(\d+)_")


def queue_of(src, dst, queues=QUEUES):
    """Queue of an IPv4 packet that is neither TCP nor UDP: RSS over
    queues 0..queues-1 (a power of two: the low bits of the hash)."""
    return toeplitz_hash(DEFAULT_RSS_KEY, ipv4_input(src, dst)) % queues


def address_pairs(queues):
    """(a, b) pairs, a in namespace 0 and b in namespace 1, such that
    the requests (a -> b, on port 0) and the replies (b -> a, on port 1)
    each use every queue of 0..queues-1 (and so of any power of two
    below)."""
    cands = [(SUBNET + str(2 * i + 1), SUBNET + str(2 * j + 2))
             for i in range(8) for j in range(8)]
    pairs = []
    seen = (set(), set())
    for a, b in cands:
        qa, qb = queue_of(a, b, queues), queue_of(b, a, queues)
        if qa in seen[0] and qb in seen[1]:
            continue
        pairs.append((a, b))
        seen[0].add(qa)
        seen[1].add(qb)
        if len(seen[0]) == queues and len(seen[1]) == queues:
            return pairs
    raise AssertionError("no address pairs spread over %d queues" % queues)


class Traffic:
    """What was sent, to know what each port and queue must have seen.
    rss_queues is the number of queues the ports' IPv4 rules spread
    over (the n_rxq OVS made them with)."""

    def __init__(self, topo, pairs):
        self.topo = topo
        self.pairs = pairs
        self.rss_queues = QUEUES
        self.rx = [collections.Counter(), collections.Counter()]
        self.rx_bytes = [0, 0]

    def ping(self, count, size=None):
        """count echo requests per pair (IP length size, DF set, when
        given); all must be answered, whole. Returns the number of
        packets the ports received (requests + replies)."""
        res = self.topo.ping(0, [(a, b, count) for a, b in self.pairs],
                             size=size, results=True)
        ip_len = size or PING_IP_LEN
        for (a, b), r in zip(self.pairs, res):
            e2e.check(r["replies"] == count, "ping %s -> %s across the "
                      "bridge%s: %d of %d replies", a, b,
                      " (%d-byte IP packets, DF)" % size if size else "",
                      r["replies"], count)
            e2e.check(all(n == ip_len for n in r["sizes"]), "ping %s -> %s:"
                      " replies of %s bytes, want %d", a, b, r["sizes"],
                      ip_len)
            self.rx[0][queue_of(a, b, self.rss_queues)] += count
            self.rx[1][queue_of(b, a, self.rss_queues)] += count
            self.rx_bytes[0] += count * (ip_len + ETH_HLEN)
            self.rx_bytes[1] += count * (ip_len + ETH_HLEN)
        return 2 * count * len(self.pairs)

    def want(self, port):
        """The statistics port must show: what it received, and sent
        (what the other port received: the bridge forwards each packet
        to the other port and nothing else goes out)."""
        other = 1 - port
        return {"rx_packets": sum(self.rx[port].values()),
                "rx_bytes": self.rx_bytes[port],
                "tx_packets": sum(self.rx[other].values()),
                "tx_bytes": self.rx_bytes[other]}


class StatsMonitor:
    """Reads the ports' statistics column every second in the background,
    as a monitoring system does, and keeps every value each counter
    showed: a counter that ever went backwards is what users of OVS saw
    as a reset."""

    def __init__(self, ovs, ports, period=1.0):
        self.ovs = ovs
        self.ports = ports
        self.period = period
        self.samples = []
        self.errors = []
        self.t0 = time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(30)
        return False

    def _run(self):
        while not self.stop.is_set():
            for port in self.ports:
                try:
                    self.samples.append((time.monotonic(), port,
                                         self.ovs.statistics(port)))
                except Exception as exc:  # OVS going away at the end
                    self.errors.append(str(exc))
            self.stop.wait(self.period)

    def backwards(self):
        """Every decrease between two readings of a counter, as text."""
        last = {}
        out = []
        for t, port, stats in list(self.samples):
            for key, val in stats.items():
                prev = last.get((port, key))
                if prev is not None and val < prev[1]:
                    out.append("%s %s: %d at %.1fs, then %d at %.1fs"
                               % (port, key, prev[1], prev[0] - self.t0,
                                  val, t - self.t0))
                last[(port, key)] = (t, val)
        return out


def ipv4_flows(ovs):
    """The datapath's IPv4 flows, by input port."""
    flows = ovs_parse.dump_flows(ovs.appctl("dpctl/dump-flows", "-m"))
    return {f["in_port"]: f for f in flows if f["eth_type"] == 0x0800}


def rules_made(ovs):
    """rte_flow creations, refusals and destructions OVS logged so far:
    what OVS asked of the driver."""
    text = ovs.log()
    return len(ovs_parse.offload_log(text)) + \
        len(ovs_parse.offload_destroys(text))


def wait_rules_settled(ovs):
    """Until OVS's offload thread has nothing queued and logged no rule
    for half a second (it works on its own: a flow whose actions changed
    is offloaded again some time after), or OFFLOAD_WAIT passed."""
    deadline = time.monotonic() + OFFLOAD_WAIT
    last = None
    while time.monotonic() < deadline:
        stats = ovs_parse.offload_stats(
            ovs.appctl("dpctl/offload-stats-show"))
        now = (stats["enqueued"], rules_made(ovs))
        if now == last and now[0] == 0:
            return
        last = now
        time.sleep(0.5)


def wait_offloaded(ovs, traffic, out, partial_rules=0):
    """Keep traffic going until the IPv4 flow of every port is offloaded
    (the offload thread works asynchronously) with its final actions and
    OVS logged at least partial_rules created partial-offload rules, or
    OFFLOAD_WAIT passed. out maps a port to the one its traffic leaves
    by once the bridge has learnt the MAC addresses: until then a flow
    floods, and OVS offloads it again when its actions change."""
    deadline = time.monotonic() + OFFLOAD_WAIT
    while True:
        traffic.ping(1)
        flows = ipv4_flows(ovs)
        done = [p for p in out if p in flows and flows[p]["offloaded"] and
                flows[p]["actions"] == out[p]]
        made = [a for a in ovs_parse.offload_log(ovs.log())
                if a["ok"] and not a["transfer"]]
        if (len(done) == len(out) and len(made) >= partial_rules) or \
                time.monotonic() > deadline:
            wait_rules_settled(ovs)
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


def wait_port_counts(ovs, ports, traffic, timeout=15.0):
    """OVS refreshes the statistics column every 5 s: wait until each
    port's packet counters reach what was sent, then return the
    columns."""
    deadline = time.monotonic() + timeout
    while True:
        stats = {p: ovs.statistics(p) for p in ports}
        if all(stats[p].get(k, 0) >= v for i, p in enumerate(ports)
               for k, v in traffic.want(i).items() if k.endswith("packets")) \
                or time.monotonic() > deadline:
            return stats
        time.sleep(0.5)


def check_counts(ovs, ports, traffic, n_rxq, when):
    """Each port's statistics are exactly what was sent since the start:
    packets and bytes both ways, per Rx queue of the n_rxq the port has
    (and no counter of a queue beyond), nothing dropped or in error."""
    stats = wait_port_counts(ovs, ports, traffic)
    for i, port in enumerate(ports):
        s = stats[port]
        want = traffic.want(i)
        got = {k: s.get(k) for k in want}
        queues = {q: s.get("rx_q%d_packets" % q) for q in range(n_rxq)}
        exp = {q: traffic.rx[i][q] for q in range(n_rxq)}
        e2e.log("%s %s: %s, per queue %s" % (port, when, got, queues))
        e2e.check_eq(got, want, "%s statistics %s (since the start)"
                     % (port, when))
        e2e.check_eq(queues, exp, "%s packets per Rx queue %s"
                     % (port, when))
        beyond = sorted(k for k in s if RXQ_COUNTER.match(k) and
                        int(RXQ_COUNTER.match(k).group(1)) >= n_rxq)
        e2e.check(not beyond, "%s %s: counters of queues beyond %d: %s",
                  port, when, n_rxq, beyond)
        for c in ("rx_dropped", "rx_errors", "rx_missed_errors",
                  "rx_mbuf_allocation_errors", "tx_dropped", "tx_errors"):
            e2e.check_eq(s.get(c), 0, "%s %s %s" % (port, c, when))
    return stats


def marked_burst(ovs, traffic, ports, when, size=None):
    """A burst after which every packet must have come marked: the IPv4
    flow of each port offloaded:partial, phwol hits equal the packets
    the PMD threads received."""
    ovs.appctl("dpif-netdev/pmd-stats-clear")
    sent = traffic.ping(BURST, size=size)
    pmd = ovs_parse.pmd_stats(ovs.appctl("dpif-netdev/pmd-stats-show"))
    received = ovs_parse.pmd_total(pmd, "packets received")
    marked = ovs_parse.pmd_total(pmd, "phwol hits")
    e2e.log("burst of %d packets %s: PMD threads received %d, phwol hits %d"
            % (sent, when, received, marked))
    e2e.check_eq(received, sent, "packets the PMD threads received %s"
                 % when)
    flows = ipv4_flows(ovs)
    for port in ports:
        f = flows.get(port)
        e2e.check(f is not None and f["offloaded"] == "partial",
                  "%s %s: the IPv4 datapath flow is not offloaded:partial "
                  "(%s)", port, when, f["line"] if f else "no such flow")
    e2e.check(marked == sent, "partial hardware offload %s: %d of %d "
              "packets came marked (pmd-stats-show 'phwol hits')", when,
              marked, sent)


def set_interfaces(ovs, ports, *settings):
    """ovs-vsctl set interface <port> <settings> for each port, in one
    transaction; returns the log position before it."""
    mark = ovs.log_mark()
    args = []
    for port in ports:
        args += ["--", "set", "interface", port, *settings]
    ovs.vsctl(*args[1:])
    return mark


def reconfigure(ovs, ports, settings, want, when):
    """Change the ports' configuration; wait until OVS applied it, and
    check it created or destroyed no rte_flow rule meanwhile: the rules
    the driver keeps are the ones under test."""
    wait_rules_settled(ovs)
    before = rules_made(ovs)
    mark = set_interfaces(ovs, ports, *settings)
    ovs.wait_configured(ports, mark, **want)
    e2e.log("OVS applied %s to %s: %s" % (" ".join(settings),
                                          ", ".join(ports), want))
    e2e.check_eq(rules_made(ovs) - before, 0,
                 "rte_flow creations and destructions OVS logged %s" % when)
    return mark


def wait_link(ovs, port, state, since):
    deadline = time.monotonic() + LINK_WAIT
    while True:
        row = ovs.rows("Interface", port, "link_state", "link_speed",
                       "duplex")
        if row["link_state"] == state:
            e2e.log("%s: link_state %s after %.1fs (%s)"
                    % (port, state, time.monotonic() - since, row))
            return row
        if time.monotonic() > deadline:
            raise AssertionError("%s: link_state %r %.0fs after the peer "
                                 "went %s, want %r" % (port, row["link_state"],
                                                       LINK_WAIT, state,
                                                       state))
        time.sleep(0.1)


def check_link(ovs, topo, ports):
    for port in ports:
        row = ovs.rows("Interface", port, "link_state", "link_speed",
                       "duplex", "status")
        e2e.log("%s: link_state %s, link_speed %s, duplex %s, status "
                "link_speed %s" % (port, row["link_state"], row["link_speed"],
                                   row["duplex"],
                                   row["status"].get("link_speed")))
        e2e.check_eq((row["link_state"], row["link_speed"], row["duplex"]),
                     ("up", VETH_SPEED, "full"),
                     "%s link_state, link_speed, duplex" % port)
        e2e.check_eq(row["status"].get("link_speed"), "10Gbps",
                     "%s status:link_speed" % port)
    # OVS 3.1 asks for no link state interrupt unless told (options:
    # dpdk-lsc-interrupt, default false): it polls. Ask for it on p1.
    lsc = dict((p, ovs.dpif_ports()[p]["config"].get("lsc_interrupt_mode"))
               for p in ports)
    e2e.check_eq(lsc, {ports[0]: "false", ports[1]: "false"},
                 "OVS's default lsc_interrupt_mode (dpif/show)")
    reconfigure(ovs, ports[1:], ["options:dpdk-lsc-interrupt=true"],
                {"lsc_interrupt_mode": "true"}, "asking for link interrupts")
    for i, port in enumerate(ports):
        how = "events" if i else "polling"
        t0 = time.monotonic()
        topo.set_peer_link(i, "down")
        row = wait_link(ovs, port, "down", t0)
        e2e.check_eq(row["link_speed"], [], "%s link_speed while down (%s)"
                     % (port, how))
        t0 = time.monotonic()
        topo.set_peer_link(i, "up")
        row = wait_link(ovs, port, "up", t0)
        e2e.check_eq((row["link_speed"], row["duplex"]), (VETH_SPEED, "full"),
                     "%s link_speed, duplex up again (%s)" % (port, how))


def check_mtu(ovs, topo, ports, traffic):
    for i in range(len(ports)):
        topo.set_peer_mtu(i, MTU)
    # The oracle: at 1500, the veth end the driver uses drops a 1614-byte
    # frame (is_skb_forwardable()), so no reply; were the MTU not applied
    # below, the same ping would fail there.
    res = topo.ping(0, [(a, b, 1) for a, b in traffic.pairs], size=MTU,
                    timeout=0.5, results=True)
    e2e.check_eq([r["replies"] for r in res], [0] * len(traffic.pairs),
                 "replies to %d-byte pings with the ports at MTU 1500" % MTU)
    reconfigure(ovs, ports, ["mtu_request=%d" % MTU], {"mtu": MTU},
                "changing the MTU")
    for i, port in enumerate(ports):
        row = ovs.rows("Interface", port, "mtu", "mtu_request")
        e2e.check_eq((row["mtu"], row["mtu_request"]), (MTU, MTU),
                     "%s mtu, mtu_request" % port)
        e2e.check_eq(topo.host_mtu(i), MTU,
                     "MTU of %s, the interface behind %s" % (topo.host[i],
                                                             port))
    marked_burst(ovs, traffic, ports, "of %d-byte packets at MTU %d"
                 % (MTU, MTU), size=MTU)
    check_counts(ovs, ports, traffic, QUEUES, "after the MTU change")

    # Beyond what OVS itself takes: refused before the port is touched.
    mtu = OVS_MTU_CEILING + 1
    mark = set_interfaces(ovs, ports[:1], "mtu_request=%d" % mtu)
    refusal = "%s: unsupported MTU %d" % (ports[0], mtu)
    deadline = time.monotonic() + 10
    while refusal not in ovs.log_since(mark) and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    e2e.check(refusal in ovs.log_since(mark), "mtu_request=%d: no %r in "
              "OVS's log; it logged: %s", mtu, refusal,
              ovs.problems_since(mark))
    row = ovs.rows("Interface", ports[0], "mtu", "error", "link_state")
    e2e.log("mtu_request=%d on %s: OVS logged %r, the interface shows %s"
            % (mtu, ports[0], refusal, row))
    e2e.check_eq((row["mtu"], row["error"], row["link_state"]),
                 (MTU, [], "up"), "%s mtu, error, link_state after "
                 "mtu_request=%d" % (ports[0], mtu))
    traffic.ping(1, size=MTU)
    set_interfaces(ovs, ports[:1], "mtu_request=%d" % MTU)


def check_rules(ovs, ports, soft):
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


def start(topo, ovs, queues_pairs):
    """Bridge, ports, addresses; returns (ports, traffic)."""
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

    pairs = address_pairs(queues_pairs)
    for side, addrs in enumerate((sorted({a for a, _ in pairs}),
                                  sorted({b for _, b in pairs}))):
        for addr in addrs:
            topo.add_address(side, addr)
            topo.add_neighbour(1 - side, addr, topo.peer_mac[side])
    e2e.log("address pairs (request queue on p0, reply queue on p1, of %d "
            "and of %d): " % (QUEUES, MORE_QUEUES)
            + ", ".join("%s->%s (q%d|q%d, q%d|q%d)"
                        % (a, b, queue_of(a, b), queue_of(a, b, MORE_QUEUES),
                           queue_of(b, a), queue_of(b, a, MORE_QUEUES))
                        for a, b in pairs))
    return ports, Traffic(topo, pairs)


def main_scenario(topo, ovs):
    failures = []

    def soft(cond, msg, *fmt):
        """A check whose failure does not stop the test: what follows
        still runs and is reported."""
        if not cond:
            failures.append(msg % fmt if fmt else msg)
            e2e.log("FAILED: " + failures[-1])

    # Pairs over 4 queues: with 4 queues and the rules made over 0..1,
    # some packets would land on 2 or 3 if the rules followed n_rxq.
    ports, traffic = start(topo, ovs, MORE_QUEUES)
    with StatsMonitor(ovs, ports) as monitor:
        # 1. Forwarding (a failure here stops the test).
        traffic.ping(3)
        e2e.log("ping across the bridge: %d pairs x 3, every reply came"
                % len(traffic.pairs))

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
        stats = ovs_parse.offload_stats(
            ovs.appctl("dpctl/offload-stats-show"))
        e2e.log("dpctl/offload-stats-show: %s" % stats)
        soft(stats["inserted"] >= len(ports),
             "dpctl/offload-stats-show: %d offloads inserted, want at least "
             "%d (one per port)", stats["inserted"], len(ports))
        if failures:
            raise AssertionError("no offload to keep across "
                                 "reconfiguration:\n  "
                                 + "\n  ".join(failures))
        marked_burst(ovs, traffic, ports, "once offloaded")

        # 3. Per-queue counters of the driver.
        check_counts(ovs, ports, traffic, QUEUES, "at first")

        # 4. Link.
        check_link(ovs, topo, ports)

        # 5. Reconfiguration: OVS stops, configures, starts the ports and
        # makes no rule again. The rules made over queues 0..1 stay so
        # with 4 queues: packets keep their queue (hash mod 2).
        for n_rxq in (MORE_QUEUES, QUEUES):
            when = "after n_rxq=%d" % n_rxq
            reconfigure(ovs, ports, ["options:n_rxq=%d" % n_rxq],
                        {"configured_rx_queues": n_rxq}, when)
            marked_burst(ovs, traffic, ports, when)
            check_counts(ovs, ports, traffic, n_rxq, when)

        # 6. MTU.
        check_mtu(ovs, topo, ports, traffic)
        check_counts(ovs, ports, traffic, QUEUES, "at the end")

    # 7. What monitoring saw.
    back = monitor.backwards()
    e2e.log("statistics read %d times in the background; %d went "
            "backwards" % (len(monitor.samples), len(back)))
    e2e.check(len(monitor.samples) >= 10, "the statistics monitor read "
              "%d samples (errors: %s)", len(monitor.samples),
              monitor.errors[-3:])
    e2e.check(not back, "counters went backwards (as OVS's statistics "
              "column showed them):\n  %s", "\n  ".join(back))

    # 8. The rules and the answers.
    check_rules(ovs, ports, soft)
    if failures:
        raise AssertionError("%d check(s) failed:\n  %s"
                             % (len(failures), "\n  ".join(failures)))


def queue_deltas(before, after, ports, queues):
    return [{q: after[p].get("rx_q%d_packets" % q, 0) -
             before[p].get("rx_q%d_packets" % q, 0) for q in range(queues)}
            for p in ports]


def rxq_shrink_scenario(topo, ovs):
    """A rule made while the port has 4 queues lists queues 0..3; OVS
    then reconfigures the port to 2 queues and keeps relying on it."""
    ports, traffic = start(topo, ovs, MORE_QUEUES)
    traffic.ping(1)
    wait_offloaded(ovs, traffic, {"p0": "p1", "p1": "p0"})
    reconfigure(ovs, ports, ["options:n_rxq=%d" % MORE_QUEUES],
                {"configured_rx_queues": MORE_QUEUES}, "n_rxq=4")
    # The revalidators delete the datapath flows (and OVS their
    # rules); the next packets make them again, and OVS offloads them
    # with RSS over the 4 queues the ports have now.
    made = len([a for a in ovs_parse.offload_log(ovs.log())
                if a["ok"] and not a["transfer"]])
    ovs.appctl("revalidator/purge")
    wait_offloaded(ovs, traffic, {"p0": "p1", "p1": "p0"},
                   partial_rules=made + len(ports))
    # The rules made now spread over queues 0..3: each packet of a
    # burst lands on its Toeplitz hash mod 4.
    before = wait_port_counts(ovs, ports, traffic)
    rx = [collections.Counter(c) for c in traffic.rx]
    traffic.rss_queues = MORE_QUEUES
    marked_burst(ovs, traffic, ports, "with rules made at n_rxq=4")
    after = wait_port_counts(ovs, ports, traffic)
    got = queue_deltas(before, after, ports, MORE_QUEUES)
    for i, port in enumerate(ports):
        exp = {q: traffic.rx[i][q] - rx[i][q] for q in range(MORE_QUEUES)}
        e2e.log("%s, rules made at n_rxq=4: the burst per queue %s "
                "(Toeplitz hash mod 4: %s)" % (port, got[i], exp))
        e2e.check_eq(got[i], exp, "%s burst per Rx queue under a rule "
                     "made at n_rxq=4" % port)

    mark = ovs.log_mark()
    reconfigure(ovs, ports, ["options:n_rxq=%d" % QUEUES],
                {"configured_rx_queues": QUEUES}, "n_rxq 4 -> 2")
    # The rules listing 0..3 now spread over the listed queues left,
    # 0 and 1, as a rule made over 0..1 does: Toeplitz hash mod 2.
    rx = [collections.Counter(c) for c in traffic.rx]
    traffic.rss_queues = QUEUES
    marked_burst(ovs, traffic, ports, "after n_rxq 4 -> 2")
    stats = wait_port_counts(ovs, ports, traffic)
    got = queue_deltas(after, stats, ports, QUEUES)
    for i, port in enumerate(ports):
        s = stats[port]
        want = traffic.want(i)
        exp = {q: traffic.rx[i][q] - rx[i][q] for q in range(QUEUES)}
        e2e.log("%s after n_rxq 4 -> 2: the burst per queue %s "
                "(Toeplitz hash mod 2: %s)" % (port, got[i], exp))
        e2e.check_eq({k: s.get(k) for k in want}, want,
                     "%s statistics after n_rxq 4 -> 2" % port)
        e2e.check_eq(got[i], exp, "%s burst per Rx queue after n_rxq "
                     "4 -> 2" % port)
        beyond = sorted(k for k in s if RXQ_COUNTER.match(k) and
                        int(RXQ_COUNTER.match(k).group(1)) >= QUEUES)
        e2e.check(not beyond, "%s: counters of removed queues: %s",
                  port, beyond)
    # The driver says what it did with the rules (one line per start).
    said = [line for line in ovs.log_since(mark).splitlines()
            if "kept rules list Rx queues beyond the 2 configured" in line]
    e2e.log("the driver at the restart:\n    %s" % "\n    ".join(said))
    e2e.check(said, "no notice from the driver about the rules kept over "
              "queues 2 and 3")


def mtu_max_scenario(topo, ovs):
    """mtu_request at OVS's own ceiling, the largest MTU OVS lets
    through: the driver (max_mtu 9978) must take it, or OVS 3.1 drops
    the port for good."""
    ports, traffic = start(topo, ovs, QUEUES)
    traffic.ping(2)
    mtu = OVS_MTU_CEILING
    e2e.check(DRIVER_MAX_MTU >= mtu, "the driver's largest MTU %d is below"
              " OVS's ceiling %d", DRIVER_MAX_MTU, mtu)
    for i in range(len(ports)):
        topo.set_peer_mtu(i, mtu)
    reconfigure(ovs, ports, ["mtu_request=%d" % mtu], {"mtu": mtu},
                "mtu_request=%d" % mtu)
    for i, port in enumerate(ports):
        row = ovs.rows("Interface", port, "mtu", "error", "link_state")
        e2e.check_eq((row["mtu"], row["error"], row["link_state"]),
                     (mtu, [], "up"), "%s mtu, error, link_state" % port)
        e2e.check_eq(topo.host_mtu(i), mtu, "MTU of %s, the interface "
                     "behind %s" % (topo.host[i], port))
    traffic.ping(1)
    marked_burst(ovs, traffic, ports, "of %d-byte packets at MTU %d"
                 % (mtu, mtu), size=mtu)
    check_counts(ovs, ports, traffic, QUEUES, "after MTU %d" % mtu)


SCENARIOS = {"main": main_scenario, "rxq-shrink": rxq_shrink_scenario,
             "mtu-max": mtu_max_scenario}


def main(args):
    ovs_e2e.require_ovs(args.ovs_vswitchd)
    # Datapath flows idle for max-idle (10 s by default) go, and their
    # rules with them; the next packets would make new ones with the
    # n_rxq of the moment. The test says when rules are made again.
    with ovs_e2e.Topology(2) as topo, \
            ovs_e2e.Ovs(args.pmd, topo.ovs_ns, vswitchd=args.ovs_vswitchd,
                        other_config={"max-idle": "600000"}) as ovs:
        SCENARIOS[args.scenario](topo, ovs)


def options(ap):
    ap.add_argument("--ovs-vswitchd", default=ovs_e2e.VSWITCHD_DPDK,
                    help="ovs-vswitchd built with DPDK")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS),
                    default="main")


if __name__ == "__main__":
    e2e.run(main, options=options, testpmd=False)
