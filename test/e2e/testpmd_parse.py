# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Parsers for the text dpdk-testpmd (DPDK 22.11) prints.

Each function takes the output of one command (or a whole transcript) and
returns plain Python values; they raise ValueError when the text does not
hold what was asked for, so a changed output format fails loudly.
"""

import re
from dataclasses import dataclass
from typing import Optional

PROMPT = "testpmd> "
# The forwarding lcores log while the main thread prints its prompt, and
# the two writes can interleave on the pty: "t" + whole log lines +
# "estpmd> ". A prompt split that way is still the prompt.
# Whole lines another thread writes meanwhile: a log line ("func(): ...",
# "EAL: ..."), testpmd's event lines ("\nPort 0: ...").
_LOG_LINES = (r"(?:\n?(?:[A-Za-z_][\w.]*\(\): |[A-Z][A-Z0-9_]*: |Port \d+: )"
              r"[^\n]*\n)+")
PROMPT_RE = re.compile("|".join(
    [re.escape(PROMPT)] +
    [re.escape(PROMPT[:i]) + _LOG_LINES + re.escape(PROMPT[i:])
     for i in range(1, len(PROMPT))]))


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]")


def clean(text):
    """Drop terminal escapes and carriage returns."""
    return _ANSI.sub("", text).replace("\r", "")


def _int(pattern, text, what):
    m = re.search(pattern, text)
    if m is None:
        raise ValueError("no %s in testpmd output:\n%s" % (what, text))
    return int(m.group(1))


def port_stats(text):
    """`show port stats <port>`: the last NIC statistics block."""
    start = text.rfind("NIC statistics for port")
    if start < 0:
        raise ValueError("no NIC statistics in testpmd output:\n" + text)
    block = text[start:]
    m = re.search(r"RX-packets:\s*(\d+)\s+RX-missed:\s*(\d+)\s+"
                  r"RX-bytes:\s*(\d+)", block)
    t = re.search(r"TX-packets:\s*(\d+)\s+TX-errors:\s*(\d+)\s+"
                  r"TX-bytes:\s*(\d+)", block)
    if m is None or t is None:
        raise ValueError("malformed NIC statistics:\n" + block)
    return {
        "rx_packets": int(m.group(1)),
        "rx_missed": int(m.group(2)),
        "rx_bytes": int(m.group(3)),
        "rx_errors": _int(r"RX-errors:\s*(\d+)", block, "RX-errors"),
        "rx_nombuf": _int(r"RX-nombuf:\s*(\d+)", block, "RX-nombuf"),
        "tx_packets": int(t.group(1)),
        "tx_errors": int(t.group(2)),
        "tx_bytes": int(t.group(3)),
    }


def xstats(text):
    """`show port xstats <port>`: name -> value of the last block."""
    start = text.rfind("NIC extended statistics for port")
    if start < 0:
        raise ValueError("no extended statistics in testpmd output:\n"
                         + text)
    stats = {}
    for line in text[start:].splitlines()[1:]:
        m = re.match(r"^([A-Za-z_][\w.\-\[\]]*):\s+(\d+)\s*$", line)
        if m is None:
            if stats:
                break
            continue
        stats[m.group(1)] = int(m.group(2))
    return stats


def port_info(text):
    """`show port info <port>`: the fields the tests use."""
    info = {}
    m = re.search(r"MAC address:\s*([0-9A-Fa-f:]{17})", text)
    if m is None:
        raise ValueError("no MAC address in port info:\n" + text)
    info["mac"] = m.group(1).lower()
    for key, pattern in (("driver", r"Driver name:\s*(\S+)"),
                         ("device", r"Device name:\s*(\S+)"),
                         ("firmware", r"Firmware-version:\s*(\S+)"),
                         ("link", r"Link status:\s*(\S+)"),
                         ("speed", r"Link speed:\s*(.*\S)"),
                         ("duplex", r"Link duplex:\s*(\S+)"),
                         ("promiscuous", r"Promiscuous mode:\s*(\S+)")):
        m = re.search(pattern, text)
        info[key] = m.group(1) if m else None
    for key, pattern in (("rx_queues", r"Current number of RX queues:\s*(\d+)"),
                         ("tx_queues", r"Current number of TX queues:\s*(\d+)"),
                         ("reta_size", r"Redirection table size:\s*(\d+)"),
                         ("hash_key_size", r"Hash key size in bytes:\s*(\d+)"),
                         ("mtu", r"\nMTU:\s*(\d+)"),
                         ("max_rx_pktlen",
                          r"Maximum configurable length of RX packet:\s*(\d+)"),
                         ("max_txd",
                          r"Max possible number of TXDs per queue:\s*(\d+)")):
        m = re.search(pattern, text)
        info[key] = int(m.group(1)) if m else None
    # Flow types the port can hash, listed after the heading until a line
    # that is no longer indented.
    types = []
    m = re.search(r"Supported RSS offload flow types:\n((?:[ \t]+\S.*\n?)*)",
                  text)
    if m:
        types = m.group(1).split()
    info["rss_offload_types"] = types
    return info


def rss_hash_conf(text):
    """`show port <p> rss-hash [key]`: (hash functions, key or None).

    Functions is an empty list when testpmd says "RSS disabled".
    """
    if "RSS disabled" in text:
        return [], None
    m = re.search(r"RSS functions:\n(.*?)(?:\nRSS key:|\Z)", text, re.S)
    if m is None:
        raise ValueError("no RSS functions in testpmd output:\n" + text)
    functions = m.group(1).split()
    key = None
    k = re.search(r"RSS key:\s*\n\s*([0-9A-Fa-f]+)", text)
    if k:
        key = bytes.fromhex(k.group(1))
    return functions, key


def reta_masks(size, group):
    """Mask argument of `show port <p> rss reta <size> (...)` selecting the
    64 entries of one group: testpmd takes at most 128 characters there,
    too few for all eight masks of a 512-entry table."""
    masks = ["0"] * ((size + 63) // 64)
    masks[group] = "0xffffffffffffffff"
    return "(" + ",".join(masks) + ")"


def reta(text, size):
    """`show port <p> rss reta`: queue of each index, as a list."""
    table = {}
    for m in re.finditer(r"RSS RETA configuration: hash index=(\d+), "
                         r"queue=(\d+)", text):
        table[int(m.group(1))] = int(m.group(2))
    missing = [i for i in range(size) if i not in table]
    if missing:
        raise ValueError("RETA entries missing (%d of %d, first %d):\n%s"
                         % (len(missing), size, missing[0], text))
    return [table[i] for i in range(size)]


@dataclass
class RxPacket:
    """One packet of testpmd's verbose Rx dump (`set verbose 1`)."""
    port: int
    queue: int
    src: str
    dst: str
    ethertype: int
    length: int
    rss_hash: Optional[int] = None
    fdir_id: Optional[int] = None
    fdir_matched: bool = False
    vlan_tci: Optional[int] = None
    hw_ptype: str = ""
    ol_flags: str = ""


_BURST = re.compile(r"port (\d+)/queue (\d+): (received|sent) (\d+) packets")
_PKT = re.compile(r"src=([0-9A-Fa-f:]{17}) - dst=([0-9A-Fa-f:]{17}) - "
                  r"pool=\S+ - type=0x([0-9a-fA-F]+) - length=(\d+)")


def rx_dump(text):
    """Every received packet of a verbose transcript, in order.

    The forwarding core prints asynchronously, so prompt text may be
    interleaved; a packet line belongs to the last burst header seen.
    """
    packets = []
    port = queue = None
    receiving = False
    last = None
    for line in text.splitlines():
        b = _BURST.search(line)
        if b:
            port, queue = int(b.group(1)), int(b.group(2))
            receiving = b.group(3) == "received"
            last = None
            continue
        p = _PKT.search(line)
        if p and receiving:
            pkt = RxPacket(port=port, queue=queue,
                           src=p.group(1).lower(), dst=p.group(2).lower(),
                           ethertype=int(p.group(3), 16),
                           length=int(p.group(4)))
            h = re.search(r" - RSS hash=0x([0-9a-fA-F]+)", line)
            if h:
                pkt.rss_hash = int(h.group(1), 16)
            v = re.search(r" - VLAN tci=0x([0-9a-fA-F]+)", line)
            if v:
                pkt.vlan_tci = int(v.group(1), 16)
            t = re.search(r" - hw ptype: (.*?)\s+- ", line)
            if t:
                pkt.hw_ptype = t.group(1).strip()
            f = re.search(r" - FDIR matched (?:ID=0x([0-9a-fA-F]+))?", line)
            if f:
                pkt.fdir_matched = True
                if f.group(1) is not None:
                    pkt.fdir_id = int(f.group(1), 16)
            packets.append(pkt)
            last = pkt
            continue
        o = re.search(r"^\s*ol_flags: (.*)$", line)
        if o and last is not None:
            last.ol_flags = o.group(1).strip()
            last = None
    return packets


def flow_created(text):
    """`flow create`: the rule number; ValueError with testpmd's reason."""
    m = re.search(r"Flow rule #(\d+) created", text)
    if m is None:
        raise ValueError("flow rule not created: " + error_line(text))
    return int(m.group(1))


def flow_count(text):
    """`flow query <port> <rule> count`: hits_set, bytes_set, hits, bytes."""
    out = {}
    for key in ("hits_set", "bytes_set", "hits", "bytes"):
        out[key] = _int(r"\b%s:\s*(\d+)" % key, text, key)
    return out


def error_line(text):
    """The line of a testpmd answer that says what went wrong."""
    for line in text.splitlines():
        if re.search(r"error|fail|invalid|not supported|Caught PMD", line,
                     re.I):
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "(no output)"


def flow_list(text):
    """`flow list <port>`: one dict per rule (id, group, prio, attr, rule),
    in testpmd's order; [] when the port has none."""
    rules = []
    for line in text.splitlines():
        m = re.match(r"^(\d+)\t(\d+)\t(\d+)\t([i-][e-][t-])\t(.*?)\s*$",
                     line)
        if m is None:
            continue
        rules.append({"id": int(m.group(1)), "group": int(m.group(2)),
                      "prio": int(m.group(3)), "attr": m.group(4),
                      "rule": m.group(5)})
    return rules


@dataclass
class PmdError:
    """What testpmd's port_flow_complain() printed for a refused call."""
    type: int
    type_name: str
    message: str
    strerror: str


_PMD_ERROR = re.compile(r"Caught PMD error type (\d+) \((.*?)\): "
                        r"(?:cause: 0x[0-9a-fA-F]+, )?(.*): ([^:]*)$")


def pmd_error(text):
    """The PMD error of a testpmd answer: error type (enum
    rte_flow_error_type), its name, the PMD's message and the strerror()
    of rte_errno; None when the answer holds no such line."""
    for line in text.splitlines():
        m = _PMD_ERROR.search(line.rstrip())
        if m:
            return PmdError(int(m.group(1)), m.group(2), m.group(3),
                            m.group(4))
    return None


def indirect_count(text):
    """`flow indirect_action <port> query <id>` of a COUNT action."""
    if "COUNT action:" not in text:
        raise ValueError("no COUNT action in testpmd output:\n" + text)
    return flow_count(text)


def proc_info_stats(text):
    """`dpdk-proc-info -- --stats`: the port's NIC statistics, and the
    per-queue registers (index -> packets/bytes)."""
    start = text.rfind("NIC statistics for port")
    if start < 0:
        raise ValueError("no NIC statistics in dpdk-proc-info output:\n"
                         + text)
    block = text[start:]
    rx = re.search(r"RX-packets:\s*(\d+)\s+RX-errors:\s*(\d+)\s+"
                   r"RX-bytes:\s*(\d+)", block)
    tx = re.search(r"TX-packets:\s*(\d+)\s+TX-errors:\s*(\d+)\s+"
                   r"TX-bytes:\s*(\d+)", block)
    if rx is None or tx is None:
        raise ValueError("malformed NIC statistics:\n" + block)
    out = {
        "rx_packets": int(rx.group(1)),
        "rx_errors": int(rx.group(2)),
        "rx_bytes": int(rx.group(3)),
        "rx_nombuf": _int(r"RX-nombuf:\s*(\d+)", block, "RX-nombuf"),
        "tx_packets": int(tx.group(1)),
        "tx_errors": int(tx.group(2)),
        "tx_bytes": int(tx.group(3)),
        "q_rx_packets": {},
        "q_rx_bytes": {},
        "q_tx_packets": {},
        "q_tx_bytes": {},
    }
    for m in re.finditer(r"Stats reg\s+(\d+) RX-packets:\s*(\d+)\s+"
                         r"RX-errors:\s*(\d+)\s+RX-bytes:\s*(\d+)", block):
        out["q_rx_packets"][int(m.group(1))] = int(m.group(2))
        out["q_rx_bytes"][int(m.group(1))] = int(m.group(4))
    for m in re.finditer(r"Stats reg\s+(\d+) TX-packets:\s*(\d+)\s+"
                         r"TX-bytes:\s*(\d+)", block):
        out["q_tx_packets"][int(m.group(1))] = int(m.group(2))
        out["q_tx_bytes"][int(m.group(1))] = int(m.group(3))
    return out


def key_lines(text):
    """Lines "<key> <value...>" (mp_client's answers): key -> list of
    words; "xstat <name> <value>" lines go to the "xstat" dict."""
    out = {"xstat": {}}
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "xstat" and len(words) == 3 and words[2].isdigit():
            out["xstat"][words[1]] = int(words[2])
        elif words[0] not in out:
            out[words[0]] = words[1:]
    return out


def pdump_stats(text):
    """dpdk-pdump's exit report: packets dequeued, sent to the capture
    device and freed, summed over its tuples."""
    out = {"dequeued": 0, "transmitted": 0, "freed": 0}
    found = False
    for key, pattern in (("dequeued", r"-packets dequeued:\s*(\d+)"),
                         ("transmitted",
                          r"-packets transmitted to vdev:\s*(\d+)"),
                         ("freed", r"-packets freed:\s*(\d+)")):
        for m in re.finditer(pattern, text):
            out[key] += int(m.group(1))
            found = True
    if not found:
        raise ValueError("no PDUMP DEBUG STATS in dpdk-pdump output:\n"
                         + text)
    return out
