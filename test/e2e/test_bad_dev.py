#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""A device that does not exist: testpmd exits non-zero (no port, and
--nb-ports=1 asks for one) and the PMD says, on one line, which device it
could not find."""

import vsteer_e2e as e2e

CASES = [
    # (dev= value, what the error line must name)
    ("nosuch", "nosuch"),
    ("soft:vsnosuch0", "vsnosuch0"),
]


def main(args):
    pmd = e2e.loadable_pmd(args.pmd)
    for dev, name in CASES:
        prefix = e2e.unique_prefix("bad")
        argv = [args.testpmd, "--no-huge", "-m", "256", "--no-pci",
                "--lcores", e2e.lcores_arg(), "--file-prefix", prefix,
                "-d", pmd,
                "--vdev", "net_vsteer0,dev=" + dev,
                "--", "-i", "--nb-ports=1", "--total-num-mbufs=2048"]
        rc, out = e2e.run_testpmd_once(argv, timeout=60)
        e2e.remove_runtime_dir(prefix)
        print(out)
        e2e.check(rc is not None, "testpmd hung with dev=%s", dev)
        # 1 is EXIT_FAILURE from rte_exit; a signal (crash) is negative.
        e2e.check_eq(rc, 1, "exit status with dev=%s" % dev)
        lines = [line for line in out.splitlines()
                 if name in line and "vsteer" in line
                 and not line.startswith(("EAL: ", "  Cause"))]
        e2e.check(len(lines) == 1, "want one PMD line naming %r, got %d:\n%s",
                  name, len(lines), out)
        e2e.log("dev=%s: %s" % (dev, lines[0].strip()))


if __name__ == "__main__":
    e2e.run(main, tools=())
