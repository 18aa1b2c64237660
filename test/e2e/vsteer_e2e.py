# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""End-to-end test framework: the real dpdk-testpmd with the vsteer PMD,
softverbs on a veth pair whose peer lives in a network namespace, and
packets from python3-scapy sent by the peer.

Python 3 standard library and scapy only. A test is a script:

    import vsteer_e2e as e2e

    def main(args):
        with e2e.VethNs() as net, e2e.Testpmd(args.pmd, net.vdev()) as tp:
            tp.cmd("start")
            ...

    if __name__ == "__main__":
        e2e.run(main)

run() parses --pmd/--testpmd, skips (exit 77) without root, ip or testpmd,
and also when a part of the test did not run (skip_part()): a test that
ran only some of what it checks is not reported as a pass. It turns
AssertionError into a failure with testpmd's transcript printed
(HardError into exit 99, for the tests meson expects to fail), and always
cleans up: network namespace, veth pair, testpmd process and its EAL
runtime directory.

With --model WRAPPER (devtools/mlx5-model) and --model-lib, a test runs
in the model mode: the port is a modelled ConnectX-5 (dev=mlx5_N) whose
wire is the host end of the veth pair, and testpmd runs under the
wrapper, so rdma-core's own libibverbs and libmlx5 drive the device
instead of the interposed softverbs calls.
"""

import argparse
import atexit
import json
import os
import pty
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback

import testpmd_parse as parse

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") \
    else sys.executable
PROMPT = parse.PROMPT

_cleanups = []

# The model mode (see above): the wrapper and its library, and the veth
# host ends that get a modelled device each, mlx5_0 on the first.
MODEL = None
MODEL_LIB = None
_model_links = []
_model_opts = []


def at_cleanup(fn):
    """Run fn at exit, even on SIGTERM (meson's timeout) or an error."""
    _cleanups.append(fn)
    return fn


def _run_cleanups():
    while _cleanups:
        fn = _cleanups.pop()
        try:
            fn()
        except Exception as exc:  # keep cleaning up the rest
            print("cleanup: %s" % exc, file=sys.stderr)


def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


atexit.register(_run_cleanups)
signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGHUP, _on_signal)


class Skip(Exception):
    """Raised to skip a test: the environment cannot run it."""


HARD_ERROR = 99


class HardError(Exception):
    """A failure that is not the one an expected-failure test (meson's
    should_fail) expects: exit status 99, which meson reports as an
    error whatever should_fail says."""


def log(msg):
    print("[e2e %6.2f] %s" % (time.monotonic() - _T0, msg), flush=True)


_T0 = time.monotonic()


def sh(*argv, check=True, timeout=20, **kw):
    """Run a command, return CompletedProcess with text output."""
    res = subprocess.run(list(argv), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=timeout, **kw)
    if check and res.returncode != 0:
        raise RuntimeError("%s failed (%d): %s"
                           % (" ".join(argv), res.returncode,
                              res.stdout.strip()))
    return res


def require_root():
    """Become root through sudo -n when possible, else skip."""
    if os.geteuid() == 0:
        return
    sudo = shutil.which("sudo")
    if sudo and os.environ.get("VSTEER_E2E_SUDO") != "tried":
        ok = subprocess.run([sudo, "-n", "true"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode == 0
        if ok:
            sys.stdout.flush()
            # -B: no root-owned __pycache__ left in the source tree.
            os.execv(sudo, [sudo, "-n", "env", "VSTEER_E2E_SUDO=tried",
                            "PATH=%s:/usr/sbin:/sbin"
                            % os.environ.get("PATH", "/usr/bin:/bin"),
                            PYTHON, "-B", os.path.abspath(sys.argv[0])]
                     + sys.argv[1:])
    raise Skip("needs root (veth pairs, network namespaces, AF_PACKET) "
               "and passwordless sudo is not available")


def require_tools(*names):
    for name in names:
        if shutil.which(name) is None:
            raise Skip("%s not found in PATH" % name)


def require_pmd(path):
    """The PMD must exist and register a vdev driver: the build makes it,
    so its absence is a failure, not a reason to skip."""
    if not path or not os.path.isfile(path):
        raise RuntimeError("PMD shared object not found: %s" % path)
    with open(path, "rb") as f:
        blob = f.read()
    if b"rte_vdev_register" not in blob:
        raise RuntimeError("%s registers no vdev driver" % path)


def _world_writable_dir(path):
    """The first directory on the way to path that anyone may write."""
    d = os.path.dirname(os.path.realpath(path))
    while True:
        if os.stat(d).st_mode & stat.S_IWOTH:
            return d
        if d == "/":
            return None
        d = os.path.dirname(d)


def loadable_pmd(path, copy=False):
    """A path EAL will load the PMD from.

    EAL refuses a plugin when any directory above it is world-writable
    (a checkout under /tmp, say); then, or when copy is true, the object
    is copied to a private directory under one that is not, removed at
    exit.
    """
    path = os.path.abspath(path)
    bad = _world_writable_dir(path)
    if bad is None and not copy:
        return path
    for base in ("/run", "/var/lib", os.path.expanduser("~")):
        if os.path.isdir(base) and os.access(base, os.W_OK) and \
                _world_writable_dir(os.path.join(base, "x")) is None:
            break
    else:
        raise Skip("%s is world-writable, so EAL will not load %s, and no "
                   "private directory to copy it to was found" % (bad, path))
    tmp = tempfile.mkdtemp(prefix="vsteer-e2e-pmd-", dir=base)
    at_cleanup(lambda: shutil.rmtree(tmp, ignore_errors=True))
    dst = os.path.join(tmp, os.path.basename(path))
    shutil.copy2(path, dst)
    log("%s: loading the PMD from a copy in %s"
        % ("%s is world-writable" % bad if bad else "asked", tmp))
    return dst


def private_dir():
    """A temporary directory of the test's own, removed at exit."""
    d = tempfile.mkdtemp(prefix="vsteer-e2e-")
    at_cleanup(lambda: shutil.rmtree(d, ignore_errors=True))
    return d


def _unique():
    return "%04x%02x" % (os.getpid() & 0xffff, int.from_bytes(os.urandom(1),
                                                             "big"))


class VethNs:
    """A veth pair: `host` in the root namespace (for the PMD), `peer`
    inside a fresh network namespace (for scapy). IPv6 is disabled on both
    ends and no address is configured, so the kernel sends nothing."""

    def __init__(self):
        tag = _unique()
        self.ns = "vsteer-e2e-" + tag
        self.host = "vsh" + tag
        self.peer = "vsp" + tag
        self.peer_mac = None
        self.host_mac = None

    def __enter__(self):
        at_cleanup(self.close)
        sh("ip", "netns", "add", self.ns)
        sh("ip", "link", "add", self.host, "type", "veth", "peer", "name",
           self.peer, "netns", self.ns)
        self._no_ipv6(None, self.host)
        self._no_ipv6(self.ns, self.peer)
        sh("ip", "link", "set", self.host, "up")
        sh("ip", "-n", self.ns, "link", "set", self.peer, "up")
        self.host_mac = self._mac(None, self.host)
        self.peer_mac = self._mac(self.ns, self.peer)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open("/sys/class/net/%s/operstate" % self.host) as f:
                if f.read().strip() == "up":
                    break
            time.sleep(0.05)
        log("veth %s <-> %s (netns %s), peer mac %s"
            % (self.host, self.peer, self.ns, self.peer_mac))
        if MODEL:
            _model_links.append(self.host)
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @staticmethod
    def _no_ipv6(ns, ifname):
        knob = "/proc/sys/net/ipv6/conf/%s/disable_ipv6" % ifname
        if not os.path.exists("/proc/sys/net/ipv6"):
            return
        prefix = ["ip", "netns", "exec", ns] if ns else []
        sh(*prefix, "sh", "-c", "echo 1 > " + knob)

    @staticmethod
    def _mac(ns, ifname):
        prefix = ["-n", ns] if ns else []
        out = sh("ip", *prefix, "-o", "link", "show", "dev", ifname).stdout
        m = re.search(r"link/ether ([0-9a-f:]{17})", out)
        if m is None:
            raise RuntimeError("no MAC address for %s: %s" % (ifname, out))
        return m.group(1)

    def close(self):
        sh("ip", "netns", "del", self.ns, check=False)
        # Deleting the namespace destroys the peer and so the pair; be sure.
        if os.path.exists("/sys/class/net/" + self.host):
            sh("ip", "link", "del", self.host, check=False)

    def ns_sh(self, *argv, **kw):
        """Run a command inside the namespace."""
        return sh("ip", "netns", "exec", self.ns, *argv, **kw)

    def set_mtu(self, mtu, which="peer"):
        if which == "peer":
            sh("ip", "-n", self.ns, "link", "set", self.peer, "mtu",
               str(mtu))
        else:
            sh("ip", "link", "set", self.host, "mtu", str(mtu))

    def host_mtu(self):
        with open("/sys/class/net/%s/mtu" % self.host) as f:
            return int(f.read())

    def host_stats(self):
        """The host end's kernel counters (what reached the interface)."""
        out = {}
        for name in ("tx_packets", "tx_bytes", "tx_dropped", "rx_packets"):
            with open("/sys/class/net/%s/statistics/%s"
                      % (self.host, name)) as f:
                out[name] = int(f.read())
        return out

    def peer_stats(self):
        """The peer end's kernel counters, read inside the namespace."""
        out = {}
        for name in ("rx_packets", "rx_bytes", "rx_dropped", "tx_packets"):
            out[name] = int(self.ns_sh("cat", "/sys/class/net/%s/statistics/%s"
                                       % (self.peer, name)).stdout)
        return out

    def device(self):
        """The dev= devarg for the host end: softverbs on the interface,
        or in the model mode the modelled device wired to it."""
        if MODEL:
            return "mlx5_%d" % _model_links.index(self.host)
        return "soft:" + self.host

    def vdev(self, name="net_vsteer0", extra=""):
        """The --vdev argument for the PMD on the host end."""
        args = "%s,dev=%s" % (name, self.device())
        return args + ("," + extra if extra else "")

    def exchange(self, frames, expect=None, timeout=3.0, gap=0.0,
                 send_errors_ok=False):
        """Send frames (bytes) from the peer; return the frames that
        arrived at the peer meanwhile (our own sends excluded). Frames
        the kernel refuses to send are an error unless send_errors_ok."""
        req = {"ifname": self.peer, "frames": [bytes(f).hex() for f in frames],
               "expect": expect, "timeout": timeout, "gap": gap}
        res = subprocess.run(["ip", "netns", "exec", self.ns, PYTHON,
                              os.path.join(HERE, "peer.py"), "--json"],
                             input=json.dumps(req), capture_output=True,
                             text=True, timeout=timeout + 30)
        if res.returncode != 0:
            raise RuntimeError("peer failed (%d): %s"
                               % (res.returncode, res.stderr.strip()))
        out = json.loads(res.stdout)
        if out["send_errors"] and not send_errors_ok:
            raise RuntimeError("peer could not send %d frames"
                               % out["send_errors"])
        return [bytes.fromhex(r) for r in out["received"]]


def remove_runtime_dir(prefix):
    """EAL leaves a runtime directory per --file-prefix; remove ours."""
    for base in ("/var/run/dpdk", os.path.join(
            os.environ.get("XDG_RUNTIME_DIR", "/nonexistent"), "dpdk")):
        shutil.rmtree(os.path.join(base, prefix), ignore_errors=True)


def unique_prefix(tag="e2e"):
    """A --file-prefix no other EAL process uses."""
    return "vsteer-%s-%s" % (tag, _unique())


def model_prefix():
    """The argv head that runs a DPDK application under the model (one
    device per veth pair made so far), or nothing outside the model
    mode."""
    if not MODEL:
        return []
    argv = [MODEL, "--lib", MODEL_LIB, *_model_opts]
    for link in _model_links:
        argv += ["--link", link]
    return argv + ["--"]


_devinfo = {}


def model_devinfo():
    """What rdma-core's ibv_devinfo -v says of a modelled device (one of
    its own, on an in-memory link: no traffic on the test's wire), as
    name: value; asked once."""
    if not _devinfo:
        out = sh(MODEL, "--lib", MODEL_LIB, "--link", "mem:e2e-caps", "--",
                 "ibv_devinfo", "-v", "-d", "mlx5_0").stdout
        for m in re.finditer(r"^\s*(\w+):\s*(\S+)", out, re.M):
            _devinfo.setdefault(m.group(1), m.group(2))
        for key in ("fw_ver", "max_rwq_indirection_table_size",
                    "hca_core_clock"):
            if key not in _devinfo:
                raise RuntimeError("ibv_devinfo shows no %s:\n%s"
                                   % (key, out))
    return _devinfo


def rss_table_max(info):
    """The device's largest indirection table, which the driver's RSS
    action tables take when their queue count is no power of two: the
    port's RETA size on softverbs; the modelled ConnectX-5's is larger
    than any RETA."""
    if not MODEL:
        return info["reta_size"]
    return int(model_devinfo()["max_rwq_indirection_table_size"])


def device_clock_hz():
    """The frequency of the device clock Rx timestamps count: softverbs'
    1 GHz, or the modelled ConnectX-5's hca_core_clock."""
    if not MODEL:
        return 1e9
    khz = re.match(r"(\d+)kHZ", model_devinfo()["hca_core_clock"])
    if khz is None:
        raise RuntimeError("ibv_devinfo: hca_core_clock %r"
                           % model_devinfo()["hca_core_clock"])
    return int(khz.group(1)) * 1e3


def firmware():
    """The firmware version the port reports."""
    return model_devinfo()["fw_ver"] if MODEL else "softverbs-1"


def lcores_arg():
    """Two lcores (main + forwarding) on the CPUs this process may use."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:
        return "0@%d,1@%d" % (cpus[0], cpus[1])
    return "0@%d,1@%d" % (cpus[0], cpus[0])


class TestpmdError(AssertionError):
    pass


class Hugepages:
    """Huge pages for a primary process and its secondaries (memory from
    --no-huge cannot be shared): reserves `pages` 2 MB pages on top of
    what the system has, mounts a private hugetlbfs for them (EAL's
    --huge-dir), and puts both back as they were at exit. A machine that
    cannot give them fails the test: it runs as root."""

    SYSFS = "/sys/kernel/mm/hugepages/hugepages-2048kB"

    def __init__(self, pages=256):
        self.pages = pages
        self.orig = None
        self.set_to = None
        self.dir = None
        self.mounted = False

    def _read(self, name):
        with open(os.path.join(self.SYSFS, name)) as f:
            return int(f.read())

    def _write(self, value):
        with open(os.path.join(self.SYSFS, "nr_hugepages"), "w") as f:
            f.write("%d\n" % value)

    def __enter__(self):
        at_cleanup(self.close)
        if not os.path.isdir(self.SYSFS):
            raise RuntimeError("no 2 MB huge pages on this kernel (%s)"
                               % self.SYSFS)
        self.orig = self._read("nr_hugepages")
        self.set_to = self.orig + self.pages
        self._write(self.set_to)
        free = self._read("free_hugepages")
        if free < self.pages:
            raise RuntimeError("only %d of %d huge pages could be reserved "
                               "(memory fragmented?)" % (free, self.pages))
        self.dir = tempfile.mkdtemp(prefix="vsteer-e2e-huge-")
        sh("mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev",
           self.dir)
        self.mounted = True
        log("%d huge pages (%d -> %d), hugetlbfs on %s"
            % (self.pages, self.orig, self.set_to, self.dir))
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        if self.mounted:
            sh("umount", self.dir, check=False)
            self.mounted = False
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        if self.orig is not None:
            # Put back what was there, unless someone else changed it.
            if self._read("nr_hugepages") == self.set_to:
                self._write(self.orig)
            else:
                log("nr_hugepages changed meanwhile: left at %d"
                    % self._read("nr_hugepages"))
            self.orig = None


class Background:
    """A DPDK application (a secondary process, say) running in the
    background on a pty, so that its stdout is line-buffered; read with
    wait_for(), stopped with stop()."""

    def __init__(self, argv, name):
        self.argv = argv
        self.name = name
        self.proc = None
        self.fd = None
        self.out = ""
        self.rc = None

    def __enter__(self):
        at_cleanup(self.close)
        at_cleanup(self._dump_on_failure)
        log("$ " + " ".join(self.argv))
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                     stdout=slave, stderr=slave,
                                     close_fds=True, start_new_session=True)
        os.close(slave)
        self.fd = master
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _read(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.out += parse.clean(data.decode("utf-8", "replace"))
        return True

    def wait_for(self, pattern, timeout):
        """The match of pattern in the output; an error when the
        application exits or the time runs out first."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.out)
            if m is not None:
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("%s: no %r within %gs"
                                     % (self.name, pattern, timeout))
            if not self._read(min(left, 0.2)):
                self.rc = self.proc.wait(timeout=10)
                raise AssertionError("%s exited (%d) before %r"
                                     % (self.name, self.rc, pattern))

    def stop(self, sig=signal.SIGINT, timeout=30):
        """Signal the application and wait: its exit status."""
        self.proc.send_signal(sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(0.2):
            if self.proc.poll() is not None:
                break
        try:
            self.rc = self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise AssertionError("%s did not exit within %gs of %s"
                                 % (self.name, timeout, sig.name))
        while self._read(0):
            pass
        return self.rc

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(5)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _dump_on_failure(self):
        if _failed and self.out:
            print("---- %s output ----\n%s\n---- end ----"
                  % (self.name, self.out[-8000:]))


def mempool_preload(primary):
    """What a secondary process must preload to number the mempool drivers
    as the primary does: the librte_mempool_* libraries the primary's
    binary is linked with, in ldd's order. DPDK names a mempool's ops by
    their index in each process's table, filled in library load order; a
    secondary that loads them in another order (Debian's dpdk-testpmd is
    linked with the DPAA mempool driver, dpdk-pdump is not) has the
    primary copy packets into its pool with the wrong ops."""
    path = shutil.which(primary) or primary
    out = sh("ldd", path).stdout
    return re.findall(r"=>\s*(\S*/librte_mempool_\w+\.so[.\d]*)", out)


def run_secondary(argv, timeout=60):
    """Run a secondary process to completion: (exit status, output)."""
    log("$ " + " ".join(argv))
    try:
        res = subprocess.run(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=timeout,
                             start_new_session=True)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        if isinstance(out, bytes):
            out = out.decode("utf-8", "replace")
        raise AssertionError("%s did not finish within %ds:\n%s"
                             % (argv[0], timeout, out[-4000:]))
    return res.returncode, res.stdout


class Testpmd:
    """dpdk-testpmd in interactive mode on a pty. With huge_dir (a
    hugetlbfs mount, see Hugepages), its memory is huge pages that
    secondary processes (dpdk-proc-info, dpdk-pdump) can attach to;
    otherwise --no-huge."""

    def __init__(self, pmd, vdev, rxq=1, txq=1, mbufs=8192, eal=(),
                 app=(), testpmd="dpdk-testpmd", start_timeout=60,
                 nb_ports=1, huge_dir=None, pci=None):
        self.prefix = unique_prefix()
        mem = ["--huge-dir", huge_dir, "-m", "256"] if huge_dir else \
            ["--no-huge", "-m", "1024"]
        # pci: the port is that PCI function (-a, with its devargs)
        # rather than a vdev.
        self.argv = [*model_prefix(), testpmd, *mem,
                     *(["-a", pci] if pci else ["--no-pci"]),
                     "--lcores", lcores_arg(), "--file-prefix", self.prefix]
        if pmd:
            self.argv += ["-d", loadable_pmd(pmd)]
        if vdev:
            self.argv += ["--vdev", vdev]
        self.argv += [*eal, "--", "-i",
                      "--nb-ports=%d" % nb_ports,
                      "--rxq=%d" % rxq, "--txq=%d" % txq,
                      "--total-num-mbufs=%d" % mbufs, *app]
        self.start_timeout = start_timeout
        self.proc = None
        self.fd = None
        self.transcript = ""
        self.rc = None

    # -- process -------------------------------------------------------
    def __enter__(self):
        at_cleanup(self.close)
        at_cleanup(self._dump_on_failure)
        log("$ " + " ".join(self.argv))
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(self.argv, stdin=slave, stdout=slave,
                                     stderr=slave, close_fds=True,
                                     start_new_session=True)
        os.close(slave)
        self.fd = master
        self._until_prompt(self.start_timeout, "start-up")
        if MODEL:
            self._check_model_maps()
        return self

    def _check_model_maps(self):
        """In the model mode the port must run on rdma-core's own
        libmlx5 (the wrapper's child, testpmd, maps it) with the model
        under it, not on anything interposed above libibverbs."""
        with open("/proc/%d/task/%d/children" % (self.proc.pid,
                                                 self.proc.pid)) as f:
            kids = f.read().split()
        check(len(kids) == 1, "the model wrapper runs %d processes", len(kids))
        with open("/proc/%s/maps" % kids[0]) as f:
            maps = f.read()
        for lib in ("/libmlx5.so.1", "/libibverbs.so.1", "/libmlx5model.so"):
            check(lib in maps, "testpmd under the model has no %s mapped",
                  lib[1:])

    def __exit__(self, *exc):
        self.close()
        return False

    def _read(self, timeout):
        """Append what testpmd printed within timeout; False on EOF."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the slave side is closed
            return False
        if not data:
            return False
        self.transcript += parse.clean(data.decode("utf-8", "replace"))
        return True

    def _until_prompt(self, timeout, what, start=None):
        start = len(self.transcript) if start is None else start
        deadline = time.monotonic() + timeout
        while True:
            m = parse.PROMPT_RE.search(self.transcript, start)
            if m is not None:
                return m.start()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestpmdError("testpmd: no prompt within %gs after %s"
                                   % (timeout, what))
            if not self._read(min(left, 0.2)):
                self.rc = self.proc.wait(timeout=10)
                raise TestpmdError("testpmd exited (%d) during %s"
                                   % (self.rc, what))

    def cmd(self, line, timeout=15):
        """Send one command, return its output (without echo or prompt)."""
        start = len(self.transcript)
        os.write(self.fd, (line + "\n").encode())
        end = self._until_prompt(timeout, repr(line), start)
        out = self.transcript[start:end]
        # The command line library echoes what it reads.
        first, _, rest = out.partition("\n")
        if first.strip() == line.strip():
            out = rest
        return out

    def settle(self, seconds):
        """Keep reading (asynchronous verbose output) for a while."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self._read(deadline - time.monotonic()):
                break

    def quit(self, timeout=30):
        """`quit` and wait for the exit status."""
        os.write(self.fd, b"quit\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(0.2):
            if self.proc.poll() is not None:
                break
        try:
            self.rc = self.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise TestpmdError("testpmd did not exit within %gs of quit"
                               % timeout)
        while self._read(0):
            pass
        return self.rc

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            # The group may be gone between poll() and killpg(): go on
            # to the fd and the runtime directory whatever happens here.
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                    self.proc.wait(5)
                    break
                except ProcessLookupError:
                    self.proc.wait(5)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self.proc is not None and self.rc is None:
            self.rc = self.proc.returncode
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        remove_runtime_dir(self.prefix)

    def _dump_on_failure(self):
        if _failed and self.transcript:
            print("---- testpmd transcript (%s) ----\n%s\n---- end ----"
                  % (self.prefix, self.transcript[-20000:]))

    # -- typed helpers ---------------------------------------------------
    def port_info(self, port=0):
        return parse.port_info(self.cmd("show port info %d" % port))

    def port_stats(self, port=0):
        return parse.port_stats(self.cmd("show port stats %d" % port))

    def xstats(self, port=0):
        return parse.xstats(self.cmd("show port xstats %d" % port))

    def rss_conf(self, port=0):
        return parse.rss_hash_conf(self.cmd("show port %d rss-hash key"
                                            % port))

    def reta(self, size, port=0):
        out = "".join(self.cmd("show port %d rss reta %d %s"
                               % (port, size, parse.reta_masks(size, g)))
                      for g in range((size + 63) // 64))
        return parse.reta(out, size)

    def flow_create(self, rule):
        return parse.flow_created(self.cmd("flow create " + rule))

    def flow_count(self, rule_id, port=0):
        return parse.flow_count(self.cmd("flow query %d %d count"
                                         % (port, rule_id)))

    def flow_list(self, port=0):
        return parse.flow_list(self.cmd("flow list %d" % port))

    def flow_refused(self, command):
        """Run a flow command the PMD must refuse; return its PmdError."""
        out = self.cmd(command)
        err = parse.pmd_error(out)
        if err is None or re.search(r"Flow rule #\d+ (created|validated)",
                                    out):
            raise AssertionError("%r was not refused by the PMD:\n%s"
                                 % (command, out))
        return err

    def rx_traffic(self, net, frames, expect, timeout=10.0):
        """Forward (`start`), send frames from the peer, wait until the
        verbose dump (`set verbose 1` first) shows expect packets more,
        then `stop`; return those packets (parse.RxPacket). Packets beyond
        expect that arrive before the stop are returned too."""
        start = len(self.transcript)
        self.cmd("start")
        net.exchange(frames, expect=None, timeout=0.2)
        deadline = time.monotonic() + timeout
        while len(parse.rx_dump(self.transcript[start:])) < expect and \
                time.monotonic() < deadline:
            self.settle(0.1)
        self.settle(0.3)  # what is still on its way
        self.cmd("stop")
        return parse.rx_dump(self.transcript[start:])

    def reap_tx(self, queues, port=0, timeout=5.0):
        """Forwarding stopped, have the driver read the Tx completions of
        the port's queues until the device holds none of their frames
        (rte_eth_tx_descriptor_status(), testpmd's `show port txq desc
        status`, reads them: the last free descriptor is DONE once none is
        in flight). The driver counts a frame as sent when it reads its
        completion, at the next burst: on an asynchronous device (the
        model) the last burst's are still unread after `stop`; on
        softverbs, a synchronous device, nothing is left to read."""
        for q in range(queues):
            out = self.cmd("show txq info %d %d" % (port, q))
            m = re.search(r"Number of TXDs:\s*(\d+)", out)
            check(m is not None, "txq %d info: %s", q, out)
            last = int(m.group(1)) - 2
            deadline = time.monotonic() + timeout
            while True:
                out = self.cmd("show port %d txq %d desc %d status"
                               % (port, q, last))
                if "Desc status = DONE" in out:
                    break
                check("Desc status" in out and
                      time.monotonic() < deadline,
                      "txq %d: frames still in the device after %gs: %s",
                      q, timeout, out)
                time.sleep(0.01)

    def wait_rx(self, packets, port=0, timeout=10.0):
        """Poll port stats until RX-packets reaches packets."""
        deadline = time.monotonic() + timeout
        while True:
            stats = self.port_stats(port)
            if stats["rx_packets"] >= packets or time.monotonic() > deadline:
                return stats
            time.sleep(0.1)


def run_testpmd_once(argv, timeout=60):
    """Run testpmd to completion with no input: (exit status, output)."""
    log("$ " + " ".join(argv))
    try:
        res = subprocess.run(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=timeout,
                             start_new_session=True)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        if isinstance(out, bytes):
            out = out.decode("utf-8", "replace")
        return None, out
    return res.returncode, res.stdout


def check(cond, msg, *args):
    """Assert with a formatted message."""
    if not cond:
        raise AssertionError(msg % args if args else msg)


def check_eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


_failed = False
_parts_skipped = []


def skip_part(why):
    """A part of the test cannot run here (the device lacks what it
    checks): the rest goes on, and the test ends skipped (77), not
    passed."""
    log("part skipped: %s" % why)
    _parts_skipped.append(why)


def outcome():
    """The exit status of a test whose checks all held: 0, or SKIP when
    a part of it did not run."""
    if _parts_skipped:
        print("SKIP: %d part(s) did not run: %s"
              % (len(_parts_skipped), "; ".join(_parts_skipped)),
              flush=True)
        return SKIP
    print("PASS", flush=True)
    return 0


def failed():
    """True once the test failed: clean-ups print their diagnostics."""
    return _failed


def engine_option(ap):
    """The --engine option of the rte_flow tests (run()'s options)."""
    ap.add_argument("--engine", choices=["auto", "verbs", "dv"],
                    default="auto", help="flow_engine devarg of the port")


def enter_model_mode(args):
    """Enter the model mode when asked; its parts are built with the
    tree, so a missing one is a failure."""
    global MODEL, MODEL_LIB
    if not args.model:
        return
    for path in (args.model, args.model_lib):
        if not path or not os.path.isfile(path):
            raise RuntimeError("model mode: %s not found" % path)
    MODEL, MODEL_LIB = args.model, args.model_lib


def model_mode():
    """True when the test runs on the modelled device."""
    return MODEL is not None


def model_options(*opts):
    """Options of devtools/mlx5-model for the modelled devices from now
    on (the firmware's settings: --flex-parser 1)."""
    _model_opts.extend(opts)


def soft_xstat(n):
    """What a device xstat that only softverbs counts (rx_wire_packets,
    rx_rule_drop_packets, rx_unsteered_packets, ...) reads: n there, 0 on
    an rdma-core device, which has no source for it (of the device
    counters it has only hw_counters/out_of_buffer)."""
    return 0 if MODEL else n


def run(main, tools=("ip",), options=None, testpmd=True):
    """Parse the common arguments and run main(args) as a test, as root
    (testpmd's runtime directory, raw sockets, namespaces). options, when
    given, is called with the argparse parser to add a test's own; a test
    that runs another DPDK application passes testpmd=False."""
    global _failed
    ap = argparse.ArgumentParser()
    ap.add_argument("--pmd", help="librte_net_vsteer.so to load with -d")
    ap.add_argument("--testpmd", default=os.environ.get("VSTEER_TESTPMD",
                                                         "dpdk-testpmd"))
    ap.add_argument("--model", help="devtools/mlx5-model: run in the "
                    "model mode")
    ap.add_argument("--model-lib", help="the model library "
                    "(libmlx5model.so)")
    if options is not None:
        options(ap)
    args = ap.parse_args()
    try:
        require_root()
        enter_model_mode(args)
        require_tools(*((args.testpmd,) if testpmd else ()), *tools)
        require_pmd(args.pmd)
        main(args)
    except Skip as exc:
        print("SKIP: %s" % exc, flush=True)
        sys.exit(SKIP)
    except HardError as exc:
        _failed = True
        traceback.print_exc(file=sys.stdout)
        print("ERROR: %s" % exc, flush=True)
        sys.exit(HARD_ERROR)
    except (AssertionError, RuntimeError, OSError,
            subprocess.TimeoutExpired) as exc:
        _failed = True
        traceback.print_exc(file=sys.stdout)
        print("FAIL: %s" % exc, flush=True)
        sys.exit(1)
    sys.exit(outcome())
