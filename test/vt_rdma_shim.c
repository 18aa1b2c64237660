/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * libibverbs / libmlx5 entry points for tests of the rdma-core glue (see
 * vt_rdma.h). Each forwards to softverbs, as rdma-core forwards to its
 * provider; fopen() is interposed only for the hardware counter files of
 * the sysfs trees this shim made, which it answers from the device.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "softverbs.h"
#include "vt_rdma.h"

#define VT_RDMA_MAX 16
#define VT_RDMA_OOB "/ports/1/hw_counters/out_of_buffer"

struct vt_rdma_dev {
	char sv_name[64];
	char alias[64];
	char dir[PATH_MAX];
	struct ibv_context *ctx; /* for the counters */
};

struct vt_rdma_calls vt_rdma_calls;
static struct vt_rdma_dev vt_devs[VT_RDMA_MAX];

static struct vt_rdma_dev *
vt_by_sv_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < VT_RDMA_MAX; i++)
		if (vt_devs[i].sv_name[0] != '\0' &&
		    strcmp(vt_devs[i].sv_name, name) == 0)
			return &vt_devs[i];
	return NULL;
}

static struct vt_rdma_dev *
vt_by_alias(const char *alias)
{
	unsigned int i;

	for (i = 0; i < VT_RDMA_MAX; i++)
		if (vt_devs[i].sv_name[0] != '\0' &&
		    strcmp(vt_devs[i].alias, alias) == 0)
			return &vt_devs[i];
	return NULL;
}

/* ---- libibverbs ---- */

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	return sv_get_device_list(num_devices);
}

void
ibv_free_device_list(struct ibv_device **list)
{
	sv_free_device_list(list);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	const struct vt_rdma_dev *d;

	if (device == NULL)
		return NULL;
	d = vt_by_sv_name(device->name);
	return d != NULL ? d->alias : sv_get_device_name(device);
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	vt_rdma_calls.open_device++;
	return sv_open_device(device);
}

int
ibv_close_device(struct ibv_context *context)
{
	return sv_close_device(context);
}

int
ibv_query_device(struct ibv_context *context,
		 struct ibv_device_attr *device_attr)
{
	return sv_query_device(context, device_attr);
}

/* verbs.h makes ibv_query_port a macro over the inline verb. */
int(ibv_query_port)(struct ibv_context *context, uint8_t port_num,
		    struct _compat_ibv_port_attr *port_attr)
{
	return sv_query_port(context, port_num,
			     (struct ibv_port_attr *)port_attr);
}

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	return sv_alloc_pd(context);
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	return sv_dealloc_pd(pd);
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
			    int access)
{
	vt_rdma_calls.reg_mr++;
	return sv_reg_mr(pd, addr, length, access);
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	vt_rdma_calls.reg_mr++;
	/* softverbs has no zero-based or offset MRs. */
	if (iova != (uintptr_t)addr) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return sv_reg_mr(pd, addr, length, (int)access);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	return sv_dereg_mr(mr);
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	return sv_destroy_cq(cq);
}

int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return sv_modify_qp(qp, attr, attr_mask);
}

int
ibv_destroy_qp(struct ibv_qp *qp)
{
	return sv_destroy_qp(qp);
}

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	vt_rdma_calls.comp_channel++;
	return sv_create_comp_channel(context);
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return sv_destroy_comp_channel(channel);
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	vt_rdma_calls.get_cq_event++;
	return sv_get_cq_event(channel, cq, cq_context);
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	sv_ack_cq_events(cq, nevents);
}

int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	vt_rdma_calls.get_async_event++;
	return sv_get_async_event(context, event);
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	sv_ack_async_event(event);
}

/* ---- libmlx5 ---- */

bool
mlx5dv_is_supported(struct ibv_device *device)
{
	return sv_mlx5dv_is_supported(device);
}

struct ibv_context *
mlx5dv_open_device(struct ibv_device *device, struct mlx5dv_context_attr *attr)
{
	if (attr != NULL && (attr->flags & MLX5DV_CONTEXT_FLAGS_DEVX))
		vt_rdma_calls.dv_open_devx++;
	else
		vt_rdma_calls.dv_open_other++;
	return sv_mlx5dv_open_device(device, attr);
}

int
mlx5dv_query_device(struct ibv_context *ctx_in,
		    struct mlx5dv_context *attrs_out)
{
	vt_rdma_calls.dv_query_device++;
	return sv_mlx5dv_query_device(ctx_in, attrs_out);
}

struct ibv_qp *
mlx5dv_create_qp(struct ibv_context *context,
		 struct ibv_qp_init_attr_ex *qp_attr,
		 struct mlx5dv_qp_init_attr *mlx5_qp_attr)
{
	vt_rdma_calls.dv_create_qp++;
	if (mlx5_qp_attr != NULL &&
	    (mlx5_qp_attr->comp_mask &
	     MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS) &&
	    (mlx5_qp_attr->create_flags & MLX5DV_QP_CREATE_TUNNEL_OFFLOADS))
		vt_rdma_calls.dv_qp_tunnel++;
	return sv_mlx5dv_create_qp(context, qp_attr, mlx5_qp_attr);
}

struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *context,
			   struct mlx5dv_flow_matcher_attr *matcher_attr)
{
	vt_rdma_calls.matcher_create++;
	return sv_mlx5dv_create_flow_matcher(context, matcher_attr);
}

int
mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	return sv_mlx5dv_destroy_flow_matcher(matcher);
}

struct ibv_flow *
mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		   struct mlx5dv_flow_match_parameters *match_value,
		   size_t num_actions, struct mlx5dv_flow_action_attr actions[])
{
	return sv_mlx5dv_create_flow(matcher, match_value, num_actions,
				     actions);
}

struct ibv_flow_action *
mlx5dv_create_flow_action_modify_header(struct ibv_context *ctx,
					size_t actions_sz, uint64_t actions[],
					enum mlx5dv_flow_table_type ft_type)
{
	vt_rdma_calls.modify_header_create++;
	return sv_mlx5dv_create_flow_action_modify_header(ctx, actions_sz,
							  actions, ft_type);
}

struct ibv_flow_action *
mlx5dv_create_flow_action_packet_reformat(
	struct ibv_context *ctx, size_t data_sz, void *data,
	enum mlx5dv_flow_action_packet_reformat_type reformat_type,
	enum mlx5dv_flow_table_type ft_type)
{
	vt_rdma_calls.packet_reformat_create++;
	return sv_mlx5dv_create_flow_action_packet_reformat(ctx, data_sz, data,
							    reformat_type,
							    ft_type);
}

struct mlx5dv_devx_obj *
mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
		       size_t inlen, void *out, size_t outlen)
{
	vt_rdma_calls.devx_obj_create++;
	return sv_mlx5dv_devx_obj_create(context, in, inlen, out, outlen);
}

int
mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	return sv_mlx5dv_devx_obj_query(obj, in, inlen, out, outlen);
}

int
mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	return sv_mlx5dv_devx_obj_destroy(obj);
}

int
mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in,
			size_t inlen, void *out, size_t outlen)
{
	vt_rdma_calls.devx_general_cmd++;
	return sv_mlx5dv_devx_general_cmd(context, in, inlen, out, outlen);
}

/* ---- sysfs ---- */

/* The out_of_buffer file of a shown device: the device's live count of
 * frames that found no receive buffer. */
FILE *
fopen(const char *path, const char *mode)
{
	static FILE *(*real_fopen)(const char *, const char *);
	struct sv_port_stats st;
	unsigned int i;

	if (real_fopen == NULL)
		real_fopen = (FILE * (*)(const char *, const char *))
			dlsym(RTLD_NEXT, "fopen");
	for (i = 0; path != NULL && i < VT_RDMA_MAX; i++) {
		const struct vt_rdma_dev *d = &vt_devs[i];
		size_t n = strlen(d->dir);
		FILE *f;

		if (d->sv_name[0] == '\0' || strncmp(path, d->dir, n) != 0 ||
		    strcmp(path + n, VT_RDMA_OOB) != 0)
			continue;
		if (softverbs_port_stats(d->ctx, 1, &st) != 0) {
			errno = EIO;
			return NULL;
		}
		/* fmemopen() with no buffer frees its own at fclose(). */
		f = fmemopen(NULL, 32, "w+");
		if (f == NULL)
			return NULL;
		fprintf(f, "%" PRIu64 "\n", st.rx_no_buffer);
		rewind(f);
		return f;
	}
	return real_fopen(path, mode);
}

static int
vt_write(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f == NULL)
		return errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : errno;
}

static int
vt_mkdirs(const char *dir, const char *const *sub)
{
	char path[PATH_MAX + 64];

	if (mkdir(dir, 0700) != 0)
		return errno;
	for (; *sub != NULL; sub++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *sub);
		if (mkdir(path, 0700) != 0)
			return errno;
	}
	return 0;
}

static const char *const vt_sysfs_dirs[] = {
	"device", "device/net", "device/net/vt0",
	"ports",  "ports/1",	"ports/1/hw_counters",
	NULL,
};
static const char *const vt_sysfs_files[] = {
	"device/net/vt0/address",
	"device/net/vt0/dev_port",
	"ports/1/hw_counters/out_of_buffer",
	NULL,
};

int
vt_rdma_present(const char *sv_name, const char *alias, const char *base)
{
	struct ibv_device **list, *dev = NULL;
	struct vt_rdma_dev *d = NULL;
	uint8_t mac[6];
	char text[32];
	unsigned int i;
	int n, rc;

	for (i = 0; i < VT_RDMA_MAX && d == NULL; i++)
		if (vt_devs[i].sv_name[0] == '\0')
			d = &vt_devs[i];
	if (d == NULL)
		return ENOSPC;
	list = sv_get_device_list(&n);
	for (i = 0; list != NULL && i < (unsigned int)n; i++)
		if (strcmp(sv_get_device_name(list[i]), sv_name) == 0)
			dev = list[i];
	if (dev == NULL) {
		sv_free_device_list(list);
		return ENODEV;
	}
	memset(d, 0, sizeof(*d));
	snprintf(d->dir, sizeof(d->dir), "%s/%s", base, alias);
	rc = vt_mkdirs(d->dir, vt_sysfs_dirs);
	/* libibverbs fills ibdev_path from sysfs; the glue reads it. */
	if (rc == 0 && strlen(d->dir) >= sizeof(dev->ibdev_path))
		rc = ENAMETOOLONG;
	if (rc == 0) {
		snprintf(dev->ibdev_path, sizeof(dev->ibdev_path), "%s",
			 d->dir);
		d->ctx = sv_open_device(dev);
		if (d->ctx == NULL)
			rc = errno;
	}
	sv_free_device_list(list);
	if (rc == 0)
		rc = softverbs_port_mac(d->ctx, 1, mac);
	if (rc == 0) {
		snprintf(text, sizeof(text), "%02x:%02x:%02x:%02x:%02x:%02x\n",
			 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		rc = vt_write(d->dir, vt_sysfs_files[0], text);
	}
	if (rc == 0)
		rc = vt_write(d->dir, vt_sysfs_files[1], "0\n");
	if (rc == 0)
		rc = vt_write(d->dir, vt_sysfs_files[2], "0\n");
	if (rc == 0) {
		snprintf(d->sv_name, sizeof(d->sv_name), "%s", sv_name);
		snprintf(d->alias, sizeof(d->alias), "%s", alias);
		return 0;
	}
	if (d->ctx != NULL)
		sv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
	return rc;
}

int
vt_rdma_forget(const char *alias)
{
	struct vt_rdma_dev *d = vt_by_alias(alias);
	char path[PATH_MAX + 64];
	int i, rc = 0;

	if (d == NULL)
		return ENODEV;
	for (i = 0; vt_sysfs_files[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s", d->dir,
			 vt_sysfs_files[i]);
		if (unlink(path) != 0)
			rc = errno;
	}
	for (i = (int)(sizeof(vt_sysfs_dirs) / sizeof(vt_sysfs_dirs[0])) - 2;
	     i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", d->dir, vt_sysfs_dirs[i]);
		if (rmdir(path) != 0)
			rc = errno;
	}
	if (rmdir(d->dir) != 0)
		rc = errno;
	if (sv_close_device(d->ctx) != 0)
		rc = EBUSY;
	memset(d, 0, sizeof(*d));
	return rc;
}

int
vt_rdma_pair(const char *link, int generic, uint32_t flow_prios, uint32_t lacks,
	     uint32_t flex_parser, const char *alias, const char *base)
{
	struct sv_device_opts o;
	char wire[96], name[2][64], a[2][80];
	int i, rc;

	memset(&o, 0, sizeof(o));
	o.profile = generic ? SV_PROFILE_GENERIC : SV_PROFILE_MLX5;
	o.flow_prios = flow_prios;
	o.lacks = lacks;
	o.flex_parser = flex_parser;
	snprintf(wire, sizeof(wire), "mem:%s", link);
	for (i = 0; i < 2; i++) {
		rc = softverbs_device_add(wire, &o, name[i], sizeof(name[i]));
		if (rc != 0)
			return rc;
		snprintf(a[i], sizeof(a[i]), "%s%c", alias, 'a' + i);
		rc = vt_rdma_present(name[i], a[i], base);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
vt_rdma_pair_remove(const char *link, const char *alias)
{
	char a[80], name[96];
	int i, rc = 0;

	for (i = 0; i < 2; i++) {
		snprintf(a, sizeof(a), "%s%c", alias, 'a' + i);
		if (vt_rdma_forget(a) != 0)
			rc = -1;
		snprintf(name, sizeof(name), "mem:%s.%d", link, i);
		if (softverbs_device_remove(name) != 0)
			rc = -1;
	}
	return rc;
}

int
vt_rdma_base(char *out, size_t len)
{
	char tmpl[] = "vtrdma-XXXXXX", full[PATH_MAX];

	/* In the working directory (the build tree), not a shared one. */
	if (mkdtemp(tmpl) == NULL)
		return errno;
	if (realpath(tmpl, full) == NULL || strlen(full) >= len) {
		rmdir(tmpl);
		return ENAMETOOLONG;
	}
	snprintf(out, len, "%s", full);
	return 0;
}

void
vt_rdma_base_remove(const char *base)
{
	rmdir(base);
}
