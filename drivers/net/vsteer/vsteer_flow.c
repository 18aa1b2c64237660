/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow operations.
 *
 * PLACEHOLDER FOR THE FLOW OPS: this file only holds what the ethdev code
 * links against until the rte_flow ops are written here. The flow ops
 * replace all of it: vsteer_flow_ops (an empty table, so every rte_flow
 * call fails with ENOSYS) and the start/stop/close hooks documented in
 * vsteer.h (no flows exist, so they have nothing to do).
 */

#include <rte_flow_driver.h>

#include "vsteer.h"

const struct rte_flow_ops vsteer_flow_ops = {
	.validate = NULL,
};

int
vsteer_flow_start(struct rte_eth_dev *dev)
{
	RTE_SET_USED(dev);
	return 0;
}

void
vsteer_flow_stop(struct rte_eth_dev *dev)
{
	RTE_SET_USED(dev);
}

void
vsteer_flow_close(struct rte_eth_dev *dev)
{
	RTE_SET_USED(dev);
}
