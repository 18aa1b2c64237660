# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""Open vSwitch with the vsteer PMD, for the end-to-end tests.

A private ovsdb-server and ovs-vswitchd-dpdk (Debian 12's
openvswitch-switch-dpdk, OVS 3.1 on DPDK 22.11), never the system
service: database, sockets, pid files and logs live in a run directory
made for the test and removed at exit; DPDK's EAL gets its own
--file-prefix and its runtime directory is removed too.

ovs-vswitchd runs inside a network namespace of its own that holds the
host ends of the veth pairs: the taps OVS makes for its datapath
(ovs-netdev) and bridges cannot clash with the host's, the host's kernel
never sees (or answers) the test's traffic, and everything goes with the
namespace. Each peer end sits in a namespace of its own.

    with ovs_e2e.Topology(2) as topo, \\
            ovs_e2e.Ovs(pmd, topo.ovs_ns, hw_offload=True) as ovs:
        ovs.add_bridge("br")
        ovs.add_dpdk_port("br", "p0", "net_vsteer0,dev=soft:" + topo.host[0])
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import ovs_parse
import vsteer_e2e as e2e

VSWITCHD_DPDK = "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
OVS_TOOLS = ("ovsdb-tool", "ovsdb-server", "ovs-vsctl", "ovs-appctl")


def require_ovs(vswitchd):
    """Skip unless OVS with DPDK is installed."""
    hint = " (Debian 12: apt-get install openvswitch-switch-dpdk)"
    if not os.access(vswitchd, os.X_OK):
        raise e2e.Skip("%s not found%s" % (vswitchd, hint))
    if not os.path.isfile(SCHEMA):
        raise e2e.Skip("%s not found%s" % (SCHEMA, hint))
    for tool in OVS_TOOLS:
        if shutil.which(tool) is None:
            raise e2e.Skip("%s not found in PATH%s" % (tool, hint))


def _no_ipv6(ns, ifname):
    """The kernel sends nothing (router solicitations, MLD) on ifname."""
    if os.path.exists("/proc/sys/net/ipv6"):
        e2e.sh("ip", "netns", "exec", ns, "sh", "-c", "echo 1 > "
               "/proc/sys/net/ipv6/conf/%s/disable_ipv6" % ifname)


def _mac(ns, ifname):
    out = e2e.sh("ip", "-n", ns, "-o", "link", "show", "dev", ifname).stdout
    return out.split("link/ether ", 1)[1].split()[0]


class Topology:
    """Namespace ovs_ns holds host[i], the PMD's end of veth pair i;
    peer[i] is the other end, alone in namespace ns[i], with IPv6 off on
    both ends so that only the test's traffic flows."""

    def __init__(self, pairs):
        self.tag = e2e.unique_prefix("x").rsplit("-", 1)[1]
        self.ovs_ns = "vsteer-ovs-" + self.tag
        self.ns = ["vsteer-ovs-%s-%d" % (self.tag, i) for i in range(pairs)]
        # Interface names: at most 15 characters.
        self.host = ["vso%s%d" % (self.tag, i) for i in range(pairs)]
        self.peer = ["vsq%s%d" % (self.tag, i) for i in range(pairs)]
        self.peer_mac = []
        self.neighbours = []

    def __enter__(self):
        e2e.at_cleanup(self.close)
        e2e.sh("ip", "netns", "add", self.ovs_ns)
        e2e.sh("ip", "-n", self.ovs_ns, "link", "set", "lo", "up")
        # Taps OVS makes later start with IPv6 off as well.
        _no_ipv6(self.ovs_ns, "default")
        for ns, host, peer in zip(self.ns, self.host, self.peer):
            e2e.sh("ip", "netns", "add", ns)
            e2e.sh("ip", "-n", self.ovs_ns, "link", "add", host, "type",
                   "veth", "peer", "name", peer, "netns", ns)
            _no_ipv6(self.ovs_ns, host)
            _no_ipv6(ns, peer)
            e2e.sh("ip", "-n", self.ovs_ns, "link", "set", host, "up")
            e2e.sh("ip", "-n", ns, "link", "set", peer, "up")
            self.peer_mac.append(_mac(ns, peer))
        e2e.log("namespaces: %s (OVS, %s), %s" % (
            self.ovs_ns, " ".join(self.host),
            ", ".join("%s (%s)" % p for p in zip(self.ns, self.peer))))
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        # Deleting a namespace destroys its veth ends, and so the pairs.
        for ns in self.ns + [self.ovs_ns]:
            e2e.sh("ip", "netns", "del", ns, check=False)

    def add_address(self, i, addr, prefix=24):
        e2e.sh("ip", "-n", self.ns[i], "addr", "add",
               "%s/%d" % (addr, prefix), "dev", self.peer[i])

    def add_neighbour(self, i, addr, mac):
        """A permanent neighbour entry: no ARP on the wire."""
        e2e.sh("ip", "-n", self.ns[i], "neigh", "replace", addr, "lladdr",
               mac, "dev", self.peer[i], "nud", "permanent")
        self.neighbours.append((i, addr, mac))

    def set_peer_mtu(self, i, mtu):
        e2e.sh("ip", "-n", self.ns[i], "link", "set", self.peer[i], "mtu",
               str(mtu))

    def set_peer_link(self, i, state):
        """Take the peer end of pair i "down" or "up": its partner, the
        PMD's end, loses or regains its carrier."""
        e2e.sh("ip", "-n", self.ns[i], "link", "set", self.peer[i], state)
        if state == "up":
            # Taking an interface down flushes its neighbours, permanent
            # ones too (neigh_ifdown()): put them back, or the next ping
            # would ARP.
            for j, addr, mac in self.neighbours:
                if j == i:
                    e2e.sh("ip", "-n", self.ns[i], "neigh", "replace", addr,
                           "lladdr", mac, "dev", self.peer[i], "nud",
                           "permanent")

    def host_mtu(self, i):
        """The MTU of the PMD's end of pair i, as the kernel has it."""
        out = e2e.sh("ip", "-n", self.ovs_ns, "-o", "link", "show", "dev",
                     self.host[i]).stdout
        return int(out.split(" mtu ", 1)[1].split()[0])

    def ping(self, i, pings, timeout=1.0, size=None, results=False):
        """Echo requests from namespace i: pings is a list of (src, dst,
        count); returns the number of replies of each, in order, or with
        results=True peer.py's result of each ({"sent", "replies",
        "sizes"}). size: the IP length of every request, sent with DF."""
        req = {"pings": [{"src": s, "dst": d, "count": c, "size": size}
                         for s, d, c in pings], "timeout": timeout}
        n = sum(c for _, _, c in pings)
        res = subprocess.run(["ip", "netns", "exec", self.ns[i], e2e.PYTHON,
                              os.path.join(e2e.HERE, "peer.py"), "--ping"],
                             input=json.dumps(req), capture_output=True,
                             text=True, timeout=n * timeout + 30)
        if res.returncode != 0:
            raise RuntimeError("ping from %s failed (%d): %s"
                               % (self.ns[i], res.returncode,
                                  res.stderr.strip()))
        out = json.loads(res.stdout)["results"]
        return out if results else [r["replies"] for r in out]


def pmd_core():
    """The CPU for OVS's PMD thread: the last one this process may use
    (OVS's main thread takes the first, as EAL's -l)."""
    return max(os.sched_getaffinity(0))


def _worth_showing(line):
    """Log lines for a failure report: OVS's own (not the continuation
    lines of its DPDK dumps), without the poll loop's wake-ups and the
    driver's routine debug lines."""
    m = ovs_parse.LOG_LINE.match(line)
    if m is None or m.group(1) in ("poll_loop", "netlink_socket"):
        return False
    return not (m.group(1) == "dpdk" and m.group(2) == "DBG" and
                "vsteer_flow" not in line)


class Ovs:
    """A private ovsdb-server and ovs-vswitchd-dpdk running in netns."""

    def __init__(self, pmd, netns, vswitchd=VSWITCHD_DPDK, hw_offload=True,
                 eal=(), other_config=None):
        self.netns = netns
        self.vswitchd = vswitchd
        self.prefix = e2e.unique_prefix("ovs")
        self.dir = None
        self.procs = []
        self.log_path = None
        self.saved_log = ""
        # --legacy-mem: without it OVS 3.1 adds --in-memory, which EAL
        # refuses with --no-huge ("not compatible"). The shared mempool
        # model wants 262144 mbufs per MTU, more than -m 1024 holds:
        # per-port pools instead.
        # pmd None: no -d, the driver installed in DPDK's plugin
        # directory is the one EAL loads.
        load = []
        if pmd is not None:
            pmd = e2e.loadable_pmd(pmd)
            if any(c.isspace() for c in pmd):
                # OVS splits dpdk-extra at white space.
                pmd = e2e.loadable_pmd(pmd, copy=True)
            load = ["-d", pmd]
        extra = ["--file-prefix=" + self.prefix, *load, "--no-huge",
                 "-m", "1024", "--legacy-mem", "--no-pci",
                 "--log-level=pmd.net.vsteer.flow:debug", *eal]
        for word in extra:
            if not word or any(c.isspace() for c in word):
                raise RuntimeError("EAL argument %r: OVS splits dpdk-extra "
                                   "at white space" % word)
        self.other_config = {
            "dpdk-init": "true",
            "dpdk-extra": " ".join(extra),
            "hw-offload": "true" if hw_offload else "false",
            "per-port-memory": "true",
            "pmd-cpu-mask": "0x%x" % (1 << pmd_core()),
        }
        self.other_config.update(other_config or {})

    # -- processes -----------------------------------------------------
    def __enter__(self):
        e2e.at_cleanup(self.close)
        e2e.at_cleanup(self._dump_on_failure)
        self.dir = tempfile.mkdtemp(prefix="vsteer-ovs-")
        os.chmod(self.dir, 0o700)
        self.db = os.path.join(self.dir, "conf.db")
        self.db_sock = os.path.join(self.dir, "db.sock")
        self.ctl = os.path.join(self.dir, "ovs-vswitchd.ctl")
        self.log_path = os.path.join(self.dir, "ovs-vswitchd.log")
        # Defaults of every OVS program (bridge management sockets,
        # vhost sockets) go to the run directory, not /var/run/openvswitch.
        self.env = dict(os.environ, OVS_RUNDIR=self.dir, OVS_DBDIR=self.dir,
                        OVS_LOGDIR=self.dir, OVS_SYSCONFDIR=self.dir)
        e2e.sh("ovsdb-tool", "create", self.db, SCHEMA, env=self.env)
        self._spawn("ovsdb-server",
                    ["ovsdb-server", self.db,
                     "--remote=punix:" + self.db_sock,
                     "--pidfile=" + os.path.join(self.dir, "ovsdb.pid"),
                     "--unixctl=" + os.path.join(self.dir, "ovsdb.ctl"),
                     "--log-file=" + os.path.join(self.dir, "ovsdb.log"),
                     "-vconsole:off"])
        self._wait_path(self.db_sock, 20, "ovsdb-server's socket")
        self.vsctl("--no-wait", "init")
        self.vsctl("--no-wait", "set", "Open_vSwitch", ".",
                   *["other_config:%s=%s" % kv
                     for kv in sorted(self.other_config.items())])
        # The offload code logs every rte_flow rule it creates (dbg) or
        # that failed (warn, dbg for action errors); the DPDK module
        # carries the driver's own log lines.
        self._spawn("ovs-vswitchd",
                    ["ip", "netns", "exec", self.netns, self.vswitchd,
                     "unix:" + self.db_sock,
                     "--pidfile=" + os.path.join(self.dir, "vswitchd.pid"),
                     "--unixctl=" + self.ctl, "--log-file=" + self.log_path,
                     "-vconsole:off", "-vfile:info",
                     "-vnetdev_offload_dpdk:file:dbg", "-vdpdk:file:dbg"])
        e2e.log("ovs-vswitchd (netns %s), other_config: %s" % (
            self.netns, " ".join("%s=%r" % kv for kv in
                                 sorted(self.other_config.items()))))
        self._wait_dpdk(60)
        eal = [ln for ln in self.log().splitlines() if "EAL ARGS:" in ln]
        e2e.log("OVS started DPDK: %s" % (eal[0].split("|")[-1] if eal
                                           else "(no EAL ARGS line)"))
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _spawn(self, name, argv):
        out = open(os.path.join(self.dir, name + ".out"), "w")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT,
                                    env=self.env, start_new_session=True)
        finally:
            out.close()
        self.procs.append((name, proc))
        return proc

    def _wait_path(self, path, timeout, what):
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError("%s exited (%d) before %s appeared"
                                       % (name, proc.returncode, what))
            if time.monotonic() > deadline:
                raise RuntimeError("no %s within %gs" % (what, timeout))
            time.sleep(0.05)

    def _wait_dpdk(self, timeout):
        """Until OVS says DPDK is initialised; ovs-vswitchd exiting
        (EAL refused its arguments, say) fails at once."""
        deadline = time.monotonic() + timeout
        while True:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise RuntimeError("%s exited (%d) before DPDK was "
                                       "initialised (its log follows)"
                                       % (name, proc.returncode))
            out = self.vsctl("--if-exists", "get", "Open_vSwitch", ".",
                             "dpdk_initialized").strip()
            if out == "true":
                return
            if time.monotonic() > deadline:
                raise RuntimeError("DPDK not initialised within %gs "
                                   "(dpdk_initialized=%s)" % (timeout, out))
            time.sleep(0.1)

    def close(self):
        # ovs-vswitchd first: on SIGTERM it removes its ports, and so its
        # rte_flow rules, and closes the DPDK ports.
        for name, proc in reversed(self.procs):
            if proc.poll() is not None:
                continue
            for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    e2e.log("%s did not exit on signal %d" % (name, sig))
        for name, proc in self.procs:
            if proc.returncode is None:
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
        self.procs = []
        if self.dir is not None:
            # Kept for the failure report, which runs after this.
            self.saved_log = self.log()
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        e2e.remove_runtime_dir(self.prefix)

    def _dump_on_failure(self):
        text = self.log() if self.dir is not None else self.saved_log
        if not e2e.failed() or not text:
            return
        lines = [ln for ln in text.splitlines() if _worth_showing(ln)]
        print("---- ovs-vswitchd log (last 150 lines) ----\n%s\n---- end ----"
              % "\n".join(lines[-150:]))

    # -- commands ------------------------------------------------------
    def vsctl(self, *args, timeout=30):
        return e2e.sh("ovs-vsctl", "--db=unix:" + self.db_sock, *args,
                      timeout=timeout, env=self.env).stdout

    def appctl(self, *args, timeout=30):
        return e2e.sh("ovs-appctl", "-t", self.ctl, *args, timeout=timeout,
                      env=self.env).stdout

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def log_mark(self):
        """A position in the log, for log_since()."""
        return len(self.log())

    def log_since(self, mark):
        return self.log()[mark:]

    def problems_since(self, mark):
        """The log's WARN and ERR lines after mark, for a failure message;
        not the rule refusals (the rule report has them) nor what dpctl
        commands say of system datapaths this test does not use."""
        out = []
        for line in self.log_since(mark).splitlines():
            m = ovs_parse.LOG_LINE.match(line)
            if m is None or m.group(2) not in ("WARN", "ERR") or \
                    m.group(1) == "netdev_offload_dpdk" or \
                    "enumerate system datapaths" in m.group(3):
                continue
            out.append("%s|%s|%s" % m.groups())
        return out

    def dpif_ports(self):
        """dpif/show, parsed: the datapath's ports and their
        configuration (ovs_parse.dpif_show)."""
        return ovs_parse.dpif_show(self.appctl("dpif/show"))

    def rows(self, table, record, *columns):
        out = self.vsctl("--format=json", "--columns=" + ",".join(columns),
                         "list", table, record)
        return ovs_parse.ovsdb_rows(out)[0]

    # -- set-up --------------------------------------------------------
    def add_bridge(self, name):
        """A userspace (netdev) bridge; without controllers it forwards
        with the NORMAL action (MAC learning)."""
        self.vsctl("add-br", name, "--", "set", "bridge", name,
                   "datapath_type=netdev")

    def add_dpdk_port(self, bridge, name, devargs, n_rxq=1, timeout=30):
        """A type=dpdk port; waits until OVS reports it configured and up,
        fails with OVS's error for the interface otherwise."""
        self.vsctl("add-port", bridge, name, "--", "set", "interface", name,
                   "type=dpdk", "options:dpdk-devargs=" + devargs,
                   "options:n_rxq=%d" % n_rxq, timeout=timeout)
        deadline = time.monotonic() + timeout
        while True:
            row = self.rows("Interface", name, "error", "ofport",
                            "link_state")
            if row["error"]:
                raise AssertionError("port %s (%s): %s"
                                     % (name, devargs, row["error"]))
            if isinstance(row["ofport"], int) and row["ofport"] > 0 and \
                    row["link_state"] == "up":
                return row["ofport"]
            if time.monotonic() > deadline:
                raise AssertionError("port %s not up within %gs: %s"
                                     % (name, timeout, row))
            time.sleep(0.1)

    def wait_configured(self, ports, mark, timeout=20, **want):
        """After a change to the ports' configuration (at log position
        mark): wait until OVS applied it, each port in the datapath with
        every key of want (dpif/show names: configured_rx_queues=4,
        mtu=1600, lsc_interrupt_mode="true") and its Interface row without
        error, with an ofport, its link up. Fails with what OVS shows and
        logged otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            # A port OVS could not reconfigure leaves the datapath at once
            # (dpif-netdev's reconfigure_datapath()): no point waiting.
            failed = [p for p in ports if "Failed to set interface %s new "
                      "configuration" % p in self.log_since(mark)]
            dp = self.dpif_ports()
            rows = {p: self.rows("Interface", p, "error", "ofport",
                                 "link_state") for p in ports}
            bad = {}
            for p in ports:
                conf = dp.get(p, {}).get("config")
                row = rows[p]
                if conf is None:
                    bad[p] = "not in the datapath (dpif/show)"
                elif any(conf.get(k) != v for k, v in want.items()):
                    bad[p] = "dpif/show: %s" % ", ".join(
                        "%s=%s" % (k, conf.get(k)) for k in sorted(want))
                elif row["error"] or not isinstance(row["ofport"], int) or \
                        row["ofport"] <= 0 or row["link_state"] != "up":
                    bad[p] = "Interface row: %s" % row
            if not bad:
                return
            if failed or time.monotonic() > deadline:
                raise AssertionError(
                    "OVS did not apply %s to %s%s: %s; its log since:\n"
                    "    %s" % (" ".join("%s=%s" % kv for kv in
                                         sorted(want.items())) or
                               "the change", ", ".join(ports),
                               " (it failed to reconfigure %s)"
                               % ", ".join(failed) if failed else
                               " within %gs" % timeout,
                               "; ".join("%s %s" % kv for kv in
                                         sorted(bad.items())),
                               "\n    ".join(self.problems_since(mark)
                                             or ["(no WARN or ERR line)"])))
            time.sleep(0.2)

    def statistics(self, port):
        """The interface's statistics column: OVS's counters and the
        PMD's extended statistics (rx_q<N>_packets, ...). OVS refreshes it
        every 5 seconds."""
        return self.rows("Interface", port, "statistics")["statistics"]
