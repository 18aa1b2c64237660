#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Real TCP through the port, the peers' kernels with their default
offloads: two veth pairs, each peer in its own namespace (10.9.0.1 and
10.9.0.2), testpmd forwarding between the two ports (io mode). A client
sends 4 MiB to a server, which answers with the data's SHA-256. The
senders' kernels leave checksums and segmentation to the "device" (a
veth peer hands over partial checksums and 64 KiB TCP super-frames);
softverbs completes and cuts them as a NIC would, so the exchange works
and neither kernel counts a TCP checksum error (TcpInCsumErrors)."""

import hashlib
import os
import subprocess

import vsteer_e2e as e2e

SIZE = 4 << 20
PORT = 5001

SERVER = r"""
import hashlib, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.9.0.2", %d))
s.listen(1)
print("listening", flush=True)
s.settimeout(30)
c, _ = s.accept()
c.settimeout(30)
h = hashlib.sha256()
n = 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    h.update(b)
    n += len(b)
c.sendall(("%%d %%s\n" %% (n, h.hexdigest())).encode())
c.close()
""" % PORT

CLIENT = r"""
import socket, sys
data = open(sys.argv[1], "rb").read()
s = socket.create_connection(("10.9.0.2", %d), timeout=30)
s.sendall(data)
s.shutdown(socket.SHUT_WR)
print(s.makefile().readline().strip(), flush=True)
""" % PORT


def tcp_counters(net):
    """TCP counters of a namespace (/proc/net/snmp, "Tcp:" lines)."""
    text = net.ns_sh("cat", "/proc/net/snmp").stdout
    lines = [ln.split() for ln in text.splitlines() if ln.startswith("Tcp:")]
    return dict(zip(lines[0][1:], (int(v) for v in lines[1][1:])))


def main(args):
    with e2e.VethNs() as a, e2e.VethNs() as b:
        a.ns_sh("ip", "addr", "add", "10.9.0.1/24", "dev", a.peer)
        b.ns_sh("ip", "addr", "add", "10.9.0.2/24", "dev", b.peer)
        with e2e.Testpmd(args.pmd, a.vdev("net_vsteer0"),
                         eal=["--vdev", b.vdev("net_vsteer1")],
                         testpmd=args.testpmd, nb_ports=2,
                         app=["--forward-mode=io"]) as tp:
            tp.cmd("start")
            before = (tcp_counters(a), tcp_counters(b))
            data = os.urandom(SIZE)
            path = os.path.join(e2e.private_dir(), "payload")
            with open(path, "wb") as f:
                f.write(data)
            server = subprocess.Popen(
                ["ip", "netns", "exec", b.ns, e2e.PYTHON, "-c", SERVER],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            e2e.at_cleanup(server.kill)
            e2e.check(server.stdout.readline().strip() == "listening",
                      "server did not start")
            client = a.ns_sh(e2e.PYTHON, "-c", CLIENT, path, timeout=90,
                             check=False)
            server.wait(30)
            e2e.log("client: %s" % client.stdout.strip())
            e2e.check_eq(client.returncode, 0, "client exit status")
            want = "%d %s" % (SIZE, hashlib.sha256(data).hexdigest())
            e2e.check_eq(client.stdout.strip(), want,
                         "bytes and digest the server got")
            after = (tcp_counters(a), tcp_counters(b))
            tp.cmd("stop")
            xs0 = tp.xstats(0)
            e2e.log("port 0 xstats: csum completed %s, super-frames %s"
                    % (xs0.get("rx_wire_csum_completed"),
                       xs0.get("rx_wire_gso_split")))
            for name, ns_before, ns_after in (("client", before[0],
                                               after[0]),
                                              ("server", before[1],
                                               after[1])):
                e2e.check_eq(ns_after["InCsumErrors"] -
                             ns_before["InCsumErrors"], 0,
                             "TcpInCsumErrors on the %s" % name)
                e2e.check_eq(ns_after["InErrs"] - ns_before["InErrs"], 0,
                             "TcpInErrs on the %s" % name)
            # The path under test was taken: the client's kernel left
            # checksums and segmentation to the device.
            e2e.check(xs0.get("rx_wire_csum_completed", 0) > 0,
                      "no checksum left to offload: offloads off?")
            e2e.check(xs0.get("rx_wire_gso_split", 0) > 0,
                      "no super-frame: TSO off on the client's veth?")
            e2e.check_eq(tp.quit(), 0, "testpmd exit status")


if __name__ == "__main__":
    e2e.run(main)
