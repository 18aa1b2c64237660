#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
"""The end-to-end runner's exit status: a test with a part that did not
run ends skipped (77), not passed; meson shows it as such."""

import subprocess
import sys

import vsteer_e2e as e2e

# A test as run() ends it, in a process of its own (run() exits).
CHILD = """
import sys
sys.path.insert(0, %r)
import vsteer_e2e as e2e
for why in sys.argv[1:]:
    e2e.skip_part(why)
sys.exit(e2e.outcome())
"""


def status(*parts):
    res = subprocess.run([e2e.PYTHON, "-B", "-c", CHILD % e2e.HERE]
                         + list(parts), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=30)
    return res.returncode, res.stdout


def main():
    failures = 0
    for parts, want, text in (((), 0, "PASS"),
                              (("no UDP hashing",), e2e.SKIP,
                               "SKIP: 1 part(s) did not run: no UDP hashing"),
                              (("a", "b"), e2e.SKIP, "2 part(s)")):
        rc, out = status(*parts)
        if rc != want or text not in out:
            print("parts %r: exit %d, want %d; output:\n%s"
                  % (parts, rc, want, out))
            failures += 1
    print("%s" % ("FAIL" if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
