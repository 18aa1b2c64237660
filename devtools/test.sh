#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Set up, build and run every test: the meson suites (unit, ethdev, e2e;
# e2e needs root or passwordless sudo for veth pairs and network
# namespaces, and skips without), then the style check. Ends with one line
# "N passed, N failed, N skipped" (the style check counts as one test) and
# exits non-zero if anything failed.
#
# usage: devtools/test.sh [meson test arguments, e.g. --suite unit]
# The build directory is $VSTEER_BUILD_DIR, default "build".
set -eu

cd "$(dirname "$0")/.."
BUILD=${VSTEER_BUILD_DIR:-build}
PY=/usr/bin/python3

summary() { # passed failed skipped
	echo "$1 passed, $2 failed, $3 skipped"
}

if ! devtools/setup.sh; then
	echo "test: devtools/setup.sh failed"
	summary 0 1 0
	exit 1
fi

configured=0
if [ -f "$BUILD/build.ninja" ]; then
	# A build directory from an older meson may refuse to reconfigure.
	meson setup --reconfigure "$BUILD" -Ddpdk_sdk_dir=build-sdk ||
		meson setup --wipe "$BUILD" -Ddpdk_sdk_dir=build-sdk ||
		configured=1
else
	meson setup "$BUILD" -Ddpdk_sdk_dir=build-sdk || configured=1
fi
if [ "$configured" -ne 0 ]; then
	echo "test: meson setup failed"
	summary 0 1 0
	exit 1
fi

if ! ninja -C "$BUILD"; then
	echo "test: build failed, no test run"
	if devtools/check-style.sh; then
		summary 1 1 0
	else
		summary 0 2 0
	fi
	exit 1
fi

log="$BUILD/meson-logs/testlog.json"
rm -f "$log"
test_rc=0
meson test -C "$BUILD" --print-errorlogs "$@" || test_rc=$?

style_rc=0
devtools/check-style.sh || style_rc=$?

counts=
if [ -f "$log" ]; then
	counts=$("$PY" - "$log" <<'PYEOF' || true
import json
import sys

passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        line = line.strip()
        if not line:
            continue
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:  # FAIL, TIMEOUT, UNEXPECTEDPASS, ERROR, ...
            failed += 1
print(passed, failed, skipped)
PYEOF
)
fi
case "$counts" in
[0-9]*" "[0-9]*" "[0-9]*) ;;
*)
	echo "test: no test results in $log (meson test exit status $test_rc)"
	counts="0 1 0"
	;;
esac
# shellcheck disable=SC2086 # three numbers
set -- $counts
passed=$1
failed=$2
skipped=$3
if [ "$style_rc" -eq 0 ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
# meson test failing for a reason no test records is a failure too.
if [ "$test_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
fi
summary "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ]
