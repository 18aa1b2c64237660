#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The Debian package as a user installs it: devtools/build-deb.sh builds
it, `apt-get install ./<package>.deb` installs it, and then, with no -d
anywhere, DPDK finds the driver in its plugin directory:

- scenario testpmd: dpdk-pmdinfo.py lists net_vsteer among the plugins of
  dpdk-testpmd; testpmd probes two ports on an in-memory link and
  forwards between them; a build loaded with -d next to the installed
  driver is the one that probes (the installed copy says it stays
  unused); after `apt-get remove` testpmd finds no such driver again;
- scenario ovs: Open vSwitch (ovs-vswitchd-dpdk) with no -d in its
  dpdk-extra takes a port of the driver on a veth and brings it up.

The machine is left as it was, also when the test fails or is killed by
meson's timeout: the package is purged in the clean-up, and the test
checks that the installed packages and the plugin directory are the same
before and after. A machine where the package (or a driver of that name
in the plugin directory) is installed already is not touched: the test
skips, saying so."""

import glob
import json
import os
import re
import shutil

import vsteer_e2e as e2e

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PMDINFO = "/usr/bin/dpdk-pmdinfo.py"


def dpkg_status(pkg):
    """The package's dpkg status ("install ok installed", ...), or ""."""
    res = e2e.sh("dpkg-query", "-W", "-f=${Status}", pkg, check=False)
    return res.stdout.strip() if res.returncode == 0 else ""


def installed_packages():
    """Every package dpkg knows, with version and status."""
    return e2e.sh("dpkg-query", "-W",
                  "-f=${Package}:${Architecture} ${Version} ${Status}\n",
                  timeout=60).stdout.splitlines()


def deb_fields(deb):
    out = e2e.sh("dpkg-deb", "-f", deb, "Package", "Version").stdout
    return dict(line.split(": ", 1) for line in out.splitlines())


def deb_files(deb):
    """The paths the package installs, as dpkg-deb lists them."""
    out = e2e.sh("dpkg-deb", "-c", deb).stdout
    return [re.sub(r" -> .*$", "", line.split(None, 5)[5])[1:]
            for line in out.splitlines() if not line.endswith("/")]


def build_package(workdir):
    outdir = e2e.private_dir()
    res = e2e.sh(os.path.join(ROOT, "devtools", "build-deb.sh"),
                 "-b", os.path.join(workdir, "pkg-build"), "-o", outdir,
                 timeout=900, check=False)
    print(res.stdout)
    e2e.check(res.returncode == 0, "devtools/build-deb.sh failed (%d)",
              res.returncode)
    deb = res.stdout.strip().splitlines()[-1]
    e2e.check(deb.endswith(".deb") and os.path.isfile(deb),
              "build-deb.sh printed no package path: %r", deb)
    return deb


class Installed:
    """The package installed with apt-get for the duration of a with
    block, purged at exit whatever happens."""

    def __init__(self, deb, pkg):
        self.deb = deb
        self.pkg = pkg

    def __enter__(self):
        # Registered before the install: an install interrupted half way
        # is purged as well.
        e2e.at_cleanup(self.purge)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        # Every dependency is there wherever the driver builds: apt must
        # install the package alone, nothing may come or go with it (asked
        # first with -s, which changes nothing).
        res = e2e.sh("apt-get", "install", "-s", "--no-install-recommends",
                     self.deb, timeout=120, check=False, env=env)
        acts = re.findall(r"^(Inst|Remv|Purg|Conf) (\S+)", res.stdout, re.M)
        e2e.check(res.returncode == 0 and
                  {a for a in acts if a[0] != "Conf"} == {("Inst", self.pkg)},
                  "apt-get install %s would do more than install %s "
                  "(exit %d):\n%s", self.deb, self.pkg, res.returncode,
                  res.stdout)
        res = e2e.sh("apt-get", "install", "-y", "--no-install-recommends",
                     "-o", "DPkg::Lock::Timeout=120", self.deb,
                     timeout=300, check=False, env=env)
        print(res.stdout)
        e2e.check(res.returncode == 0, "apt-get install %s failed (%d)",
                  self.deb, res.returncode)
        e2e.check_eq(dpkg_status(self.pkg), "install ok installed",
                     "status of %s after apt-get install" % self.pkg)
        return self

    def __exit__(self, *exc):
        return False

    def remove(self):
        """apt-get remove, as the README says to uninstall."""
        res = e2e.sh("apt-get", "remove", "-y",
                     "-o", "DPkg::Lock::Timeout=120", self.pkg, timeout=300,
                     check=False,
                     env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        print(res.stdout)
        e2e.check(res.returncode == 0, "apt-get remove %s failed (%d)",
                  self.pkg, res.returncode)

    def purge(self):
        if dpkg_status(self.pkg) not in ("", "unknown ok not-installed"):
            e2e.log("clean-up: purging %s" % self.pkg)
            e2e.sh("dpkg", "--purge", self.pkg, timeout=120, check=False)


def check_pmdinfo(testpmd):
    """dpdk-pmdinfo.py, which reads the drivers of a DPDK application and
    of its plugin directory, finds ours with its devargs."""
    if not os.path.isfile(PMDINFO):
        raise AssertionError("%s missing (package dpdk-dev)" % PMDINFO)
    out = e2e.sh(e2e.PYTHON, PMDINFO, "-p", testpmd, timeout=120).stdout
    drivers = {d["name"]: d for d in json.loads(out)}
    e2e.check("net_vsteer" in drivers,
              "dpdk-pmdinfo.py -p %s does not list net_vsteer: %s",
              testpmd, sorted(n for n in drivers if n.startswith("net_")))
    e2e.check("dev=<" in drivers["net_vsteer"].get("params", ""),
              "net_vsteer's devargs missing: %r", drivers["net_vsteer"])
    e2e.log("dpdk-pmdinfo.py: %s" % json.dumps(drivers["net_vsteer"]))


def mem_vdevs(tag):
    """Two ports wired to each other: the two ends of in-memory link tag."""
    link = "pkg" + tag
    return ["net_vsteer0,dev=mem:" + link, "net_vsteer1,dev=mem:" + link]


def check_testpmd_finds(testpmd):
    """Two ports on the two ends of an in-memory link, no -d: probed by
    the installed driver, forwarding to each other."""
    vdevs = mem_vdevs("%04x" % (os.getpid() & 0xffff))
    with e2e.Testpmd(None, vdevs[0], eal=("--vdev", vdevs[1]), nb_ports=2,
                     testpmd=testpmd) as tp:
        e2e.check("-d" not in tp.argv, "testpmd ran with -d: %s", tp.argv)
        for port in (0, 1):
            info = tp.cmd("show port info %d" % port)
            e2e.check(re.search(r"Driver name: +net_vsteer", info),
                      "port %d is not a net_vsteer port:\n%s", port, info)
        tp.cmd("start tx_first")
        tp.wait_rx(64, port=1)
        tp.cmd("stop")
        for port in (0, 1):
            st = tp.port_stats(port)
            e2e.check(st["rx_packets"] > 0 and st["tx_packets"] > 0,
                      "port %d forwarded nothing: %s", port, st)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")
    e2e.log("testpmd found net_vsteer with no -d and forwarded")


def check_d_wins(testpmd, pmd, installed_so):
    """With the package installed, a build given with -d is the driver
    that probes; the installed one says so and stays out of the way."""
    pmd = e2e.loadable_pmd(pmd)
    vdevs = mem_vdevs("d%04x" % (os.getpid() & 0xffff))
    with e2e.Testpmd(pmd, vdevs[0], testpmd=testpmd) as tp:
        line = re.search(r"net_vsteer: using the driver of (\S+); the copy "
                         r"in (\S+) is not used", tp.transcript)
        e2e.check(line is not None, "no line saying which copy of the "
                  "driver is used:\n%s", tp.transcript[-4000:])
        e2e.check_eq(os.path.realpath(line.group(1)), os.path.realpath(pmd),
                     "the copy that probes")
        e2e.check_eq(os.path.realpath(line.group(2)),
                     os.path.realpath(installed_so), "the copy left unused")
        info = tp.cmd("show port info 0")
        e2e.check(re.search(r"Driver name: +net_vsteer", info),
                  "no net_vsteer port:\n%s", info)
        e2e.check_eq(tp.quit(), 0, "testpmd exit status")
    e2e.log("-d %s probes, the installed %s stays unused"
            % (pmd, installed_so))


def check_testpmd_misses(testpmd):
    """After the package went: no such driver, so no port, and testpmd
    asked for one exits with an error."""
    prefix = e2e.unique_prefix("pkg")
    argv = [testpmd, "--no-huge", "-m", "256", "--no-pci",
            "--lcores", e2e.lcores_arg(), "--file-prefix", prefix,
            "--vdev", mem_vdevs("gone")[0],
            "--", "-i", "--nb-ports=1", "--total-num-mbufs=2048"]
    rc, out = e2e.run_testpmd_once(argv, timeout=60)
    e2e.remove_runtime_dir(prefix)
    e2e.check(rc == 1 and "net_vsteer" not in
              " ".join(ln for ln in out.splitlines() if "Driver" in ln),
              "testpmd still found a net_vsteer port after the removal "
              "(exit %r):\n%s", rc, out[-3000:])
    e2e.log("after apt-get remove: no net_vsteer port (testpmd exit %d)" % rc)


def check_ovs_finds():
    """ovs-vswitchd-dpdk, its dpdk-extra without -d, takes a port of the
    driver on a veth and reports it up, driven by net_vsteer."""
    import ovs_e2e

    ovs_e2e.require_ovs(ovs_e2e.VSWITCHD_DPDK)
    with ovs_e2e.Topology(1) as topo, \
            ovs_e2e.Ovs(None, topo.ovs_ns, hw_offload=False) as ovs:
        extra = ovs.other_config["dpdk-extra"].split()
        e2e.check("-d" not in extra, "dpdk-extra has -d: %s", extra)
        ovs.add_bridge("br0")
        vdev = "net_vsteer0,dev=soft:" + topo.host[0]
        ofport = ovs.add_dpdk_port("br0", "p0", vdev)
        status = ovs.rows("Interface", "p0", "status")["status"]
        e2e.check_eq(status.get("driver_name"), "net_vsteer",
                     "OVS's driver of p0")
        e2e.log("OVS port p0 (%s): ofport %d, link up, driver %s"
                % (vdev, ofport, status["driver_name"]))


def main(args):
    for tool in ("apt-get", "dpkg", "dpkg-deb", "dpkg-query"):
        e2e.require_tools(tool)
    testpmd = shutil.which(args.testpmd) or args.testpmd
    deb = build_package(args.workdir)
    fields = deb_fields(deb)
    pkg = fields["Package"]
    files = deb_files(deb)
    so = [f for f in files if re.search(r"/librte_net_vsteer\.so\.\d+\.\d+$",
                                        f)]
    e2e.check(len(so) == 1, "no driver object in the package: %s", files)
    plugin_dir = os.path.dirname(so[0])
    e2e.log("%s %s: %s" % (pkg, fields["Version"], " ".join(files)))

    if dpkg_status(pkg) not in ("", "unknown ok not-installed"):
        raise e2e.Skip("%s is installed on this machine (%s): the test "
                       "installs and removes its own, so it leaves this "
                       "machine alone" % (pkg, dpkg_status(pkg)))
    there = glob.glob(os.path.join(plugin_dir, "librte_net_vsteer*"))
    if there:
        raise e2e.Skip("%s holds %s (meson install?): the test leaves this "
                       "machine alone" % (plugin_dir, " ".join(there)))
    before = installed_packages()
    plugins_before = sorted(os.listdir(plugin_dir))

    with Installed(deb, pkg) as inst:
        after = installed_packages()
        added = sorted(set(after) - set(before))
        e2e.check(len(added) == 1 and added[0].startswith(pkg + ":") and
                  not set(before) - set(after),
                  "apt-get install changed other packages: +%s -%s",
                  added, sorted(set(before) - set(after)))
        for f in files:
            e2e.check(os.path.lexists(f), "%s not installed", f)
        e2e.log("installed %s: %s" % (pkg, so[0]))
        if args.scenario == "testpmd":
            check_pmdinfo(testpmd)
            check_testpmd_finds(testpmd)
            check_d_wins(testpmd, args.pmd, so[0])
        else:
            check_ovs_finds()
        inst.remove()
    # Uninstalled: as before, to the package and to the file.
    e2e.check_eq(dpkg_status(pkg) in ("", "unknown ok not-installed",
                                      "deinstall ok config-files"), True,
                 "%s still installed (%s)" % (pkg, dpkg_status(pkg)))
    e2e.check_eq(sorted(os.listdir(plugin_dir)), plugins_before,
                 "the plugin directory after apt-get remove")
    e2e.sh("dpkg", "--purge", pkg, timeout=120)
    e2e.check_eq(installed_packages(), before,
                 "the installed packages after removing %s" % pkg)
    if args.scenario == "testpmd":
        check_testpmd_misses(testpmd)
    e2e.log("removed %s: the machine is as it was" % pkg)


def options(ap):
    ap.add_argument("--workdir", required=True,
                    help="where the package's build directory is kept")
    ap.add_argument("--scenario", choices=("testpmd", "ovs"),
                    default="testpmd")


if __name__ == "__main__":
    e2e.run(main, tools=("ip",), options=options)
