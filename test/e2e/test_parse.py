#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The testpmd output parsers against text in DPDK 22.11's formats.

testpmd ends some lines with a space; $SP stands for it below.
"""

import sys

import testpmd_parse as parse


def sp(text):
    return text.replace("$SP", " ")

PORT_STATS = """\r
  ######################## NIC statistics for port 0  ########################\r
  RX-packets: 50         RX-missed: 1          RX-bytes:  35662\r
  RX-errors: 2\r
  RX-nombuf:  3         \r
  TX-packets: 49         TX-errors: 4          TX-bytes:  35000\r
\r
  Throughput (since last show)\r
  Rx-pps:            0          Rx-bps:            0\r
  Tx-pps:            0          Tx-bps:            0\r
  ############################################################################\r
"""

XSTATS = sp("""###### NIC extended statistics for port 0$SP
rx_good_packets: 50
tx_good_packets: 50
rx_q0_packets: 13
rx_q3_bytes: 7936
flow_rules_active: 2
""")

PORT_INFO = """
********************* Infos for port 0  *********************
MAC address: BA:AA:01:F2:BC:75
Device name: net_vsteer0
Driver name: net_vsteer
Firmware-version: softverbs-1
Devargs: dev=soft:vsh1
Link status: up
Link speed: 10 Gbps
Link duplex: full-duplex
Autoneg status: Off
MTU: 1500
Promiscuous mode: enabled
Redirection table size: 128
Supported RSS offload flow types:
  ipv4  ipv4-frag  ipv4-tcp  ipv4-udp  ipv4-sctp  ipv4-other
  ipv6  ipv6-frag  ipv6-tcp  ipv6-udp
Minimum size of RX buffer: 0
Current number of RX queues: 4
Current number of TX queues: 4
Hash key size in bytes: 40
Maximum configurable length of RX packet: 9022
"""

RSS_KEY = """RSS functions:
  ipv4  ipv4-frag  ipv4-other  ipv6  ipv6-frag  ipv6-other
RSS key:
6D5A56DA255B0EC24167253D43A38FB0D0CA2BCBAE7B30B477CB2DA38030F20C6A42B73BBEAC01FA
"""

VERBOSE = sp("""testpmd> port 0/queue 1: received 2 packets
  src=02:76:73:00:01:00 - dst=D2:E1:69:66:44:94 - pool=mb_pool_0 - type=0x0800 - length=72 - nb_segs=1 - RSS hash=0x51ccc178 - RSS queue=0x1 - FDIR matched ID=0x2a - sw ptype: L2_ETHER L3_IPV4 L4_UDP  - l2_len=14 - l3_len=20 - l4_len=8 - Receive queue=0x1
  ol_flags: RTE_MBUF_F_RX_RSS_HASH RTE_MBUF_F_RX_FDIR RTE_MBUF_F_RX_FDIR_ID$SP
  src=02:76:73:00:01:01 - dst=D2:E1:69:66:44:94 - pool=mb_pool_0 - type=0x86dd - length=90 - nb_segs=1 - sw ptype: L2_ETHER L3_IPV6 - Receive queue=0x1
  ol_flags: RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN$SP
show port stats 0
port 0/queue 0: sent 1 packets
  src=02:76:73:00:09:09 - dst=D2:E1:69:66:44:94 - pool=mb_pool_0 - type=0x0800 - length=60 - nb_segs=1 - Send queue=0x0
  ol_flags: RTE_MBUF_F_TX_L4_NO_CKSUM$SP
port 0/queue 3: received 1 packets
  src=02:76:73:00:01:02 - dst=D2:E1:69:66:44:94 - pool=mb_pool_0 - type=0x0800 - length=72 - nb_segs=1 - FDIR matched hash=0x0 ID=0x0  - Receive queue=0x3
  ol_flags: RTE_MBUF_F_RX_FDIR$SP
port 0/queue 0: received 1 packets
  src=02:76:73:00:01:03 - dst=D2:E1:69:66:44:94 - pool=mb_pool_0 - type=0x0800 - length=60 - nb_segs=1 - VLAN tci=0xa064 - hw ptype: L2_ETHER L3_IPV4 L4_UDP  - sw ptype: L2_ETHER L3_IPV4 L4_UDP  - l2_len=14 - l3_len=20 - l4_len=8 - Receive queue=0x0
  ol_flags: RTE_MBUF_F_RX_VLAN RTE_MBUF_F_RX_L4_CKSUM_BAD RTE_MBUF_F_RX_IP_CKSUM_GOOD RTE_MBUF_F_RX_VLAN_STRIPPED$SP
""")

FLOW_QUERY = """COUNT:
 hits_set: 1
 bytes_set: 1
 hits: 12
 bytes: 864
"""

FLOW_ERROR = ("port_flow_complain(): Caught PMD error type 13 (specific "
              "pattern item): cause: 0x7ffe, item not supported: Operation "
              "not supported\n")


def t_port_stats():
    s = parse.port_stats(parse.clean(PORT_STATS))
    assert s == {"rx_packets": 50, "rx_missed": 1, "rx_bytes": 35662,
                 "rx_errors": 2, "rx_nombuf": 3, "tx_packets": 49,
                 "tx_errors": 4, "tx_bytes": 35000}, s
    # The last block wins when a transcript holds several.
    two = PORT_STATS.replace("50 ", "7 ") + PORT_STATS
    assert parse.port_stats(parse.clean(two))["rx_packets"] == 50


def t_xstats():
    x = parse.xstats(XSTATS)
    assert x["rx_good_packets"] == 50 and x["rx_q3_bytes"] == 7936, x
    assert x["flow_rules_active"] == 2 and len(x) == 5, x


def t_port_info():
    i = parse.port_info(PORT_INFO)
    assert i["mac"] == "ba:aa:01:f2:bc:75", i
    assert i["driver"] == "net_vsteer" and i["device"] == "net_vsteer0", i
    assert (i["rx_queues"], i["tx_queues"]) == (4, 4), i
    assert (i["reta_size"], i["hash_key_size"], i["mtu"]) == (128, 40, 1500)
    assert "ipv4-udp" in i["rss_offload_types"], i
    assert "ipv6-udp" in i["rss_offload_types"], i
    assert "Minimum" not in i["rss_offload_types"], i
    assert (i["firmware"], i["speed"], i["duplex"]) == \
        ("softverbs-1", "10 Gbps", "full-duplex"), i
    assert i["max_rx_pktlen"] == 9022, i


def t_rss_conf():
    functions, key = parse.rss_hash_conf(RSS_KEY)
    assert functions == ["ipv4", "ipv4-frag", "ipv4-other", "ipv6",
                         "ipv6-frag", "ipv6-other"], functions
    assert key.hex().startswith("6d5a56da") and len(key) == 40, key
    assert parse.rss_hash_conf("RSS disabled\n") == ([], None)


def t_reta():
    assert parse.reta_masks(128, 1) == "(0,0xffffffffffffffff)"
    assert parse.reta_masks(64, 0) == "(0xffffffffffffffff)"
    assert len(parse.reta_masks(512, 7)) <= 128
    text = "".join("RSS RETA configuration: hash index=%d, queue=%d\n"
                   % (i, i % 4) for i in range(8))
    assert parse.reta(text, 8) == [0, 1, 2, 3, 0, 1, 2, 3]
    try:
        parse.reta(text, 9)
    except ValueError:
        pass
    else:
        raise AssertionError("short RETA accepted")


def t_rx_dump():
    pkts = parse.rx_dump(VERBOSE)
    assert len(pkts) == 4, pkts
    a, b, c, d = pkts
    assert (a.port, a.queue, a.src, a.ethertype, a.length) == \
        (0, 1, "02:76:73:00:01:00", 0x0800, 72), a
    assert a.rss_hash == 0x51ccc178 and a.fdir_matched and a.fdir_id == 0x2a
    assert "RTE_MBUF_F_RX_RSS_HASH" in a.ol_flags, a
    assert (b.queue, b.ethertype, b.rss_hash, b.fdir_matched) == \
        (1, 0x86dd, None, False), b
    # The sent burst is not an Rx packet; queue 3 is.
    assert c.queue == 3 and c.src.endswith("01:02") and c.fdir_matched, c
    assert c.fdir_id is None, c
    assert c.vlan_tci is None and c.hw_ptype == "", c
    assert d.vlan_tci == 0xa064, d
    assert d.hw_ptype == "L2_ETHER L3_IPV4 L4_UDP", d
    assert "RTE_MBUF_F_RX_L4_CKSUM_BAD" in d.ol_flags.split(), d


def t_flow():
    assert parse.flow_created("Flow rule #7 created\n") == 7
    try:
        parse.flow_created(FLOW_ERROR)
    except ValueError as exc:
        assert "item not supported" in str(exc), exc
    else:
        raise AssertionError("error taken for a rule")
    q = parse.flow_count(FLOW_QUERY)
    assert q == {"hits_set": 1, "bytes_set": 1, "hits": 12, "bytes": 864}, q
    assert parse.error_line("ok\n" + FLOW_ERROR).startswith("port_flow")


FLOW_LIST = sp("""ID\tGroup\tPrio\tAttr\tRule
0\t0\t0\ti--\tETH IPV4 TCP => QUEUE COUNT
2\t0\t3\t-e-\tETH IPV4 => DROP
""")

PMD_ERROR = ("port_flow_complain(): Caught PMD error type 15 (action "
             "configuration): cause: 0x7ffd2c1e0a20, QUEUE action: queue "
             "index 9 out of range (4 Rx queues configured): Invalid "
             "argument\n")

INDIRECT_QUERY = """Indirect COUNT action:
 hits_set: 1
 bytes_set: 1
 hits: 2
 bytes: 134
"""


def t_flow_list():
    rules = parse.flow_list("flow list 0\n" + FLOW_LIST)
    assert [r["id"] for r in rules] == [0, 2], rules
    assert rules[0]["rule"] == "ETH IPV4 TCP => QUEUE COUNT", rules
    assert (rules[1]["prio"], rules[1]["attr"]) == (3, "-e-"), rules
    assert parse.flow_list("ID\tGroup\tPrio\tAttr\tRule\n") == []


def t_pmd_error():
    e = parse.pmd_error("junk\n" + PMD_ERROR)
    assert (e.type, e.type_name) == (15, "action configuration"), e
    # The message keeps its own colons and parentheses.
    assert e.message == ("QUEUE action: queue index 9 out of range "
                         "(4 Rx queues configured)"), e
    assert e.strerror == "Invalid argument", e
    e = parse.pmd_error(FLOW_ERROR)
    assert (e.type, e.message) == (13, "item not supported"), e
    assert parse.pmd_error("Flow rule #0 created\n") is None
    # Type names may hold parentheses too.
    e = parse.pmd_error("port_flow_complain(): Caught PMD error type 2 "
                        "(flow rule (handle)): cause: 0x13e01a7c0, "
                        "indirect COUNT still used by 1 flow(s): Device "
                        "or resource busy")
    assert (e.type, e.type_name) == (2, "flow rule (handle)"), e
    assert e.message == "indirect COUNT still used by 1 flow(s)", e
    assert e.strerror == "Device or resource busy", e


def t_indirect_count():
    q = parse.indirect_count(INDIRECT_QUERY)
    assert (q["hits"], q["bytes"]) == (2, 134), q
    try:
        parse.indirect_count(FLOW_ERROR)
    except ValueError:
        pass
    else:
        raise AssertionError("error taken for a count")


# dpdk-proc-info 22.11, nic_stats_display() and nic_xstats_display().
PROC_INFO_STATS = sp("""
  ######################## NIC statistics for port 0  ########################
  RX-packets: 24          RX-errors:  1           RX-bytes:  3072$SP
  RX-nombuf:  2         $SP
  TX-packets: 23          TX-errors:  3           TX-bytes:  2944$SP

  Stats reg  0 RX-packets: 10          RX-errors: 0           RX-bytes: 1280$SP
  Stats reg  1 RX-packets: 14          RX-errors: 1           RX-bytes: 1792$SP
  Stats reg  2 RX-packets: 0           RX-errors: 0           RX-bytes: 0$SP

  Stats reg  0 TX-packets: 9           TX-bytes: 1152$SP
  Stats reg  1 TX-packets: 14          TX-bytes: 1792$SP
  ####################################################################
""")

PROC_INFO_XSTATS = sp("""###### NIC extended statistics for port 0  #########
########################################################
rx_good_packets: 24
rx_missed_errors: 0
rx_q1_packets: 14
rx_wire_packets: 24
########################################################
""")

PDUMP_EXIT = """##### PDUMP DEBUG STATS #####
 -packets dequeued:			24
 -packets transmitted to vdev:		24
 -packets freed:			0
"""


def t_proc_info():
    st = parse.proc_info_stats("EAL: chatter\n" + PROC_INFO_STATS)
    assert (st["rx_packets"], st["rx_errors"], st["rx_bytes"]) == \
        (24, 1, 3072), st
    assert (st["rx_nombuf"], st["tx_packets"], st["tx_errors"],
            st["tx_bytes"]) == (2, 23, 3, 2944), st
    assert st["q_rx_packets"] == {0: 10, 1: 14, 2: 0}, st
    assert st["q_rx_bytes"][1] == 1792, st
    assert st["q_tx_packets"] == {0: 9, 1: 14}, st
    assert st["q_tx_bytes"] == {0: 1152, 1: 1792}, st
    xs = parse.xstats(PROC_INFO_XSTATS)
    assert xs == {"rx_good_packets": 24, "rx_missed_errors": 0,
                  "rx_q1_packets": 14, "rx_wire_packets": 24}, xs
    try:
        parse.proc_info_stats(PROC_INFO_XSTATS)
    except ValueError:
        pass
    else:
        raise AssertionError("xstats taken for stats")


def t_key_lines():
    kl = parse.key_lines("port 0 net_vsteer0 net_vsteer\nxstat rx_q0_packets"
                         " 12\nflow_validate -1001 1001 flow rules are "
                         "managed\nxstat bad x\ndone\n")
    assert kl["port"] == ["0", "net_vsteer0", "net_vsteer"], kl
    assert kl["xstat"] == {"rx_q0_packets": 12}, kl
    assert kl["flow_validate"][:2] == ["-1001", "1001"], kl
    assert kl["done"] == [], kl


def t_pdump():
    assert parse.pdump_stats("x\n" + PDUMP_EXIT) == \
        {"dequeued": 24, "transmitted": 24, "freed": 0}
    try:
        parse.pdump_stats("no stats")
    except ValueError:
        pass
    else:
        raise AssertionError("stats from nothing")


def t_clean():
    assert parse.clean("a\x1b[2K\rb\x1b[1;32mc\r\n") == "abc\n"


def t_prompt_split_by_a_log_line():
    """The prompt, whole or split by lines an lcore logged meanwhile."""
    log = ("vsteer_tx_complete(): port 0: Tx queue 0: local length error "
           "(frame longer than the port's MTU): frame dropped, send queue "
           "reset\n")
    for i in range(len(parse.PROMPT) + 1):
        text = "Done.\n" + parse.PROMPT[:i] + (log if 0 < i < 9 else "") + \
            parse.PROMPT[i:]
        m = parse.PROMPT_RE.search(text)
        assert m is not None and m.start() == len("Done.\n"), (i, text)
    # As captured: a forwarding lcore's warning inside the prompt, and
    # testpmd's own asynchronous event line.
    text = ("      TX offloads=0x0 - TX RS bit threshold=0\n"
            "tvsteer_tx_complete(): port 0: Tx queue 0: local length "
            "error: frame dropped, send queue reset\nestpmd> ")
    m = parse.PROMPT_RE.search(text)
    assert m is not None and m.start() == text.index("tvsteer"), m
    text = "start\ntes\nPort 0: link state change event\ntpmd> "
    m = parse.PROMPT_RE.search(text)
    assert m is not None and m.start() == text.index("tes"), m
    assert parse.PROMPT_RE.search("testpmd: create a new mbuf pool\n"
                                  "Done.\n") is None
    assert parse.PROMPT_RE.search("test output\nestpmd> ") is None
    assert parse.PROMPT_RE.search("t\nno log line here\nestpmd> ") is None


def main():
    cases = [(n, f) for n, f in sorted(globals().items())
             if n.startswith("t_")]
    failed = 0
    for name, fn in cases:
        try:
            fn()
            print("ok - %s" % name)
        except Exception as exc:  # report every case
            failed += 1
            print("not ok - %s: %r" % (name, exc))
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
