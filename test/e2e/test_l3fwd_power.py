#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""DPDK's l3fwd-power sample in interrupt-only mode on the port over a
veth: the application sleeps in epoll on the Rx queue's interrupt (the
driver's completion channel, rte_eth_dev_rx_intr_ctl_q()) and a frame from
the peer wakes it up. Built from Debian's dpdk-doc sources as the l3fwd
test builds l3fwd. Checked from the outside: l3fwd-power's own log (it
prints a line each time an Rx interrupt wakes it, which an epoll timeout
does not), the frames it forwards back, and its CPU time while idle, which
a busy-polling loop would spend whole."""

import os
import signal
import subprocess
import time

import vsteer_e2e as e2e
from test_l3fwd import Output, build_example

WAKE = "is waked up from rx interrupt on port 0 queue 0"
IDLE_S = 2.0


def cpu_seconds(pid):
    """utime + stime of a process, all its threads, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(args):
    from scapy.all import IP, UDP, Ether, Raw

    binary = build_example(args.workdir, "l3fwd-power")
    with e2e.VethNs() as net:
        prefix = e2e.unique_prefix("l3fwd-power")
        cpu = sorted(os.sched_getaffinity(0))[0]
        argv = [binary, "--no-huge", "-m", "1024", "--no-pci",
                "--lcores", "0@%d" % cpu, "--file-prefix", prefix,
                "-d", e2e.loadable_pmd(args.pmd), "--vdev", net.vdev(),
                "--log-level=user1,info",
                "--", "-p", "0x1", "--config=(0,0,0)", "--interrupt-only"]
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
        ready = out.wait_for("entering main interrupt loop", 60)
        e2e.log("l3fwd-power says:\n" + out.text[-2000:])
        e2e.check(ready, "l3fwd-power did not reach its interrupt loop")
        e2e.check("RX interrupt won't enable" not in out.text,
                  "l3fwd-power could not add the queue's interrupt")
        mac = None
        for line in out.text.splitlines():
            if "Address:" in line:
                mac = line.split("Address:")[1].split(",")[0].strip().lower()
        e2e.check(mac is not None, "no port address in l3fwd-power's output")

        # Idle: asleep on the interrupt, woken by nothing.
        out.read(0.5)
        mark = len(out.text)
        t0 = cpu_seconds(proc.pid)
        time.sleep(IDLE_S)
        idle_cpu = cpu_seconds(proc.pid) - t0
        out.read(0.1)
        e2e.check(WAKE not in out.text[mark:],
                  "woken up with no traffic:\n%s", out.text[mark:][-1000:])
        e2e.log("idle for %.1f s: %.2f s of CPU" % (IDLE_S, idle_cpu))
        e2e.check(idle_cpu < 0.25 * IDLE_S,
                  "%.2f s of CPU in %.1f s idle: not sleeping", idle_cpu,
                  IDLE_S)

        # Each burst from the peer wakes it and comes back forwarded.
        for burst in range(3):
            mark = len(out.text)
            sent = [bytes(Ether(src=net.peer_mac, dst=mac) /
                          IP(src="192.0.2.%d" % (10 + i), dst="198.18.0.5",
                             ttl=64) /
                          UDP(sport=4000 + i, dport=4001) /
                          Raw(b"power%d-%d" % (burst, i) * 8))
                    for i in range(4)]
            back = net.exchange(sent, expect=len(sent), timeout=5.0)
            routed = [Ether(f) for f in back
                      if Ether(f).haslayer(IP) and
                      Ether(f)[IP].dst == "198.18.0.5"]
            e2e.check_eq(len(routed), len(sent),
                         "burst %d: frames forwarded back" % burst)
            for r in routed:
                e2e.check_eq(r.src.lower(), mac, "source MAC, the port's")
                e2e.check_eq(r[IP].ttl, 63, "TTL decremented")
            e2e.check(out.wait_for(WAKE, 5, start=mark),
                      "burst %d did not wake l3fwd-power up:\n%s", burst,
                      out.text[mark:][-1000:])
            # Asleep again: the next wake-up line needs the next burst.
            out.read(0.3)

        mark = len(out.text)
        time.sleep(1.0)
        out.read(0.1)
        e2e.check(WAKE not in out.text[mark:],
                  "woken up after the traffic stopped:\n%s",
                  out.text[mark:][-1000:])
        wakes = out.text.count(WAKE)
        e2e.log("%d wake-ups for 3 bursts" % wakes)
        e2e.check(3 <= wakes <= 12, "%d wake-ups for 3 bursts of 4 frames",
                  wakes)

        os.killpg(proc.pid, signal.SIGINT)
        try:
            rc = proc.wait(20)
        except subprocess.TimeoutExpired:
            raise AssertionError("l3fwd-power did not exit on SIGINT")
        out.read(0.1)
        e2e.check_eq(rc, 0, "l3fwd-power exit status")


def options(ap):
    ap.add_argument("--workdir", required=True,
                    help="where to build l3fwd-power (kept between runs)")


if __name__ == "__main__":
    e2e.run(main, tools=("ip", "make", "cc"), options=options)
