#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Flow counters read with and without reset, from an application of its
own (flow_query: testpmd 22.11 never asks for a reset) on softverbs over a
veth pair, with scapy frames from the peer namespace: a COUNT rule counts
exactly the frames to its address and their wire bytes; a query with
reset returns the counts so far and the next query starts from zero; the
counts then grow from there; a second reset does the same. --engine picks
the flow_engine devarg (verbs: ibv_counters; dv: DevX flow counters)."""

import logging
import os
import select
import signal
import subprocess
import time

import vsteer_e2e as e2e

DST = "198.51.100.7"
OTHER = "198.51.100.8"


class FlowQuery:
    """The flow_query application, one command and one answer a line."""

    def __init__(self, app, pmd, vdev):
        self.prefix = e2e.unique_prefix("fq")
        self.argv = [*e2e.model_prefix(), app, "--no-huge", "-m", "512",
                     "--no-pci",
                     "--lcores", "0@%d" % sorted(os.sched_getaffinity(0))[0],
                     "--file-prefix", self.prefix, "-d",
                     e2e.loadable_pmd(pmd), "--vdev", vdev,
                     "--log-level=pmd.net.vsteer*:notice"]
        self.proc = None
        self.mac = None
        self.buf = ""
        self.rx = 0

    def __enter__(self):
        e2e.at_cleanup(self.close)
        e2e.log("$ " + " ".join(self.argv))
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True)
        line = self._line(60, "ready")
        self.mac = line.split()[1].lower()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _line(self, timeout, want):
        """The next answer line starting with want (EAL chatter skipped).
        Reads the pipe unbuffered: a buffered reader would keep lines
        select() no longer sees."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while "\n" not in self.buf:
                r, _, _ = select.select([self.proc.stdout], [], [], 0.5)
                if time.monotonic() > deadline:
                    break
                if not r:
                    continue
                data = os.read(self.proc.stdout.fileno(), 4096)
                if not data:
                    raise RuntimeError("flow_query exited (%s)"
                                       % self.proc.poll())
                self.buf += data.decode("utf-8", "replace")
            if "\n" not in self.buf:
                break
            line, self.buf = self.buf.split("\n", 1)
            line = line.strip()
            e2e.log("  < " + line)
            if line.startswith("error"):
                raise AssertionError("flow_query: " + line)
            if line.split(" ", 1)[0] == want:
                return line
        raise RuntimeError("flow_query: no '%s' line in %ds" % (want,
                                                               timeout))

    def cmd(self, line, want):
        e2e.log("  > " + line)
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        return self._line(15, want)

    def drain(self):
        """Poll the Rx queue (softverbs takes frames off the wire when
        the application polls), freeing what arrived."""
        self.rx += int(self.cmd("drain", "rx").split()[1])

    def query(self, n, reset=False):
        words = self.cmd("query %d%s" % (n, " reset" if reset else ""),
                         "hits").split()
        return int(words[1]), int(words[3])

    def close(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                # The group: under the model the application is the
                # wrapper's child.
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None
        e2e.remove_runtime_dir(self.prefix)


def frames(mac, dst, n, base):
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.all import IP, UDP, Ether, Raw

    return [bytes(Ether(src="02:76:76:00:00:%02x" % i, dst=mac) /
                  IP(src="192.0.2.9", dst=dst) /
                  UDP(sport=4000 + i, dport=53) /
                  Raw(b"c" * (base + 13 * i))) for i in range(n)]


def wait_count(fq, n, want, timeout=10.0):
    """Poll and query (no reset) until the hits reach want[0]; the last
    answer."""
    deadline = time.monotonic() + timeout
    fq.drain()
    got = fq.query(n)
    while got[0] < want[0] and time.monotonic() < deadline:
        time.sleep(0.1)
        fq.drain()
        got = fq.query(n)
    return got


def main(args):
    engine = args.engine
    with e2e.VethNs() as net, \
            FlowQuery(args.app, args.pmd,
                      net.vdev(extra="flow_engine=" + engine)) as fq:
        rid = int(fq.cmd("count " + DST, "flow").split()[1])
        e2e.check_eq(fq.query(rid), (0, 0), "a fresh counter")

        mine = frames(fq.mac, DST, 5, 40)
        net.exchange(mine + frames(fq.mac, OTHER, 3, 60), timeout=0.2)
        want = (len(mine), sum(len(f) for f in mine))
        e2e.check_eq(wait_count(fq, rid, want), want, "counts")
        # A query with reset reports the counts so far ...
        e2e.check_eq(fq.query(rid, reset=True), want, "query with reset")
        # ... and the next one starts from zero.
        e2e.check_eq(fq.query(rid), (0, 0), "after the reset")

        more = frames(fq.mac, DST, 2, 100)
        net.exchange(more + frames(fq.mac, OTHER, 2, 100), timeout=0.2)
        want2 = (len(more), sum(len(f) for f in more))
        e2e.check_eq(wait_count(fq, rid, want2), want2,
                     "counts after the reset")
        e2e.check_eq(fq.query(rid, reset=True), want2, "second reset")
        e2e.check_eq(fq.query(rid), (0, 0), "after the second reset")
        fq.drain()
        e2e.check_eq(fq.rx, len(mine) + 3 + len(more) + 2,
                     "frames received")
        e2e.log("%s engine: counts %s, reset, %s, reset, 0" % (engine, want,
                                                               want2))


def options(ap):
    ap.add_argument("--engine", choices=["verbs", "dv"], default="verbs",
                    help="flow_engine devarg of the port")
    ap.add_argument("--app", required=True, help="the flow_query program")


if __name__ == "__main__":
    e2e.run(main, options=options)
