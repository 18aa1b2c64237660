/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#include "mm_internal.h"

int
mm_engine_start(struct mm_dev *dev)
{
	(void)dev;
	return 0;
}
