# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Parsers for what Open vSwitch 3.1 prints: ovs-appctl dpctl/ and
dpif-netdev/ commands, ovs-vsctl JSON tables and ovs-vswitchd's log lines
about rte_flow rules (module netdev_offload_dpdk at level dbg) and the
driver's own flow log (module dpdk, pmd.net.vsteer.flow at debug).

Each parser takes text and returns plain data; none runs anything, so they
are checked against captured text by test_ovs_parse.py.
"""

import json
import re

# enum rte_flow_error_type in DPDK 22.11, for readable refusals.
FLOW_ERROR_TYPES = (
    "NONE", "UNSPECIFIED", "HANDLE", "ATTR_GROUP", "ATTR_PRIORITY",
    "ATTR_INGRESS", "ATTR_EGRESS", "ATTR_TRANSFER", "ATTR", "ITEM_NUM",
    "ITEM_SPEC", "ITEM_LAST", "ITEM_MASK", "ITEM", "ACTION_NUM",
    "ACTION_CONF", "ACTION", "STATE")


def flow_error_type(num):
    """'ITEM_MASK' for 12; the number itself when out of range."""
    if 0 <= num < len(FLOW_ERROR_TYPES):
        return FLOW_ERROR_TYPES[num]
    return str(num)


def offload_stats(text):
    """dpctl/offload-stats-show: the totals, {"enqueued", "inserted"}."""
    out = {}
    for key, name in (("enqueued", "Enqueued offloads"),
                      ("inserted", "Inserted offloads")):
        m = re.search(r"^\s*Total\s+%s:\s*(\d+)\s*$" % name, text, re.M)
        if m is None:
            raise ValueError("no 'Total %s' in:\n%s" % (name, text))
        out[key] = int(m.group(1))
    return out


def pmd_stats(text):
    """dpif-netdev/pmd-stats-show: one dict per thread section, with
    "thread" (the header without its colon) and every "name: N" counter
    (the leading integer of values such as "123 (45.00%)")."""
    threads = []
    cur = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith((" ", "\t")):
            cur = {"thread": line.strip().rstrip(":")}
            threads.append(cur)
            continue
        m = re.match(r"\s+([^:]+):\s+(\d+)", line)
        if m is not None and cur is not None:
            cur[m.group(1).strip()] = int(m.group(2))
    return threads


def pmd_total(threads, counter):
    """Sum of one counter over the PMD threads (the main thread's
    section counts non-PMD ports only and has no hardware offload)."""
    return sum(t.get(counter, 0) for t in threads
               if t["thread"].startswith("pmd thread"))


_FLOW_FIELD = re.compile(r"(\w+)\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


def dump_flows(text):
    """dpctl/dump-flows -m: one dict per datapath flow with "ufid",
    "in_port", "eth_type" (int or None), "offloaded" ("partial", "yes" or
    None), "packets", "actions", and "line"."""
    flows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("ufid:"):
            continue
        f = {"line": line, "ufid": line[5:line.index(",")],
             "in_port": None, "eth_type": None, "offloaded": None,
             "packets": None, "actions": None}
        for name, val in _FLOW_FIELD.findall(line):
            if name == "in_port":
                f["in_port"] = val
            elif name == "eth_type":
                f["eth_type"] = int(val.split("/")[0], 16)
        m = re.search(r"[ ,]packets:(\d+)", line)
        if m:
            f["packets"] = int(m.group(1))
        m = re.search(r"[ ,]offloaded:(\w+)", line)
        if m:
            f["offloaded"] = m.group(1)
        m = re.search(r"[ ,]actions:(\S+)", line)
        if m:
            f["actions"] = m.group(1).rstrip(",")
        flows.append(f)
    return flows


_DPIF_PORT = re.compile(r"^\s+(\S+) (\d+)/(\d+): \((\w+)(?::\s*(.*))?\)$")


def dpif_show(text):
    """dpif/show: one dict per port, by name, with "ofport", "odp_port",
    "type" and "config", the key=value pairs OVS prints after the type
    (for a dpdk port configured_rx_queues, mtu, lsc_interrupt_mode, ...;
    numbers as ints)."""
    ports = {}
    for line in text.splitlines():
        m = _DPIF_PORT.match(line)
        if m is None:
            continue
        config = {}
        for kv in (m.group(5) or "").split(","):
            key, sep, val = kv.strip().partition("=")
            if sep:
                config[key] = int(val) if val.isdigit() else val
        ports[m.group(1)] = {"ofport": int(m.group(2)),
                             "odp_port": int(m.group(3)),
                             "type": m.group(4), "config": config}
    return ports


def ovsdb_value(v):
    """An OVSDB JSON datum as Python: maps to dicts, sets to lists."""
    if isinstance(v, list) and len(v) == 2 and v[0] == "map":
        return {k: ovsdb_value(x) for k, x in v[1]}
    if isinstance(v, list) and len(v) == 2 and v[0] == "set":
        return [ovsdb_value(x) for x in v[1]]
    if isinstance(v, list) and len(v) == 2 and v[0] == "uuid":
        return v[1]
    return v


def ovsdb_rows(text):
    """ovs-vsctl --format=json list/find output: a list of row dicts."""
    doc = json.loads(text)
    heads = doc["headings"]
    return [{h: ovsdb_value(v) for h, v in zip(heads, row)}
            for row in doc["data"]]


# ovs-vswitchd log lines: "<time>|<seq>|<module>(<thread>)|<LEVEL>|<text>".
LOG_LINE = re.compile(r"^\S+\|\d+\|(\w+)(?:\([^)]*\))?\|(\w+)\|(.*)$")
_CREATED = re.compile(r"^(\S+): rte_flow (0x[0-9a-f]+) .*?flow create (\d+) "
                      r"(.*)$")
_FAILED = re.compile(r"^(\S+): rte_flow creation failed: (-?\d+) "
                     r"\((.*)\)\.$")
_FAILED_FLOW = re.compile(r"^(\S+): Failed flow: .*?flow create (\d+) (.*)$")
_DESTROYED = re.compile(r"^([^/\s]+)/\S+: rte_flow (0x[0-9a-f]+) flow destroy "
                        r"(\d+) ")
_DRIVER = re.compile(r"vsteer_flow_create\(\): port (\d+): flow "
                     r"(0x[0-9a-f]+) created \((.*)\)$")


def offload_log(text):
    """The rte_flow rules OVS asked for and the answers, from its log.

    Returns a list, in log order, of dicts: "netdev" (OVS port name),
    "port_id", "rule" (testpmd syntax, as OVS prints it: attributes,
    pattern, actions), "transfer" (a full-offload attempt), "ok",
    "handle" (created), "error_type"/"error" (refused), and "driver":
    the driver's own log line for a created rule (engine and rule count),
    matched by handle, None when the driver logged nothing.
    """
    attempts = []
    pending = {}  # netdev -> refusal waiting for its "Failed flow" line
    driver = {}   # handle -> description, from the driver's debug log
    for line in text.splitlines():
        m = LOG_LINE.match(line)
        if m is None:
            continue
        module, _level, msg = m.groups()
        if module == "dpdk":
            d = _DRIVER.search(msg)
            if d:
                driver[d.group(2)] = d.group(3)
            continue
        if module != "netdev_offload_dpdk":
            continue
        c = _CREATED.match(msg)
        if c:
            attempts.append({
                "netdev": c.group(1), "port_id": int(c.group(3)),
                "rule": c.group(4).strip(), "ok": True,
                "handle": c.group(2), "error_type": None, "error": None,
                "driver": driver.get(c.group(2))})
            continue
        f = _FAILED.match(msg)
        if f:
            pending[f.group(1)] = (int(f.group(2)), f.group(3))
            continue
        ff = _FAILED_FLOW.match(msg)
        if ff and ff.group(1) in pending:
            etype, err = pending.pop(ff.group(1))
            attempts.append({
                "netdev": ff.group(1), "port_id": int(ff.group(2)),
                "rule": ff.group(3).strip(), "ok": False, "handle": None,
                "error_type": flow_error_type(etype), "error": err,
                "driver": None})
    for a in attempts:
        a["transfer"] = " transfer " in " %s " % a["rule"].split(
            " pattern ")[0]
    return attempts


def offload_destroys(text):
    """The rte_flow rules OVS destroyed, from its log (module
    netdev_offload_dpdk at level dbg), in log order: dicts with "netdev",
    "port_id" and "handle"."""
    out = []
    for line in text.splitlines():
        m = LOG_LINE.match(line)
        if m is None or m.group(1) != "netdev_offload_dpdk":
            continue
        d = _DESTROYED.match(m.group(3))
        if d:
            out.append({"netdev": d.group(1), "handle": d.group(2),
                        "port_id": int(d.group(3))})
    return out


def rule_shape(rule):
    """A rule with its MAC addresses and MARK id replaced, so that rules
    that differ only there group together in a report."""
    rule = re.sub(r"\b[0-9a-f]{2}(:[0-9a-f]{2}){5}\b", "<mac>", rule)
    return re.sub(r"\bmark id \d+", "mark id <n>", rule)
