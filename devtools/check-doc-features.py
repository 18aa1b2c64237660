#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Keep doc/guides/nics/features/vsteer.ini true to the driver.

- [rte_flow items] and [rte_flow actions] must list exactly the
  RTE_FLOW_ITEM_TYPE_* / RTE_FLOW_ACTION_TYPE_* names the driver's .c
  files mention (END, VOID and INDIRECT aside), as DPDK's
  devtools/parse-flow-support.sh checks in-tree drivers;
- every name must exist in the installed rte_flow.h;
- [Features] keys must be ones DPDK's feature matrix knows;
- a [Features] row that names an ethdev op or offload (FEATURE_SOURCE)
  is listed exactly when the driver's .c files implement it.

usage: check-doc-features.py [--ini FILE] [--driver DIR] [--rte-flow-h FILE]
       check-doc-features.py --print    (the two sections, from the source)
Exit 0 when in agreement, 1 with the differences listed otherwise.
"""

import argparse
import configparser
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Keys of the [Features] section of DPDK 22.11's features/default.ini.
FEATURE_KEYS = """
Speed capabilities|Link speed configuration|Link status|Link status event|
Removal event|Queue status event|Rx interrupt|Lock-free Tx queue|
Fast mbuf free|Free Tx mbuf on demand|Queue start/stop|
Runtime Rx queue setup|Runtime Tx queue setup|Shared Rx queue|
Burst mode info|Power mgmt address monitor|MTU update|Buffer split on Rx|
Scattered Rx|LRO|TSO|Promiscuous mode|Allmulticast mode|Unicast MAC filter|
Multicast MAC filter|RSS hash|RSS key update|RSS reta update|Inner RSS|VMDq|
SR-IOV|DCB|VLAN filter|Flow control|Rate limitation|Congestion management|
Traffic manager|Inline crypto|Inline protocol|CRC offload|VLAN offload|
QinQ offload|FEC|IP reassembly|L3 checksum offload|L4 checksum offload|
Timestamp offload|MACsec offload|Inner L3 checksum|Inner L4 checksum|
Packet type parsing|Timesync|Rx descriptor status|Tx descriptor status|
Basic stats|Extended stats|Stats per queue|FW version|EEPROM dump|
Module EEPROM dump|Registers dump|LED|Multiprocess aware|FreeBSD|Linux|
Windows|ARMv7|ARMv8|LoongArch64|Power8|rv64|x86-32|x86-64|Usage doc|
Design doc|Perf doc"""
FEATURE_KEYS = {k.strip() for k in FEATURE_KEYS.replace("\n", "").split("|")}

IGNORED = {"end", "void", "indirect"}

# [Features] rows and what in the driver source implements each (a
# pattern, or a tuple of patterns that must all be there): the row must be
# there exactly when the source has it.
FEATURE_SOURCE = {
    "Link status": r"\.link_update\s*=",
    "Link status event": r"RTE_ETH_DEV_INTR_LSC",
    "Rx interrupt": (r"\.rx_queue_intr_enable\s*=",
                     r"\.rx_queue_intr_disable\s*="),
    "Queue start/stop": (r"\.rx_queue_start\s*=", r"\.rx_queue_stop\s*=",
                         r"\.tx_queue_start\s*=", r"\.tx_queue_stop\s*="),
    "MTU update": r"\.mtu_set\s*=",
    "Burst mode info": r"\.rx_burst_mode_get\s*=",
    "Scattered Rx": r"RTE_ETH_RX_OFFLOAD_SCATTER",
    "TSO": r"RTE_ETH_TX_OFFLOAD_TCP_TSO",
    "Promiscuous mode": r"\.promiscuous_enable\s*=",
    "Allmulticast mode": r"\.allmulticast_enable\s*=",
    "Unicast MAC filter": r"\.mac_addr_add\s*=",
    "Multicast MAC filter": r"\.set_mc_addr_list\s*=",
    "RSS key update": r"\.rss_hash_update\s*=",
    "RSS reta update": r"\.reta_update\s*=",
    "VLAN filter": r"\.vlan_filter_set\s*=",
    "VLAN offload": r"RTE_ETH_RX_OFFLOAD_VLAN_STRIP",
    "L3 checksum offload": r"RTE_ETH_TX_OFFLOAD_IPV4_CKSUM",
    "L4 checksum offload": r"RTE_ETH_TX_OFFLOAD_TCP_CKSUM",
    "Packet type parsing": r"\.dev_supported_ptypes_get\s*=",
    "Timestamp offload": (r"RTE_ETH_RX_OFFLOAD_TIMESTAMP",
                          r"\.read_clock\s*="),
    "Rx descriptor status": r"->rx_descriptor_status\s*=",
    "Tx descriptor status": r"->tx_descriptor_status\s*=",
    "Basic stats": r"\.stats_get\s*=",
    "Extended stats": r"\.xstats_get\s*=",
    "FW version": r"\.fw_version_get\s*=",
    "Multiprocess aware": r"rte_eth_dev_attach_secondary\s*\(",
}


def source_tokens(driver_dir, kind):
    """Lower-case names after RTE_FLOW_<KIND>_TYPE_ in the driver."""
    pattern = re.compile(r"\bRTE_FLOW_%s_TYPE_([A-Z0-9_]+)" % kind)
    names = set()
    for name in sorted(os.listdir(driver_dir)):
        if not name.endswith(".c"):
            continue
        with open(os.path.join(driver_dir, name), encoding="utf-8") as f:
            names.update(m.lower() for m in pattern.findall(f.read()))
    return names - IGNORED


def source_features(driver_dir):
    """FEATURE_SOURCE rows the driver's .c files implement."""
    text = ""
    for name in sorted(os.listdir(driver_dir)):
        if name.endswith(".c"):
            with open(os.path.join(driver_dir, name), encoding="utf-8") as f:
                text += f.read()
    def has(pats):
        pats = (pats,) if isinstance(pats, str) else pats
        return all(re.search(p, text) for p in pats)

    return {k for k, pats in FEATURE_SOURCE.items() if has(pats)}


def rte_flow_header():
    try:
        inc = subprocess.run(["pkg-config", "--variable=includedir",
                              "libdpdk"], capture_output=True, text=True,
                             check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    for cand in (os.path.join(inc, "rte_flow.h"),
                 os.path.join(inc, "dpdk", "rte_flow.h")):
        if os.path.isfile(cand):
            return cand
    return None


def read_ini(path):
    ini = configparser.ConfigParser(delimiters=("=",), strict=True,
                                    interpolation=None)
    ini.optionxform = str  # keys are case-sensitive feature names
    with open(path, encoding="utf-8") as f:
        ini.read_file(f)
    return ini


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ini", default=os.path.join(
        ROOT, "doc/guides/nics/features/vsteer.ini"))
    ap.add_argument("--driver", default=os.path.join(
        ROOT, "drivers/net/vsteer"))
    ap.add_argument("--rte-flow-h", default=None)
    ap.add_argument("--print", action="store_true",
                    help="print the rte_flow sections the source implies")
    args = ap.parse_args()

    if args.print:
        for section, kind in (("rte_flow items", "ITEM"),
                              ("rte_flow actions", "ACTION")):
            print("[%s]" % section)
            for name in sorted(source_tokens(args.driver, kind)):
                print("%-20s = Y" % name)
            print()
        return 0

    problems = []
    ini = read_ini(args.ini)
    for section in ("Features", "rte_flow items", "rte_flow actions"):
        if not ini.has_section(section):
            problems.append("%s: no [%s] section" % (args.ini, section))
    for key, value in ini.items("Features") if ini.has_section(
            "Features") else []:
        if key not in FEATURE_KEYS:
            problems.append("[Features] %r is not a DPDK feature name" % key)
        if value.strip() not in ("Y", "P"):
            problems.append("[Features] %s = %r: use Y (or P, partial)"
                            % (key, value))
    if ini.has_section("Features"):
        rows = {k for k, _ in ini.items("Features")}
        implemented = source_features(args.driver)
        for key in sorted(implemented - rows):
            problems.append("[Features] %s: in the driver, missing from "
                            "the doc" % key)
        for key in sorted((rows & set(FEATURE_SOURCE)) - implemented):
            problems.append("[Features] %s: in the doc, not in the driver"
                            % key)

    header = args.rte_flow_h or rte_flow_header()
    known = None
    if header:
        with open(header, encoding="utf-8") as f:
            text = f.read()
    for section, kind in (("rte_flow items", "ITEM"),
                          ("rte_flow actions", "ACTION")):
        documented = set()
        if ini.has_section(section):
            for key, value in ini.items(section):
                if value.strip() != "Y":
                    problems.append("[%s] %s = %r: use Y"
                                    % (section, key, value))
                documented.add(key)
        in_source = source_tokens(args.driver, kind)
        for name in sorted(in_source - documented):
            problems.append("[%s] %s: in the driver, missing from the doc"
                            % (section, name))
        for name in sorted(documented - in_source):
            problems.append("[%s] %s: in the doc, not in the driver"
                            % (section, name))
        if header:
            known = {m.lower() for m in re.findall(
                r"\bRTE_FLOW_%s_TYPE_([A-Z0-9_]+)" % kind, text)}
            for name in sorted(documented - known):
                problems.append("[%s] %s: no RTE_FLOW_%s_TYPE_%s in %s"
                                % (section, name, kind, name.upper(),
                                   os.path.basename(header)))
        print("%s: %d documented, %d in the driver"
              % (section, len(documented), len(in_source)))
    if known is None:
        print("note: rte_flow.h not found, names not checked against it")

    for p in problems:
        print("vsteer.ini: " + p)
    if problems:
        print("%d problem(s); the lists the source implies: %s --print"
              % (len(problems), os.path.relpath(os.path.abspath(__file__),
                                                ROOT)))
        return 1
    print("features/vsteer.ini agrees with the driver")
    return 0


if __name__ == "__main__":
    sys.exit(main())
