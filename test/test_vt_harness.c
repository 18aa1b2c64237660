/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The test harness itself (vt_test.h): what a program's exit status says
 * when its cases pass, fail or skip. A program of which one case skipped
 * did not run all it has: meson must show it as skipped (77), not as a
 * pass.
 */

#include <stdio.h>

#include "vt_test.h"

static int
h_pass(void)
{
	return VT_OK;
}

static int
h_fail(void)
{
	VT_CHECK(1 + 1 == 3, "a case that fails (expected here)");
	return VT_OK;
}

static int
h_skip(void)
{
	VT_SKIP_IF(1, "a case that skips (expected here)");
	return VT_OK;
}

static const struct vt_case pass_only[] = { VT_CASE(h_pass), { 0 } };
static const struct vt_case pass_skip[] = { VT_CASE(h_pass),
					    VT_CASE(h_skip),
					    { 0 } };
static const struct vt_case skip_only[] = { VT_CASE(h_skip), { 0 } };
static const struct vt_case all_three[] = {
	VT_CASE(h_pass), VT_CASE(h_skip), VT_CASE(h_fail), { 0 }
};

/* Run a program of cases (no filter) and return its exit status. */
static int
run(const struct vt_case *cases)
{
	char name[] = "inner";
	char *argv[] = { name, NULL };

	printf("  (inner program)\n");
	return vt_main(1, argv, cases);
}

static int
test_exit_status(void)
{
	VT_CHECK_EQ(run(pass_only), 0, "every case passed");
	VT_CHECK_EQ(run(pass_skip), VT_SKIP, "a case skipped: skipped");
	VT_CHECK_EQ(run(skip_only), VT_SKIP, "every case skipped");
	VT_CHECK_EQ(run(all_three), 1, "a failure wins");
	return VT_OK;
}

/* Filters select cases: those left out are not skips. */
static int
test_filter_is_no_skip(void)
{
	char name[] = "inner", pass[] = "h_pass";
	char *argv[] = { name, pass, NULL };

	VT_CHECK_EQ(vt_main(2, argv, pass_skip), 0, "only h_pass ran");
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_exit_status),
	VT_CASE(test_filter_is_no_skip),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
