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
# Two more builds follow, each counted in the summary: the tree built
# with clang (-Werror, so "clang builds too" is checked, not assumed), and
# a gcc build with AddressSanitizer and UndefinedBehaviorSanitizer running
# the unit and ethdev suites. VSTEER_QUICK=1 skips both.
#
# usage: devtools/test.sh [meson test arguments, e.g. --suite unit]
# The build directory is $VSTEER_BUILD_DIR, default "build" (the extra
# builds go to <build>-clang and <build>-asan).
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

configure() { # dir [meson options]
	dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		# A build directory from an older meson may refuse to
		# reconfigure.
		meson setup --reconfigure "$dir" -Ddpdk_sdk_dir=build-sdk "$@" ||
			meson setup --wipe "$dir" -Ddpdk_sdk_dir=build-sdk "$@"
	else
		meson setup "$dir" -Ddpdk_sdk_dir=build-sdk "$@"
	fi
}

configured=0
configure "$BUILD" || configured=1
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

# Extra builds: each result is one more test; the sanitizer build's test
# results are counted like the main ones.
extra_pass=0
extra_fail=0
asan_log=
if [ "${VSTEER_QUICK:-0}" != 1 ]; then
	if (CC=clang && export CC && configure "$BUILD-clang" >/dev/null) &&
		ninja -C "$BUILD-clang" >"$BUILD-clang.log" 2>&1; then
		echo "test: clang build: OK"
		extra_pass=$((extra_pass + 1))
	else
		tail -n 30 "$BUILD-clang.log" 2>/dev/null || true
		echo "test: clang build: FAIL"
		extra_fail=$((extra_fail + 1))
	fi
	asan_log="$BUILD-asan/meson-logs/testlog.json"
	rm -f "$asan_log"
	if configure "$BUILD-asan" -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null &&
		ninja -C "$BUILD-asan" >"$BUILD-asan.log" 2>&1; then
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
			meson test -C "$BUILD-asan" --print-errorlogs \
			--suite unit --suite ethdev || test_rc=$?
	else
		tail -n 30 "$BUILD-asan.log" 2>/dev/null || true
		echo "test: sanitizer build: FAIL"
		extra_fail=$((extra_fail + 1))
	fi
fi

counts=
if [ -f "$log" ]; then
	# shellcheck disable=SC2086 # asan_log is empty or one path
	counts=$("$PY" - "$log" $asan_log <<'PYEOF' || true
import json
import os
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    with open(path) as f:
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
passed=$((passed + extra_pass))
failed=$((failed + extra_fail))
# meson test failing for a reason no test records is a failure too.
if [ "$test_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
fi
summary "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ]
