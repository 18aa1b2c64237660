#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The vsteer authors
#
# Style check of the tree. Hard rules (exit 1 on any violation):
#   C/H files under drivers/ lib/ app/ test/:
#     - the SPDX header: line 1 "/* SPDX-License-Identifier: BSD-3-Clause",
#       line 2 " * Copyright(c) ..."
#     - tabs for indentation: no run of 8 spaces in the indentation, no
#       space before a tab; fewer than 8 spaces may align a continuation
#       line (as checkpatch allows), " *" continues a block comment
#     - lines of at most 100 columns (tabs counted as 8), unless the line
#       holds a string literal: messages are not split, so that they can
#       be found with grep (DPDK's checkpatches.sh ignores LONG_LINE_STRING)
#   every project text file (sources, scripts, meson, docs):
#     - no trailing whitespace
#     - no machine-specific paths (home, root or work directories)
#   shell scripts: shellcheck clean (when shellcheck is installed)
#   Python files: compile
#   C files: clang-format (with the tree's .clang-format) changes nothing;
#     devtools/setup.sh installs clang-format, and a machine without it
#     fails the check. Fix with: clang-format -i <file>
#
# usage: devtools/check-style.sh [file...]
set -eu

cd "$(dirname "$0")/.."


# Project files: tracked and untracked but not ignored; or the arguments.
if [ $# -gt 0 ]; then
	files=$(printf '%s\n' "$@")
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files -co --exclude-standard)
else
	files=$(find . -path ./.git -prune -o -path './build*' -prune -o \
		-type f -print | sed 's,^\./,,')
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT

c_files=$(printf '%s\n' "$files" | grep -E '^(drivers|lib|app|test)/.*\.[ch]$' || true)
text_files=$(printf '%s\n' "$files" |
	grep -E '(\.([ch]|sh|py|build|txt|rst|md|ini|yml|yaml|map)|meson_options\.txt|/run|devtools/mlx5-model|\.clang-format|\.gitignore)$' ||
	true)
sh_files=$(printf '%s\n' "$files" | grep -E '(\.sh|^\.ci/run|^devtools/mlx5-model)$' || true)
py_files=$(printf '%s\n' "$files" | grep -E '\.py$' || true)

exists() {
	for f in "$@"; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
	return 0
}

# shellcheck disable=SC2086 # word splitting of the file lists is wanted
c_files=$(exists $c_files)
# shellcheck disable=SC2086
text_files=$(exists $text_files)
# shellcheck disable=SC2086
sh_files=$(exists $sh_files)
# shellcheck disable=SC2086
py_files=$(exists $py_files)

if [ -n "$c_files" ]; then
	# shellcheck disable=SC2086
	awk '
	FNR == 1 && $0 != "/* SPDX-License-Identifier: BSD-3-Clause" {
		print FILENAME ":1: first line is not the SPDX header"
	}
	FNR == 2 && $0 !~ /^ \* Copyright\(c\) / {
		print FILENAME ":2: second line is not \" * Copyright(c) ...\""
	}
	/^[\t ]*        / {
		print FILENAME ":" FNR ": indentation with 8 spaces, not a tab"
	}
	/^\t* +\t/ {
		print FILENAME ":" FNR ": space before tab in indentation"
	}
	{
		col = 0
		n = length($0)
		for (i = 1; i <= n; i++) {
			if (substr($0, i, 1) == "\t")
				col = col + 8 - col % 8
			else
				col++
		}
		if (col > 100 && $0 !~ /"/)
			print FILENAME ":" FNR ": " col " columns (max 100)"
	}' $c_files >>"$out"
fi

if [ -n "$text_files" ]; then
	# shellcheck disable=SC2086
	grep -nE '[[:space:]]+$' $text_files /dev/null |
		sed 's/^\([^:]*:[0-9]*\):.*/\1: trailing whitespace/' >>"$out" || true
	# The pattern is split so that this file does not match itself.
	home='/ho''me/'
	work='/wo''rk/'
	root='/ro''ot/'
	users='/Us''ers/'
	# shellcheck disable=SC2086
	grep -nE "($home|$work|$root|$users)" $text_files /dev/null |
		sed 's/^\([^:]*:[0-9]*\):.*/\1: machine-specific path/' >>"$out" || true
fi

if [ -n "$sh_files" ]; then
	if command -v shellcheck >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		shellcheck -f gcc $sh_files >>"$out" || true
	else
		echo "check-style: shellcheck not installed, shell scripts not checked"
	fi
fi

if [ -n "$py_files" ]; then
	for f in $py_files; do
		/usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' \
			"$f" >/dev/null 2>&1 || echo "$f:1: Python syntax error" >>"$out"
	done
fi

violations=$(grep -c . "$out" || true)
if [ "$violations" -gt 0 ]; then
	cat "$out"
fi

# clang-format: the tree is kept clean.
fmt_lines=0
fmt_files=0
if [ -n "$c_files" ]; then
	if ! command -v clang-format >/dev/null 2>&1; then
		echo "check-style: clang-format not found (devtools/setup.sh installs it)"
		violations=$((violations + 1))
	else
		for f in $c_files; do
			n=$(clang-format --dry-run "$f" 2>&1 | grep -c 'warning:' || true)
			if [ "$n" -gt 0 ]; then
				fmt_lines=$((fmt_lines + n))
				fmt_files=$((fmt_files + 1))
				echo "$f: clang-format would change $n place(s)"
			fi
		done
		echo "check-style: clang-format: $fmt_lines place(s) in $fmt_files file(s) differ from .clang-format"
		[ "$fmt_files" -eq 0 ] || violations=$((violations + fmt_files))
	fi
fi

nfiles=$(printf '%s\n' "$text_files" | grep -c . || true)
echo "check-style: $violations violation(s) of the hard rules in $nfiles files"
if [ "$violations" -gt 0 ]; then
	exit 1
fi
exit 0
