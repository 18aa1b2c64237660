#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""DPDK's l3fwd sample takes the port as it is, without --parse-ptype:
it asks the port which packet types it sets (rte_eth_dev_get_supported_
ptypes) and exits when IPv4 and IPv6 are not among them. Built from the
sources Debian's dpdk-doc ships (/usr/share/dpdk/examples) against the
installed DPDK with pkg-config, it runs on the port over a veth and
routes UDP to 198.18.0.5 (its default LPM route to port 0): the frame
comes back with the TTL decremented and the checksum updated, which
l3fwd only does for a packet whose mbuf says IPv4."""

import os
import select
import shutil
import signal
import subprocess
import time

import vsteer_e2e as e2e

EXAMPLES = "/usr/share/dpdk/examples"


def build_example(workdir, name="l3fwd"):
    """DPDK sample `name` built in workdir (kept between runs); its path."""
    src = os.path.join(EXAMPLES, name)
    if not os.path.isfile(os.path.join(src, "main.c")):
        raise AssertionError("%s missing: install dpdk-doc (devtools/setup.sh "
                             "does)" % src)
    top = os.path.join(workdir, name + "-example")
    binary = os.path.join(top, name, "build", name)
    newest = max(os.path.getmtime(os.path.join(src, f))
                 for f in os.listdir(src))
    if os.path.isfile(binary) and os.path.getmtime(binary) >= newest:
        return binary
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    for d in (name, "common"):
        shutil.copytree(os.path.join(EXAMPLES, d), os.path.join(top, d))
    e2e.log("building %s from %s" % (name, src))
    res = e2e.sh("make", "-C", os.path.join(top, name),
                 "-j%d" % max(1, len(os.sched_getaffinity(0))),
                 timeout=300, check=False)
    if res.returncode != 0 or not os.path.isfile(binary):
        raise AssertionError("%s build failed:\n%s"
                             % (name, res.stdout[-4000:]))
    return binary


class Output:
    """What a process prints, read without blocking."""

    def __init__(self, proc):
        self.proc = proc
        self.text = ""

    def wait_for(self, needle, timeout, start=0):
        """Until needle is printed (after text offset start)."""
        deadline = time.monotonic() + timeout
        while needle not in self.text[start:]:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.read(0.2)
                return needle in self.text[start:]
            self.read(min(left, 0.2))
        return True

    def read(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if r:
            data = os.read(self.proc.stdout.fileno(), 65536)
            self.text += data.decode("utf-8", "replace")


def main(args):
    from scapy.all import IP, UDP, Ether, Raw

    binary = build_example(args.workdir)
    with e2e.VethNs() as net:
        prefix = e2e.unique_prefix("l3fwd")
        cpu = sorted(os.sched_getaffinity(0))[0]
        argv = [binary, "--no-huge", "-m", "1024", "--no-pci",
                "--lcores", "0@%d" % cpu, "--file-prefix", prefix,
                "-d", e2e.loadable_pmd(args.pmd), "--vdev", net.vdev(),
                "--", "-p", "0x1", "--config=(0,0,0)",
                "--eth-dest=0,%s" % net.peer_mac]
        e2e.log("$ " + " ".join(argv))
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
        out = Output(proc)

        def stop():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
            e2e.remove_runtime_dir(prefix)

        e2e.at_cleanup(stop)
        ready = out.wait_for("entering main loop", 60)
        e2e.log("l3fwd says:\n" + out.text[-1500:])
        e2e.check("cannot parse" not in out.text,
                  "l3fwd refused the port's packet types")
        e2e.check(ready, "l3fwd did not reach its main loop")
        mac = None
        for line in out.text.splitlines():
            if "Address:" in line:
                mac = line.split("Address:")[1].split(",")[0].strip().lower()
        e2e.check(mac is not None, "no port address in l3fwd's output")

        sent = Ether(src=net.peer_mac, dst=mac) / \
            IP(src="192.0.2.7", dst="198.18.0.5", ttl=64) / \
            UDP(sport=4000, dport=4001) / Raw(b"l3fwd" * 10)
        back = net.exchange([bytes(sent)], expect=1, timeout=5.0)
        routed = [Ether(f) for f in back
                  if Ether(f).haslayer(IP) and
                  Ether(f)[IP].dst == "198.18.0.5"]
        e2e.check(len(routed) == 1, "routed frames: %d of %d received"
                  % (len(routed), len(back)))
        r = routed[0]
        e2e.check_eq((r.src.lower(), r.dst.lower()), (mac, net.peer_mac),
                     "MACs rewritten by l3fwd")
        e2e.check_eq(r[IP].ttl, 63, "TTL decremented (an IPv4 packet type)")
        want = IP(bytes(r[IP]))
        chk = want.chksum
        del want.chksum
        e2e.check_eq(chk, IP(bytes(want)).chksum, "IPv4 checksum updated")
        e2e.check_eq(bytes(r[UDP].payload), b"l3fwd" * 10, "payload")

        os.killpg(proc.pid, signal.SIGINT)
        try:
            rc = proc.wait(20)
        except subprocess.TimeoutExpired:
            raise AssertionError("l3fwd did not exit on SIGINT")
        out.read(0.1)
        e2e.check_eq(rc, 0, "l3fwd exit status")


def options(ap):
    ap.add_argument("--workdir", required=True,
                    help="where to build l3fwd (kept between runs)")


if __name__ == "__main__":
    e2e.run(main, tools=("ip", "make", "cc"), options=options)
