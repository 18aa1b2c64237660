/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#include "mm_internal.h"

static const struct mm_method mm_devx_m[1];
const struct mm_method_table mm_devx_methods = { mm_devx_m, 0 };
