/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VT_TEST_H
#define VT_TEST_H

/*
 * Minimal unit-test harness: each test program is a list of cases; a case
 * fails on its first failed check and the program exits non-zero if any
 * case failed, else 77 (meson's "skipped") if any case skipped: a program
 * that ran only part of its cases is not reported as a pass.
 *
 *   static int test_foo(void) { VT_CHECK(1 + 1 == 2, "math"); return VT_OK; }
 *   static const struct vt_case cases[] = { VT_CASE(test_foo), { 0 } };
 *   int main(int argc, char **argv) { return vt_main(argc, argv, cases); }
 */

#include <stdio.h>
#include <string.h>

#define VT_OK 0
#define VT_FAIL 1
#define VT_SKIP 77

#define VT_CHECK(cond, ...)                                              \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr,                                  \
				"  %s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                        \
			fprintf(stderr, __VA_ARGS__);                    \
			fprintf(stderr, "\n");                           \
			return VT_FAIL;                                  \
		}                                                        \
	} while (0)

#define VT_CHECK_EQ(a, b, ...)                                              \
	do {                                                                \
		long long va_ = (long long)(a), vb_ = (long long)(b);       \
		if (va_ != vb_) {                                           \
			fprintf(stderr,                                     \
				"  %s:%d: %s == %s failed: %lld != %lld: ", \
				__FILE__, __LINE__, #a, #b, va_, vb_);      \
			fprintf(stderr, __VA_ARGS__);                       \
			fprintf(stderr, "\n");                              \
			return VT_FAIL;                                     \
		}                                                           \
	} while (0)

#define VT_SKIP_IF(cond, why)                                    \
	do {                                                     \
		if (cond) {                                      \
			fprintf(stderr, "  skipped: %s\n", why); \
			return VT_SKIP;                          \
		}                                                \
	} while (0)

struct vt_case {
	const char *name;
	int (*fn)(void);
};

#define VT_CASE(f)    \
	{             \
#f, f \
	}

/* Is the case named by one of the filters argv[1..argc-1]? */
static inline int
vt_selected(const char *name, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strstr(name, argv[i]) != NULL)
			return 1;
	return argc <= 1;
}

/* Run every case, or only those whose name contains one of argv[1..]. */
static inline int
vt_main(int argc, char **argv, const struct vt_case *cases)
{
	unsigned int pass = 0, fail = 0, skip = 0;
	const struct vt_case *c;

	for (c = cases; c->name != NULL; c++) {
		int rc;

		if (!vt_selected(c->name, argc, argv))
			continue;
		rc = c->fn();
		if (rc == VT_OK) {
			pass++;
			printf("ok - %s\n", c->name);
		} else if (rc == VT_SKIP) {
			skip++;
			printf("ok - %s # SKIP\n", c->name);
		} else {
			fail++;
			printf("not ok - %s\n", c->name);
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed, %u skipped\n", pass, fail, skip);
	if (fail)
		return 1;
	if (skip > 0) {
		printf("skipped: %u of %u cases did not run\n", skip,
		       pass + skip);
		return VT_SKIP;
	}
	return 0;
}

#endif /* VT_TEST_H */
