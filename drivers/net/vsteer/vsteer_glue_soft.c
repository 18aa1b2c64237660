/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The glue table over lib/softverbs: the same entries as the rdma-core
 * table, answered by the software device.
 */

#include <errno.h>
#include <string.h>

#include "softverbs.h"
#include "vsteer.h"

static int
vsteer_soft_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr)
{
	struct verbs_context *vctx;
	int ret;

	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	/* The device's own extended query, as the inline verb would call. */
	vctx = verbs_get_ctx_op(context, query_device_ex);
	if (vctx != NULL) {
		ret = vctx->query_device_ex(context, input, attr,
					    sizeof(*attr));
		if (ret != EOPNOTSUPP && ret != ENOSYS)
			return ret;
	}
	/* The legacy fallback must not reach libibverbs: the context is
	 * not one of its providers'. */
	memset(attr, 0, sizeof(*attr));
	return sv_query_device(context, &attr->orig_attr);
}

static int
vsteer_soft_port_mac(struct ibv_context *context, uint8_t port, uint8_t mac[6])
{
	return softverbs_port_mac(context, port, mac);
}

static int
vsteer_soft_port_mtu(struct ibv_context *context, uint8_t port,
		     unsigned int *mtu, unsigned int *max_mtu)
{
	return softverbs_port_mtu(context, port, mtu, max_mtu);
}

static int
vsteer_soft_port_set_mtu(struct ibv_context *context, uint8_t port,
			 unsigned int mtu)
{
	return softverbs_port_set_mtu(context, port, mtu);
}

static int
vsteer_soft_port_link(struct ibv_context *context, uint8_t port,
		      struct vsteer_glue_link *link)
{
	struct sv_port_link l;
	int ret;

	ret = softverbs_port_link(context, port, &l);
	if (ret != 0)
		return ret;
	link->speed_mbps = l.speed_mbps;
	link->full_duplex = l.full_duplex;
	link->autoneg = l.autoneg;
	return 0;
}

static int
vsteer_soft_port_counters(struct ibv_context *ctx, uint8_t port,
			  struct vsteer_port_counters *c)
{
	struct sv_port_stats st;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = softverbs_port_stats(ctx, port, &st);
	if (ret != 0)
		return -ret;
	c->rx_frames = st.rx_frames;
	c->rx_no_buffer = st.rx_no_buffer;
	c->rx_unsteered = st.rx_unsteered;
	/* Only the flow ops' sink WQ is never made ready. */
	c->rx_sink = st.rx_not_ready;
	c->rx_dropped = st.rx_dropped;
	c->tx_frames = st.tx_frames;
	c->tx_errors = st.tx_errors;
	c->rx_csum_completed = st.rx_csum_completed;
	c->rx_gso_split = st.rx_gso_frames;
	return 0;
}

/* The inline verb reaches softverbs through the context's ops. */
static int
vsteer_soft_destroy_flow_action(struct ibv_flow_action *action)
{
	return ibv_destroy_flow_action(action);
}

const struct vsteer_glue vsteer_glue_soft = {
	.name = "softverbs",
	.get_device_list = sv_get_device_list,
	.free_device_list = sv_free_device_list,
	.get_device_name = sv_get_device_name,
	.open_device = sv_open_device,
	.close_device = sv_close_device,
	.query_device = sv_query_device,
	.query_device_ex = vsteer_soft_query_device_ex,
	.query_port = sv_query_port,
	.alloc_pd = sv_alloc_pd,
	.dealloc_pd = sv_dealloc_pd,
	.reg_mr = sv_reg_mr,
	.dereg_mr = sv_dereg_mr,
	.destroy_cq = sv_destroy_cq,
	.modify_qp = sv_modify_qp,
	.destroy_qp = sv_destroy_qp,
	.port_mac = vsteer_soft_port_mac,
	.port_counters = vsteer_soft_port_counters,
	.port_mtu = vsteer_soft_port_mtu,
	.port_set_mtu = vsteer_soft_port_set_mtu,
	.port_link = vsteer_soft_port_link,
	.dv_is_supported = sv_mlx5dv_is_supported,
	.dv_open_device = sv_mlx5dv_open_device,
	.dv_query_device = sv_mlx5dv_query_device,
	.dv_create_qp = sv_mlx5dv_create_qp,
	.dv_create_flow_matcher = sv_mlx5dv_create_flow_matcher,
	.dv_destroy_flow_matcher = sv_mlx5dv_destroy_flow_matcher,
	.dv_create_flow = sv_mlx5dv_create_flow,
	.dv_create_flow_action_modify_header =
		sv_mlx5dv_create_flow_action_modify_header,
	.dv_create_flow_action_packet_reformat =
		sv_mlx5dv_create_flow_action_packet_reformat,
	.destroy_flow_action = vsteer_soft_destroy_flow_action,
	.devx_obj_create = sv_mlx5dv_devx_obj_create,
	.devx_obj_query = sv_mlx5dv_devx_obj_query,
	.devx_obj_destroy = sv_mlx5dv_devx_obj_destroy,
	.devx_general_cmd = sv_mlx5dv_devx_general_cmd,
	.create_comp_channel = sv_create_comp_channel,
	.destroy_comp_channel = sv_destroy_comp_channel,
	.get_cq_event = sv_get_cq_event,
	.ack_cq_events = sv_ack_cq_events,
	.get_async_event = sv_get_async_event,
	.ack_async_event = sv_ack_async_event,
};

int
vsteer_soft_device_add(const char *wire, const struct vsteer_soft_opts *o,
		       char *name, size_t name_len)
{
	struct sv_device_opts opts;

	memset(&opts, 0, sizeof(opts));
	opts.profile = o->generic ? SV_PROFILE_GENERIC : SV_PROFILE_MLX5;
	opts.flow_prios = o->flow_prios;
	opts.lacks = (o->no_devx ? SV_DEV_NO_DEVX : 0) |
		     (o->no_tunnel ? SV_DEV_NO_TUNNEL_OFFLOADS : 0) |
		     (o->no_egress ? SV_DEV_NO_VERBS_EGRESS : 0) |
		     (o->no_ihl ? SV_DEV_NO_IPV4_IHL : 0);
	opts.flex_parser = o->flex_parser;
	opts.modify_actions = o->modify_actions;
	return softverbs_device_add(wire, &opts, name, name_len);
}

int
vsteer_soft_device_remove(const char *name)
{
	return softverbs_device_remove(name);
}
