#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The OVS output parsers against text OVS 3.1 printed (Debian 12's
openvswitch-switch-dpdk 3.1.0 with the vsteer PMD), shortened."""

import sys

import ovs_parse as parse

OFFLOAD_STATS = """\
HW Offload stats:
     Total                 Enqueued offloads:      3
     Total                 Inserted offloads:      9
     Total   Cumulative Average latency (us):   5925
     Total    Cumulative Latency stddev (us):    542
     [  0]                 Enqueued offloads:      3
     [  0]                 Inserted offloads:      9
     [  0]   Cumulative Average latency (us):   5925
"""

PMD_STATS = """\
pmd thread numa_id 0 core_id 1:
  packets received: 42
  packet recirculations: 0
  avg. datapath passes per packet: 1.00
  phwol hits: 24
  mfex opt hits: 0
  emc hits: 10
  miss with success upcall: 8
  idle cycles: 2601902515 (99.00%)
  processing cycles: 26281843 (1.00%)
pmd thread numa_id 0 core_id 3:
  packets received: 8
  phwol hits: 6
main thread:
  packets received: 5
  phwol hits: 0
  avg. packets per output batch: 0.00"""

DUMP_FLOWS = """\
flow-dump from pmd on cpu core: 1
ufid:9a1be82a-9f7d-4971-84d7-5ecf248be45a, skb_priority(0/0),skb_mark(0/0),\
ct_state(0/0),ct_zone(0/0),ct_mark(0/0),ct_label(0/0),recirc_id(0),\
dp_hash(0/0),in_port(p0),packet_type(ns=0,id=0),eth(src=ea:1d:93:1e:c9:17,\
dst=a2:7c:0e:10:93:e5),eth_type(0x0800),ipv4(src=192.0.2.1/0.0.0.0,\
dst=192.0.2.2/0.0.0.0,proto=1/0,tos=0/0,ttl=64/0,frag=no),icmp(type=8/0,\
code=0/0), packets:14, bytes:1372, used:0.023s, offloaded:partial, dp:ovs, \
actions:p1, dp-extra-info:miniflow_bits(5,1)
ufid:89373268-cb2b-4f51-ad56-9c5930c15d39, skb_priority(0/0),skb_mark(0/0),\
ct_state(0/0),ct_zone(0/0),ct_mark(0/0),ct_label(0/0),recirc_id(0),\
dp_hash(0/0),in_port(p1),packet_type(ns=0,id=0),eth(src=ea:1d:93:1e:c9:17,\
dst=ff:ff:ff:ff:ff:ff),eth_type(0x0806),arp(sip=192.0.2.1,tip=192.0.2.2,op=1,\
sha=ea:1d:93:1e:c9:17/00:00:00:00:00:00,tha=00:00:00:00:00:00/00:00:00:00:00:\
00), packets:0, bytes:0, used:never, dp:ovs, actions:br0,p1, \
dp-extra-info:miniflow_bits(5,2)
"""

IFACE_JSON = ('{"data":[[["set",[]],1,"up",["map",[["rx_packets",40],'
              '["rx_q0_packets",20],["rx_q1_packets",20]]]],'
              '[["set",[]],["set",[]],"down",["map",[]]],'
              '["could not open network device p9 (No such device)",-1,'
              '"down",["map",[]]]],'
              '"headings":["error","ofport","link_state","statistics"]}')

DPIF_SHOW = """\
netdev@ovs-netdev: hit:6 missed:2
  vsb1ec27c:
    p0 1/2: (dpdk: configured_rx_queues=4, configured_rxq_descriptors=2048, \
configured_tx_queues=2, configured_txq_descriptors=2048, \
lsc_interrupt_mode=false, mtu=1500, requested_rx_queues=4, \
requested_rxq_descriptors=2048, requested_tx_queues=2, \
requested_txq_descriptors=2048, rx_csum_offload=true, tx_tso_offload=false)
    p1 2/3: (dpdk: configured_rx_queues=2, lsc_interrupt_mode=true, mtu=1600)
    vsb1ec27c 65534/1: (tap)
"""

T = "2026-11-25T15:34:47.523Z|000%02d|"
LOG = "\n".join([
    T % 1 + "dpif_netdev(pmd-c01/id:9)|DBG|flow_add: ufid:69fad24e",
    T % 2 + "dpdk(hw_offload6)|DBG|vsteer_flow_create(): port 0: flow "
    "0x13a98aec0 created (verbs, 3 rule(s))",
    T % 3 + "netdev_offload_dpdk(hw_offload6)|DBG|p0: rte_flow 0x13a98aec0"
    "   flow create 0 ingress priority 0 group 0 pattern eth src is "
    "ea:1d:93:1e:c9:17 dst is a2:7c:0e:10:93:e5 type is 0x0800 has_vlan is 0"
    " / ipv4 fragment_offset is 0x0 / end actions mark id 7 / rss / end",
    T % 4 + "netdev_offload_dpdk(hw_offload6)|DBG|p0/p0: installed flow "
    "0x13a98aec0 by ufid 69fad24e-6f3c-4de8-b745-0bca58e1f31f",
    T % 5 + "netdev_offload_dpdk(hw_offload6)|DBG|Cannot find netdev for odp"
    " port 1",
    T % 6 + "netdev_offload_dpdk(hw_offload6)|WARN|p1: rte_flow creation "
    "failed: 7 (transfer not supported).",
    T % 7 + "netdev_offload_dpdk(hw_offload6)|WARN|p1: Failed flow:   flow "
    "create 1 priority 0 group 0 transfer pattern eth src is "
    "a2:7c:0e:10:93:e5 dst is ea:1d:93:1e:c9:17 type is 0x0800 has_vlan is 0"
    " / ipv4 fragment_offset is 0x0 / end actions count / port_id original 0"
    " id 0 / end",
    T % 8 + "netdev_offload_dpdk(hw_offload6)|WARN|p1: rte_flow creation "
    "failed: 12 (ETH item: mask on has_vlan not supported).",
    T % 9 + "netdev_offload_dpdk(hw_offload6)|WARN|p1: Failed flow:   flow "
    "create 1 ingress priority 0 group 0 pattern eth src is "
    "a2:7c:0e:10:93:e5 dst is ea:1d:93:1e:c9:17 type is 0x0800 has_vlan is 0"
    " / ipv4 fragment_offset is 0x0 / end actions mark id 8 / rss / end",
    T % 11 + "netdev_offload_dpdk(hw_offload6)|DBG|p0/p0: rte_flow "
    "0x13a98aec0 flow destroy 0 ufid 5685c04d-dbae-4cde-b565-27930975addc",
    # A created rule the driver did not log (its log level left alone).
    T % 10 + "netdev_offload_dpdk(hw_offload6)|DBG|p1: rte_flow 0x2000   "
    "flow create 1 ingress priority 0 group 0 pattern eth / end actions "
    "mark id 9 / rss / end",
])

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: %s" % what)


def test_offload_stats():
    check(parse.offload_stats(OFFLOAD_STATS) ==
          {"enqueued": 3, "inserted": 9}, "offload-stats-show totals")
    try:
        parse.offload_stats("HW Offload stats:\n")
        check(False, "offload-stats-show without totals accepted")
    except ValueError:
        pass


def test_pmd_stats():
    threads = parse.pmd_stats(PMD_STATS)
    check([t["thread"] for t in threads] ==
          ["pmd thread numa_id 0 core_id 1", "pmd thread numa_id 0 core_id 3",
           "main thread"], "pmd-stats-show sections: %r" % threads)
    check(threads[0]["phwol hits"] == 24 and
          threads[0]["packets received"] == 42 and
          threads[0]["idle cycles"] == 2601902515,
          "pmd-stats-show counters: %r" % threads[0])
    # The main thread polls no hardware queue: left out of the totals.
    check(parse.pmd_total(threads, "phwol hits") == 30, "phwol hits total")
    check(parse.pmd_total(threads, "packets received") == 50,
          "packets received total")


def test_dump_flows():
    flows = parse.dump_flows(DUMP_FLOWS)
    check(len(flows) == 2, "two datapath flows: %r" % flows)
    f = flows[0]
    check((f["ufid"], f["in_port"], f["eth_type"], f["offloaded"],
           f["packets"], f["actions"]) ==
          ("9a1be82a-9f7d-4971-84d7-5ecf248be45a", "p0", 0x0800, "partial",
           14, "p1"), "offloaded IPv4 flow: %r" % f)
    f = flows[1]
    check((f["in_port"], f["eth_type"], f["offloaded"], f["packets"],
           f["actions"]) == ("p1", 0x0806, None, 0, "br0,p1"),
          "flow in software: %r" % f)


def test_ovsdb_rows():
    rows = parse.ovsdb_rows(IFACE_JSON)
    check(rows[0] == {"error": [], "ofport": 1, "link_state": "up",
                      "statistics": {"rx_packets": 40, "rx_q0_packets": 20,
                                     "rx_q1_packets": 20}},
          "interface row: %r" % rows[0])
    check(rows[1]["ofport"] == [] and rows[1]["statistics"] == {},
          "empty set and map: %r" % rows[1])
    check(rows[2]["error"].startswith("could not open"),
          "error string: %r" % rows[2])


def test_offload_log():
    a = parse.offload_log(LOG)
    check(len(a) == 4, "four rule attempts: %r" % a)
    if len(a) != 4:
        return
    check(a[0]["ok"] and a[0]["netdev"] == "p0" and a[0]["port_id"] == 0 and
          a[0]["handle"] == "0x13a98aec0" and
          a[0]["driver"] == "verbs, 3 rule(s)" and not a[0]["transfer"] and
          a[0]["rule"].startswith("ingress priority 0 group 0 pattern eth ")
          and a[0]["rule"].endswith("actions mark id 7 / rss / end"),
          "created rule with the driver's answer: %r" % a[0])
    check(not a[1]["ok"] and a[1]["transfer"] and a[1]["netdev"] == "p1" and
          a[1]["error_type"] == "ATTR_TRANSFER" and
          a[1]["error"] == "transfer not supported" and
          "port_id original 0 id 0" in a[1]["rule"],
          "refused full offload: %r" % a[1])
    check(not a[2]["ok"] and not a[2]["transfer"] and
          a[2]["error_type"] == "ITEM_MASK" and
          a[2]["error"] == "ETH item: mask on has_vlan not supported" and
          "mark id 8" in a[2]["rule"], "refused partial offload: %r" % a[2])
    check(a[3]["ok"] and a[3]["driver"] is None,
          "created rule without a driver line: %r" % a[3])


def test_dpif_show():
    ports = parse.dpif_show(DPIF_SHOW)
    check(sorted(ports) == ["p0", "p1", "vsb1ec27c"],
          "dpif/show ports: %r" % sorted(ports))
    p0 = ports.get("p0", {})
    check(p0.get("ofport") == 1 and p0.get("odp_port") == 2 and
          p0.get("type") == "dpdk", "dpif/show p0: %r" % p0)
    c = p0.get("config", {})
    check(c.get("configured_rx_queues") == 4 and c.get("mtu") == 1500 and
          c.get("lsc_interrupt_mode") == "false" and
          c.get("tx_tso_offload") == "false" and len(c) == 12,
          "dpif/show p0 configuration: %r" % c)
    c = ports.get("p1", {}).get("config", {})
    check(c == {"configured_rx_queues": 2, "lsc_interrupt_mode": "true",
                "mtu": 1600}, "dpif/show p1 configuration: %r" % c)
    check(ports.get("vsb1ec27c", {}).get("type") == "tap" and
          ports["vsb1ec27c"]["config"] == {}, "bridge port without options")


def test_offload_destroys():
    d = parse.offload_destroys(LOG)
    check(d == [{"netdev": "p0", "handle": "0x13a98aec0", "port_id": 0}],
          "destroyed rules: %r" % d)


def test_rule_shape():
    check(parse.rule_shape("eth src is ea:1d:93:1e:c9:17 dst is "
                           "a2:7c:0e:10:93:e5 / end actions mark id 17 / "
                           "rss / end") ==
          "eth src is <mac> dst is <mac> / end actions mark id <n> / rss / "
          "end", "rule shape")
    check(parse.flow_error_type(16) == "ACTION" and
          parse.flow_error_type(99) == "99", "error type names")


def main():
    for t in (test_offload_stats, test_pmd_stats, test_dump_flows,
              test_ovsdb_rows, test_offload_log, test_dpif_show,
              test_offload_destroys, test_rule_shape):
        t()
    print("%s" % ("PASS" if failures == 0 else "%d failed" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
