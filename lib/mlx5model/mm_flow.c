/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#include "mm_internal.h"

static const struct mm_method mm_flow_m[1];
const struct mm_method_table mm_flow_methods = { mm_flow_m, 0 };
static const struct mm_write_method mm_flow_w[1];
const struct mm_write_table mm_flow_writes = { mm_flow_w, 0 };
