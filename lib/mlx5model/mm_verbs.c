/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#include "mm_internal.h"

static const struct mm_method mm_verbs_m[1];
const struct mm_method_table mm_verbs_methods = { mm_verbs_m, 0 };
static const struct mm_write_method mm_verbs_w[1];
const struct mm_write_table mm_verbs_writes = { mm_verbs_w, 0 };
