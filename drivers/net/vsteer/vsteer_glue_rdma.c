/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The glue table over rdma-core (libibverbs, libmlx5). Thin wrappers: the
 * table is the single place where the driver calls exported rdma-core
 * entry points, so the softverbs table can stand in for it.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "vsteer.h"
#include "vsteer_netdev.h"

static struct ibv_device **
vsteer_rdma_get_device_list(int *num_devices)
{
	return ibv_get_device_list(num_devices);
}

static void
vsteer_rdma_free_device_list(struct ibv_device **list)
{
	ibv_free_device_list(list);
}

static const char *
vsteer_rdma_get_device_name(struct ibv_device *device)
{
	return ibv_get_device_name(device);
}

static struct ibv_context *
vsteer_rdma_open_device(struct ibv_device *device)
{
	return ibv_open_device(device);
}

static int
vsteer_rdma_close_device(struct ibv_context *context)
{
	return ibv_close_device(context);
}

static int
vsteer_rdma_query_device(struct ibv_context *context,
			 struct ibv_device_attr *attr)
{
	return ibv_query_device(context, attr);
}

static int
vsteer_rdma_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr)
{
	return ibv_query_device_ex(context, input, attr);
}

static int
vsteer_rdma_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr)
{
	return ibv_query_port(context, port_num, port_attr);
}

static struct ibv_pd *
vsteer_rdma_alloc_pd(struct ibv_context *context)
{
	return ibv_alloc_pd(context);
}

static int
vsteer_rdma_dealloc_pd(struct ibv_pd *pd)
{
	return ibv_dealloc_pd(pd);
}

static struct ibv_mr *
vsteer_rdma_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr(pd, addr, length, access);
}

static int
vsteer_rdma_dereg_mr(struct ibv_mr *mr)
{
	return ibv_dereg_mr(mr);
}

static int
vsteer_rdma_destroy_cq(struct ibv_cq *cq)
{
	return ibv_destroy_cq(cq);
}

static int
vsteer_rdma_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask)
{
	return ibv_modify_qp(qp, attr, attr_mask);
}

static int
vsteer_rdma_destroy_qp(struct ibv_qp *qp)
{
	return ibv_destroy_qp(qp);
}

/* Read the first line of a small sysfs file into buf. */
static int
vsteer_sysfs_read(const char *path, char *buf, size_t len)
{
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (f == NULL)
		return errno;
	if (fgets(buf, (int)len, f) == NULL) {
		fclose(f);
		return EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * The netdev bound to an IB device's port: <ibdev_path>/device/net/<ifname>
 * (ibdev_path is the device's sysfs directory as libibverbs found it,
 * /sys/class/infiniband/<dev>), the one whose dev_port is port - 1
 * (several netdevs share a PCI function on multi-port devices), or the
 * only one.
 */
static int
vsteer_rdma_port_ifname(struct ibv_context *context, uint8_t port,
			char ifname[IF_NAMESIZE])
{
	char dir[IBV_SYSFS_PATH_MAX + 16], path[1024], buf[64];
	char only[256] = "";
	unsigned int nifs = 0;
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "%s/device/net",
		 context->device->ibdev_path);
	d = opendir(dir);
	if (d == NULL)
		return ENODEV;
	while ((de = readdir(d)) != NULL) {
		unsigned long dev_port = 0;

		if (de->d_name[0] == '.')
			continue;
		nifs++;
		snprintf(only, sizeof(only), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s/dev_port", dir, de->d_name);
		if (vsteer_sysfs_read(path, buf, sizeof(buf)) == 0)
			dev_port = strtoul(buf, NULL, 0);
		if (dev_port + 1 == port) {
			found = 1;
			break;
		}
	}
	closedir(d);
	if ((!found && nifs != 1) || strlen(only) >= IF_NAMESIZE)
		return ENODEV;
	snprintf(ifname, IF_NAMESIZE, "%s", only);
	return 0;
}

/* The port's MAC is the address of its netdev. */
static int
vsteer_rdma_port_mac(struct ibv_context *context, uint8_t port, uint8_t mac[6])
{
	char ifname[IF_NAMESIZE], path[512], buf[64];
	struct rte_ether_addr ea;

	if (vsteer_rdma_port_ifname(context, port, ifname) != 0)
		return ENODEV;
	snprintf(path, sizeof(path), "%s/device/net/%s/address",
		 context->device->ibdev_path, ifname);
	if (vsteer_sysfs_read(path, buf, sizeof(buf)) != 0)
		return ENODEV;
	if (rte_ether_unformat_addr(buf, &ea) != 0)
		return EINVAL;
	memcpy(mac, ea.addr_bytes, RTE_ETHER_ADDR_LEN);
	return 0;
}

static int
vsteer_rdma_port_mtu(struct ibv_context *context, uint8_t port,
		     unsigned int *mtu, unsigned int *max_mtu)
{
	char ifname[IF_NAMESIZE];
	int ret;

	ret = vsteer_rdma_port_ifname(context, port, ifname);
	if (ret == 0)
		ret = vsteer_netdev_mtu(ifname, mtu);
	if (ret == 0 && vsteer_netdev_max_mtu(ifname, max_mtu) != 0)
		*max_mtu = 0;
	return ret;
}

static int
vsteer_rdma_port_set_mtu(struct ibv_context *context, uint8_t port,
			 unsigned int mtu)
{
	char ifname[IF_NAMESIZE];
	int ret;

	ret = vsteer_rdma_port_ifname(context, port, ifname);
	if (ret == 0)
		ret = vsteer_netdev_set_mtu(ifname, mtu);
	return ret;
}

static int
vsteer_rdma_port_link(struct ibv_context *context, uint8_t port,
		      struct vsteer_glue_link *link)
{
	struct vsteer_netdev_link nl;
	char ifname[IF_NAMESIZE];
	int ret;

	ret = vsteer_rdma_port_ifname(context, port, ifname);
	if (ret == 0)
		ret = vsteer_netdev_link(ifname, &nl);
	if (ret != 0)
		return ret;
	link->speed_mbps = nl.speed_mbps;
	link->full_duplex = nl.full_duplex;
	link->autoneg = nl.autoneg;
	return 0;
}

static bool
vsteer_rdma_dv_is_supported(struct ibv_device *device)
{
	return mlx5dv_is_supported(device);
}

/* DevX needs a context opened for it (the kernel's devx_get_uid()); libmlx5
 * answers EINVAL when the device has no DevX. */
static struct ibv_context *
vsteer_rdma_dv_open_device(struct ibv_device *device,
			   struct mlx5dv_context_attr *attr)
{
	return mlx5dv_open_device(device, attr);
}

static int
vsteer_rdma_dv_query_device(struct ibv_context *context,
			    struct mlx5dv_context *attrs_out)
{
	return mlx5dv_query_device(context, attrs_out);
}

static struct ibv_qp *
vsteer_rdma_dv_create_qp(struct ibv_context *context,
			 struct ibv_qp_init_attr_ex *qp_attr,
			 struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	return mlx5dv_create_qp(context, qp_attr, mlx5_qp_attr);
}

static struct mlx5dv_flow_matcher *
vsteer_rdma_dv_create_flow_matcher(struct ibv_context *context,
				   struct mlx5dv_flow_matcher_attr *attr)
{
	return mlx5dv_create_flow_matcher(context, attr);
}

static int
vsteer_rdma_dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	return mlx5dv_destroy_flow_matcher(matcher);
}

static struct ibv_flow *
vsteer_rdma_dv_create_flow(struct mlx5dv_flow_matcher *matcher,
			   struct mlx5dv_flow_match_parameters *value,
			   size_t num_actions,
			   struct mlx5dv_flow_action_attr actions[])
{
	return mlx5dv_create_flow(matcher, value, num_actions, actions);
}

static struct ibv_flow_action *
vsteer_rdma_dv_create_flow_action_modify_header(
	struct ibv_context *context, size_t actions_sz, uint64_t actions[],
	enum mlx5dv_flow_table_type ft_type)
{
	return mlx5dv_create_flow_action_modify_header(context, actions_sz,
						       actions, ft_type);
}

static struct ibv_flow_action *
vsteer_rdma_dv_create_flow_action_packet_reformat(
	struct ibv_context *context, size_t data_sz, void *data,
	enum mlx5dv_flow_action_packet_reformat_type reformat_type,
	enum mlx5dv_flow_table_type ft_type)
{
	return mlx5dv_create_flow_action_packet_reformat(context, data_sz, data,
							 reformat_type,
							 ft_type);
}

static int
vsteer_rdma_destroy_flow_action(struct ibv_flow_action *action)
{
	return ibv_destroy_flow_action(action);
}

static struct mlx5dv_devx_obj *
vsteer_rdma_devx_obj_create(struct ibv_context *context, const void *in,
			    size_t inlen, void *out, size_t outlen)
{
	return mlx5dv_devx_obj_create(context, in, inlen, out, outlen);
}

static int
vsteer_rdma_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			   size_t inlen, void *out, size_t outlen)
{
	return mlx5dv_devx_obj_query(obj, in, inlen, out, outlen);
}

static int
vsteer_rdma_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	return mlx5dv_devx_obj_destroy(obj);
}

static int
vsteer_rdma_devx_general_cmd(struct ibv_context *context, const void *in,
			     size_t inlen, void *out, size_t outlen)
{
	return mlx5dv_devx_general_cmd(context, in, inlen, out, outlen);
}

static struct ibv_comp_channel *
vsteer_rdma_create_comp_channel(struct ibv_context *context)
{
	return ibv_create_comp_channel(context);
}

static int
vsteer_rdma_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return ibv_destroy_comp_channel(channel);
}

static int
vsteer_rdma_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			 void **cq_context)
{
	return ibv_get_cq_event(channel, cq, cq_context);
}

static void
vsteer_rdma_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	ibv_ack_cq_events(cq, nevents);
}

static int
vsteer_rdma_get_async_event(struct ibv_context *context,
			    struct ibv_async_event *event)
{
	return ibv_get_async_event(context, event);
}

static void
vsteer_rdma_ack_async_event(struct ibv_async_event *event)
{
	ibv_ack_async_event(event);
}

/*
 * Drops for lack of receive buffers: the port's out_of_buffer hardware
 * counter (mlx5 exposes it in sysfs). The other counters have no portable
 * source and stay 0.
 */
static int
vsteer_rdma_port_counters(struct ibv_context *context, uint8_t port,
			  struct vsteer_port_counters *c)
{
	char path[IBV_SYSFS_PATH_MAX + 64], buf[64];
	int ret;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/ports/%u/hw_counters/out_of_buffer",
		 context->device->ibdev_path, port);
	ret = vsteer_sysfs_read(path, buf, sizeof(buf));
	if (ret != 0)
		return -ret;
	c->rx_no_buffer = strtoull(buf, NULL, 0);
	return 0;
}

const struct vsteer_glue vsteer_glue_rdma = {
	.name = "rdma-core",
	.get_device_list = vsteer_rdma_get_device_list,
	.free_device_list = vsteer_rdma_free_device_list,
	.get_device_name = vsteer_rdma_get_device_name,
	.open_device = vsteer_rdma_open_device,
	.close_device = vsteer_rdma_close_device,
	.query_device = vsteer_rdma_query_device,
	.query_device_ex = vsteer_rdma_query_device_ex,
	.query_port = vsteer_rdma_query_port,
	.alloc_pd = vsteer_rdma_alloc_pd,
	.dealloc_pd = vsteer_rdma_dealloc_pd,
	.reg_mr = vsteer_rdma_reg_mr,
	.dereg_mr = vsteer_rdma_dereg_mr,
	.destroy_cq = vsteer_rdma_destroy_cq,
	.modify_qp = vsteer_rdma_modify_qp,
	.destroy_qp = vsteer_rdma_destroy_qp,
	.port_mac = vsteer_rdma_port_mac,
	.port_counters = vsteer_rdma_port_counters,
	.port_mtu = vsteer_rdma_port_mtu,
	.port_set_mtu = vsteer_rdma_port_set_mtu,
	.port_link = vsteer_rdma_port_link,
	.dv_is_supported = vsteer_rdma_dv_is_supported,
	.dv_open_device = vsteer_rdma_dv_open_device,
	.dv_query_device = vsteer_rdma_dv_query_device,
	.dv_create_qp = vsteer_rdma_dv_create_qp,
	.dv_create_flow_matcher = vsteer_rdma_dv_create_flow_matcher,
	.dv_destroy_flow_matcher = vsteer_rdma_dv_destroy_flow_matcher,
	.dv_create_flow = vsteer_rdma_dv_create_flow,
	.dv_create_flow_action_modify_header =
		vsteer_rdma_dv_create_flow_action_modify_header,
	.dv_create_flow_action_packet_reformat =
		vsteer_rdma_dv_create_flow_action_packet_reformat,
	.destroy_flow_action = vsteer_rdma_destroy_flow_action,
	.devx_obj_create = vsteer_rdma_devx_obj_create,
	.devx_obj_query = vsteer_rdma_devx_obj_query,
	.devx_obj_destroy = vsteer_rdma_devx_obj_destroy,
	.devx_general_cmd = vsteer_rdma_devx_general_cmd,
	.create_comp_channel = vsteer_rdma_create_comp_channel,
	.destroy_comp_channel = vsteer_rdma_destroy_comp_channel,
	.get_cq_event = vsteer_rdma_get_cq_event,
	.ack_cq_events = vsteer_rdma_ack_cq_events,
	.get_async_event = vsteer_rdma_get_async_event,
	.ack_async_event = vsteer_rdma_ack_async_event,
};
