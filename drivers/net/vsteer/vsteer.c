/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * net_vsteer: probe, devargs, removal and log types.
 *
 *   --vdev net_vsteer0,dev=<name>[,port=<n>][,profile=...][,flow_engine=...]
 *                     [,mac=<addr>][,sv_...=...]
 *
 * dev=mlx5_0        an rdma-core device (libibverbs/libmlx5);
 * dev=soft:<if>     softverbs on a Linux interface (needs CAP_NET_RAW);
 * dev=xdp:<if>      softverbs on a Linux interface through AF_XDP (needs
 *                   CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF);
 * dev=mem:<link>    softverbs on one end of an in-memory link: two ports
 *                   given the same link are wired to each other.
 * port=<n>          1-based port of the device (default 1).
 * profile=generic|mlx5
 *                   softverbs devices only: the man pages alone, or also
 *                   what rdma-core 44 and the mlx5 kernel refuse (default
 *                   mlx5, so that software runs behave like the NIC).
 * flow_engine=auto|verbs|dv
 *                   how rte_flow rules are made: ibv_create_flow spec
 *                   chains, or mlx5dv matchers; auto takes verbs for what
 *                   a spec chain carries, else a matcher where the device
 *                   is an mlx5dv device.
 * mac=<addr>        the port's initial unicast address instead of the
 *                   device's (what mac_addr_set would do after probe).
 * sv_flow_prios=<n> softverbs devices only: verbs flow priorities of the
 *                   device (mlx5: 1 to 16, default 16; 8 models an older
 *                   kernel).
 * sv_devx=0, sv_tunnel_offloads=0, sv_verbs_egress=0, sv_ipv4_ihl=0
 *                   softverbs mlx5 devices only: a device without DevX,
 *                   without tunnel offloads, a kernel that refuses
 *                   verbs egress rules, or a device without the IPv4 IHL
 *                   match field.
 * sv_flex_parser=0|1
 *                   softverbs mlx5 devices only: the firmware's
 *                   FLEX_PARSER_PROFILE_ENABLE (default 0; 1 parses MPLS
 *                   over GRE and UDP).
 * sv_modify_actions=<n>
 *                   softverbs mlx5 devices only: the header modify actions
 *                   the device's flow tables take in one modify header
 *                   (max_modify_header_actions, 1 to 255, default 16).
 *
 * What the device can do is asked from the device, never from which glue
 * drives it: queries, and probes at start-up (vsteer_probe_caps()).
 */

/* dladdr(): which object another copy of the driver came from. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <bus_driver.h>
#include <bus_vdev_driver.h>
#include <ethdev_vdev.h>

#include "vsteer.h"
#include "vsteer_flow_dv.h"

RTE_LOG_REGISTER_DEFAULT(vsteer_logtype, NOTICE);
RTE_LOG_REGISTER_SUFFIX(vsteer_logtype_init, init, NOTICE);
RTE_LOG_REGISTER_SUFFIX(vsteer_logtype_flow, flow, NOTICE);
RTE_LOG_REGISTER_SUFFIX(vsteer_logtype_rx, rx, NOTICE);
RTE_LOG_REGISTER_SUFFIX(vsteer_logtype_tx, tx, NOTICE);

#define VSTEER_ARG_DEV "dev"
#define VSTEER_ARG_PORT "port"
#define VSTEER_ARG_PROFILE "profile"
#define VSTEER_ARG_FLOW_ENGINE "flow_engine"
#define VSTEER_ARG_MAC "mac"
#define VSTEER_ARG_SV_FLOW_PRIOS "sv_flow_prios"
#define VSTEER_ARG_SV_DEVX "sv_devx"
#define VSTEER_ARG_SV_TUNNEL "sv_tunnel_offloads"
#define VSTEER_ARG_SV_EGRESS "sv_verbs_egress"
#define VSTEER_ARG_SV_IHL "sv_ipv4_ihl"
#define VSTEER_ARG_SV_FLEX "sv_flex_parser"
#define VSTEER_ARG_SV_MODIFY "sv_modify_actions"

static const char *const vsteer_valid_args[] = {
	VSTEER_ARG_DEV,
	VSTEER_ARG_PORT,
	VSTEER_ARG_PROFILE,
	VSTEER_ARG_FLOW_ENGINE,
	VSTEER_ARG_MAC,
	VSTEER_ARG_SV_FLOW_PRIOS,
	VSTEER_ARG_SV_DEVX,
	VSTEER_ARG_SV_TUNNEL,
	VSTEER_ARG_SV_EGRESS,
	VSTEER_ARG_SV_IHL,
	VSTEER_ARG_SV_FLEX,
	VSTEER_ARG_SV_MODIFY,
	NULL,
};

/* max_modify_header_actions is an 8-bit capability. */
#define VSTEER_SV_MODIFY_MAX 255

/* mlx5_ib has at most 16 bypass priorities; the man page sets no limit
 * (softverbs: 4096). */
#define VSTEER_SV_PRIOS_MLX5 16
#define VSTEER_SV_PRIOS_GENERIC 4096

#define VSTEER_SOFT_PREFIX "soft:"
#define VSTEER_XDP_PREFIX "xdp:"
#define VSTEER_MEM_PREFIX "mem:"

enum vsteer_engine_arg {
	VSTEER_ENGINE_AUTO = 0,
	VSTEER_ENGINE_ARG_VERBS,
	VSTEER_ENGINE_ARG_DV,
};

struct vsteer_args {
	char dev[64];
	unsigned long port;
	int port_given;
	struct vsteer_soft_opts soft;
	const char *soft_key;	 /* a softverbs-only devarg given, or NULL */
	const char *sv_mlx5_key; /* an sv_ devarg of the mlx5 model, or NULL */
	enum vsteer_engine_arg engine;
	struct rte_ether_addr mac;
	int mac_given;
};

/* One line naming the key and the valid ones. */
static int
vsteer_args_unknown(const char *name, const char *key)
{
	char list[192] = "";
	size_t off = 0;
	unsigned int i;

	for (i = 0; vsteer_valid_args[i] != NULL; i++)
		off += snprintf(list + off, sizeof(list) - off, "%s%s",
				i ? ", " : "", vsteer_valid_args[i]);
	INIT_LOG(ERR, "%s: unknown devarg '%s'; valid: %s", name, key, list);
	return -EINVAL;
}

/* sv_devx=0 and friends: 0 models a device without the feature;
 * sv_flex_parser=1 firmware with the MPLS parser profile. */
static int
vsteer_arg_feature(const char *name, const char *key, const char *val,
		   struct vsteer_args *a)
{
	uint32_t off;

	if (strcmp(val, "0") == 0) {
		off = 1;
	} else if (strcmp(val, "1") == 0) {
		off = 0;
	} else {
		INIT_LOG(ERR, "%s: %s=%s: expected 0 or 1%s", name, key, val,
			 strcmp(key, VSTEER_ARG_SV_FLEX) == 0 ?
				 " (the other FLEX_PARSER_PROFILE_ENABLE profiles are not modelled)" :
				 "");
		return -EINVAL;
	}
	/* The kvargs keys go away with the list: keep the constants. */
	if (strcmp(key, VSTEER_ARG_SV_DEVX) == 0) {
		a->soft.no_devx = off;
		a->sv_mlx5_key = VSTEER_ARG_SV_DEVX;
	} else if (strcmp(key, VSTEER_ARG_SV_TUNNEL) == 0) {
		a->soft.no_tunnel = off;
		a->sv_mlx5_key = VSTEER_ARG_SV_TUNNEL;
	} else if (strcmp(key, VSTEER_ARG_SV_IHL) == 0) {
		a->soft.no_ihl = off;
		a->sv_mlx5_key = VSTEER_ARG_SV_IHL;
	} else if (strcmp(key, VSTEER_ARG_SV_FLEX) == 0) {
		a->soft.flex_parser = !off;
		a->sv_mlx5_key = VSTEER_ARG_SV_FLEX;
	} else {
		a->soft.no_egress = off;
		a->sv_mlx5_key = VSTEER_ARG_SV_EGRESS;
	}
	a->soft_key = a->sv_mlx5_key;
	return 0;
}

/* A count from 1 to max (sv_flow_prios=, sv_modify_actions=). */
static int
vsteer_arg_count(const char *name, const char *key, const char *val,
		 const char *what, unsigned long max, uint32_t *out)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(val, &end, 10);
	if (errno != 0 || *end != '\0' || val[0] == '-' || n < 1 || n > max) {
		INIT_LOG(ERR,
			 "%s: %s=%s: expected a number of %s from 1 to %lu",
			 name, key, val, what, max);
		return -EINVAL;
	}
	*out = (uint32_t)n;
	return 0;
}

/* What needs every devarg: the softverbs model is one device. */
static int
vsteer_args_check_soft(const char *name, const struct vsteer_args *a)
{
	uint32_t max = a->soft.generic ? VSTEER_SV_PRIOS_GENERIC :
					 VSTEER_SV_PRIOS_MLX5;

	if (a->sv_mlx5_key != NULL && a->soft.generic) {
		INIT_LOG(ERR,
			 "%s: %s= models an mlx5 device: not with profile=generic",
			 name, a->sv_mlx5_key);
		return -EINVAL;
	}
	if (a->soft.flow_prios > max) {
		INIT_LOG(ERR, "%s: %s=%u: expected 1 to %u on the %s profile",
			 name, VSTEER_ARG_SV_FLOW_PRIOS, a->soft.flow_prios,
			 max, a->soft.generic ? "generic" : "mlx5");
		return -EINVAL;
	}
	return 0;
}

static int
vsteer_args_parse(const char *name, const char *params, struct vsteer_args *a)
{
	struct rte_kvargs *kv;
	unsigned int i, j;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->port = 1;
	a->engine = VSTEER_ENGINE_AUTO;
	if (params == NULL || params[0] == '\0') {
		INIT_LOG(ERR,
			 "%s: devarg dev= is required (an rdma-core device such as mlx5_0, soft:<ifname>, xdp:<ifname> or mem:<link>)",
			 name);
		return -EINVAL;
	}
	/* No key filter here: an unknown key is then named in the error. */
	kv = rte_kvargs_parse(params, NULL);
	if (kv == NULL) {
		INIT_LOG(ERR,
			 "%s: cannot parse devargs '%s' (expected key=value,...)",
			 name, params);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		const char *key = kv->pairs[i].key;
		const char *val = kv->pairs[i].value;
		char *end;

		for (j = 0; vsteer_valid_args[j] != NULL; j++)
			if (strcmp(key, vsteer_valid_args[j]) == 0)
				break;
		if (vsteer_valid_args[j] == NULL) {
			ret = vsteer_args_unknown(name, key);
			break;
		}
		if (rte_kvargs_count(kv, key) > 1) {
			INIT_LOG(ERR, "%s: devarg %s given more than once",
				 name, key);
			ret = -EINVAL;
			break;
		}
		if (val == NULL || val[0] == '\0') {
			INIT_LOG(ERR, "%s: devarg %s needs a value", name, key);
			ret = -EINVAL;
			break;
		}
		if (strcmp(key, VSTEER_ARG_DEV) == 0) {
			if (strlen(val) >= sizeof(a->dev)) {
				INIT_LOG(ERR, "%s: dev=%s: name too long", name,
					 val);
				ret = -EINVAL;
			} else {
				snprintf(a->dev, sizeof(a->dev), "%s", val);
			}
		} else if (strcmp(key, VSTEER_ARG_PORT) == 0) {
			errno = 0;
			a->port = strtoul(val, &end, 10);
			if (errno != 0 || *end != '\0' || a->port < 1 ||
			    a->port > 255) {
				INIT_LOG(ERR,
					 "%s: port=%s: expected a port number from 1 to 255",
					 name, val);
				ret = -EINVAL;
			}
			a->port_given = 1;
		} else if (strcmp(key, VSTEER_ARG_PROFILE) == 0) {
			if (strcmp(val, "generic") == 0) {
				a->soft.generic = 1;
			} else if (strcmp(val, "mlx5") != 0) {
				INIT_LOG(ERR,
					 "%s: profile=%s: expected generic or mlx5",
					 name, val);
				ret = -EINVAL;
			}
			a->soft_key = VSTEER_ARG_PROFILE;
		} else if (strcmp(key, VSTEER_ARG_SV_FLOW_PRIOS) == 0) {
			ret = vsteer_arg_count(name, key, val, "priorities",
					       VSTEER_SV_PRIOS_GENERIC,
					       &a->soft.flow_prios);
			a->soft_key = VSTEER_ARG_SV_FLOW_PRIOS;
		} else if (strcmp(key, VSTEER_ARG_SV_MODIFY) == 0) {
			ret = vsteer_arg_count(name, key, val,
					       "header modify actions",
					       VSTEER_SV_MODIFY_MAX,
					       &a->soft.modify_actions);
			a->sv_mlx5_key = VSTEER_ARG_SV_MODIFY;
			a->soft_key = VSTEER_ARG_SV_MODIFY;
		} else if (strcmp(key, VSTEER_ARG_SV_DEVX) == 0 ||
			   strcmp(key, VSTEER_ARG_SV_TUNNEL) == 0 ||
			   strcmp(key, VSTEER_ARG_SV_EGRESS) == 0 ||
			   strcmp(key, VSTEER_ARG_SV_IHL) == 0 ||
			   strcmp(key, VSTEER_ARG_SV_FLEX) == 0) {
			ret = vsteer_arg_feature(name, key, val, a);
		} else if (strcmp(key, VSTEER_ARG_FLOW_ENGINE) == 0) {
			if (strcmp(val, "auto") == 0) {
				a->engine = VSTEER_ENGINE_AUTO;
			} else if (strcmp(val, "verbs") == 0) {
				a->engine = VSTEER_ENGINE_ARG_VERBS;
			} else if (strcmp(val, "dv") == 0) {
				a->engine = VSTEER_ENGINE_ARG_DV;
			} else {
				INIT_LOG(ERR,
					 "%s: flow_engine=%s: expected auto, verbs or dv",
					 name, val);
				ret = -EINVAL;
			}
		} else if (strcmp(key, VSTEER_ARG_MAC) == 0) {
			if (rte_ether_unformat_addr(val, &a->mac) != 0 ||
			    !rte_is_unicast_ether_addr(&a->mac) ||
			    rte_is_zero_ether_addr(&a->mac)) {
				INIT_LOG(ERR,
					 "%s: mac=%s: expected a unicast address such as 02:00:00:00:00:01",
					 name, val);
				ret = -EINVAL;
			}
			a->mac_given = 1;
		}
	}
	if (ret == 0)
		ret = vsteer_args_check_soft(name, a);
	rte_kvargs_free(kv);
	if (ret == 0 && a->dev[0] == '\0') {
		INIT_LOG(ERR,
			 "%s: devarg dev= is required (an rdma-core device such as mlx5_0, soft:<ifname>, xdp:<ifname> or mem:<link>)",
			 name);
		ret = -EINVAL;
	}
	return ret;
}

static int
vsteer_is_soft(const char *dev)
{
	return strncmp(dev, VSTEER_SOFT_PREFIX, strlen(VSTEER_SOFT_PREFIX)) ==
		       0 ||
	       strncmp(dev, VSTEER_XDP_PREFIX, strlen(VSTEER_XDP_PREFIX)) ==
		       0 ||
	       strncmp(dev, VSTEER_MEM_PREFIX, strlen(VSTEER_MEM_PREFIX)) == 0;
}

/* "lo, eth0" — what dev=soft: could have named. */
static void
vsteer_list_ifs(char *buf, size_t len)
{
	struct if_nameindex *ifs, *it;
	size_t off = 0;

	snprintf(buf, len, "none");
	ifs = if_nameindex();
	if (ifs == NULL)
		return;
	for (it = ifs; it->if_index != 0 && off < len; it++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				it->if_name);
	if_freenameindex(ifs);
}

static void
vsteer_list_devs(const struct vsteer_glue *glue, struct ibv_device **list,
		 int n, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	snprintf(buf, len, "none");
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				glue->get_device_name(list[i]));
}

/* Why an AF_XDP wire could not open (sv_wire.h), or NULL. */
static const char *
vsteer_xdp_why(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return "AF_XDP needs CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF (or root)";
	case EAFNOSUPPORT:
		return "this kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS)";
	case ENOSYS:
		return "this kernel has no bpf() system call (CONFIG_BPF_SYSCALL)";
	case EBUSY:
		return "the interface already has an XDP program, or an AF_XDP socket on queue 0";
	case EMSGSIZE:
		return "MTU too large for XDP: at most 3818, and on a veth at most 3506 on the peer";
	case ENOTSUP:
		return "the kernel or the interface's driver refuses the XDP program (XDP links need Linux 5.9)";
	case ENOSPC:
		return "the veth peer has more tx queues than this end has rx queues, which XDP refuses";
	case ENOBUFS:
		return "cannot lock the 16 MiB of frame memory: raise RLIMIT_MEMLOCK or grant CAP_IPC_LOCK";
	case EINVAL:
		return "not an Ethernet interface";
	case EPROTONOSUPPORT:
		return "this build has no AF_XDP support (build with libxdp-dev and libbpf-dev)";
	default:
		return NULL;
	}
}

/* Create the softverbs device the devarg names; its name goes to out. */
static int
vsteer_soft_create(const char *name, const struct vsteer_args *a, char *out,
		   size_t out_len)
{
	char wire[96], found[256];
	const char *ifname = NULL, *why = NULL;
	bool xdp = false;
	int ret;

	if (strncmp(a->dev, VSTEER_SOFT_PREFIX, strlen(VSTEER_SOFT_PREFIX)) ==
	    0) {
		ifname = a->dev + strlen(VSTEER_SOFT_PREFIX);
	} else if (strncmp(a->dev, VSTEER_XDP_PREFIX,
			   strlen(VSTEER_XDP_PREFIX)) == 0) {
		ifname = a->dev + strlen(VSTEER_XDP_PREFIX);
		xdp = true;
	}
	if (ifname != NULL) {
		if (ifname[0] == '\0' || if_nametoindex(ifname) == 0) {
			vsteer_list_ifs(found, sizeof(found));
			INIT_LOG(ERR, "%s: no interface %s; found: %s", name,
				 ifname[0] ? ifname : "(empty)", found);
			return -ENODEV;
		}
		snprintf(wire, sizeof(wire), "%s:%s", xdp ? "xdp" : "if",
			 ifname);
	} else {
		const char *link = a->dev + strlen(VSTEER_MEM_PREFIX);

		if (link[0] == '\0') {
			INIT_LOG(ERR,
				 "%s: dev=mem: needs a link name, e.g. mem:a",
				 name);
			return -EINVAL;
		}
		snprintf(wire, sizeof(wire), "mem:%s", link);
	}
	ret = vsteer_soft_device_add(wire, &a->soft, out, out_len);
	if (ret == 0)
		return 0;
	if (xdp)
		why = vsteer_xdp_why(ret);
	if (why != NULL)
		INIT_LOG(ERR, "%s: dev=%s: %s", name, a->dev, why);
	else if (ret == EBUSY)
		INIT_LOG(ERR,
			 "%s: dev=%s: the in-memory link already has two ends",
			 name, a->dev);
	else if (ret == EPERM || ret == EACCES)
		INIT_LOG(ERR,
			 "%s: dev=%s: %s (raw packet sockets need CAP_NET_RAW)",
			 name, a->dev, strerror(ret));
	else if (ret == ENODEV)
		INIT_LOG(ERR, "%s: dev=%s: no such interface", name, a->dev);
	else
		INIT_LOG(ERR, "%s: dev=%s: softverbs device: %s", name, a->dev,
			 strerror(ret));
	return -ret;
}

/*
 * Open the named device of glue; one error line on failure. An mlx5dv
 * device is opened for DevX, as DPDK mlx5 does (mlx5_open_device()): DevX
 * objects (the matchers' flow counters) need a context with a DevX uid
 * (the kernel's devx_get_uid()). Where DevX is refused, a plain context
 * still does everything else: *devx says which it is.
 */
static struct ibv_context *
vsteer_open(const char *name, const struct vsteer_glue *glue, const char *ibdev,
	    const char *shown, int *is_mlx5dv, int *devx)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	char found[256];
	int n = 0, i;

	*devx = 0;
	list = glue->get_device_list(&n);
	if (list == NULL)
		n = 0;
	for (i = 0; i < n; i++)
		if (strcmp(glue->get_device_name(list[i]), ibdev) == 0)
			break;
	if (i == n) {
		vsteer_list_devs(glue, list, n, found, sizeof(found));
		INIT_LOG(ERR, "%s: no %s device %s; found: %s", name,
			 glue->name, shown, found);
		if (list != NULL)
			glue->free_device_list(list);
		rte_errno = ENODEV;
		return NULL;
	}
	*is_mlx5dv = glue->dv_is_supported(list[i]);
	if (*is_mlx5dv) {
		struct mlx5dv_context_attr dv_attr;

		memset(&dv_attr, 0, sizeof(dv_attr));
		dv_attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
		errno = 0;
		ctx = glue->dv_open_device(list[i], &dv_attr);
		if (ctx != NULL)
			*devx = 1;
		else
			INIT_LOG(INFO,
				 "%s: %s offers no DevX (%s): flow counters through verbs",
				 name, shown,
				 strerror(errno ? errno : ENOTSUP));
	}
	if (ctx == NULL) {
		errno = 0;
		ctx = glue->open_device(list[i]);
	}
	if (ctx == NULL) {
		rte_errno = errno ? errno : ENODEV;
		INIT_LOG(ERR, "%s: open %s device %s: %s", name, glue->name,
			 shown, strerror(rte_errno));
	}
	glue->free_device_list(list);
	return ctx;
}

/* Objects the steering probes attach their rules to: a hash QP over an
 * indirection table of one WQ that is never made ready (what it would
 * receive is discarded). */
struct vsteer_scratch {
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
};

static void
vsteer_scratch_free(struct vsteer_priv *priv, struct vsteer_scratch *sc)
{
	if (sc->qp != NULL)
		priv->glue->destroy_qp(sc->qp);
	if (sc->ind != NULL)
		ibv_destroy_rwq_ind_table(sc->ind);
	if (sc->wq != NULL)
		ibv_destroy_wq(sc->wq);
	if (sc->cq != NULL)
		priv->glue->destroy_cq(ibv_cq_ex_to_cq(sc->cq));
	memset(sc, 0, sizeof(*sc));
}

static int
vsteer_scratch_init(struct vsteer_priv *priv, struct vsteer_scratch *sc)
{
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_wq_init_attr wq_attr;
	struct ibv_rwq_ind_table_init_attr ind_attr;

	memset(sc, 0, sizeof(*sc));
	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = 1;
	cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	sc->cq = ibv_create_cq_ex(priv->ctx, &cq_attr);
	if (sc->cq == NULL)
		goto err;
	memset(&wq_attr, 0, sizeof(wq_attr));
	wq_attr.wq_type = IBV_WQT_RQ;
	wq_attr.max_wr = 1;
	wq_attr.max_sge = 1;
	wq_attr.pd = priv->pd;
	wq_attr.cq = ibv_cq_ex_to_cq(sc->cq);
	sc->wq = ibv_create_wq(priv->ctx, &wq_attr);
	if (sc->wq == NULL)
		goto err;
	memset(&ind_attr, 0, sizeof(ind_attr));
	ind_attr.log_ind_tbl_size = 0;
	ind_attr.ind_tbl = &sc->wq;
	sc->ind = ibv_create_rwq_ind_table(priv->ctx, &ind_attr);
	if (sc->ind == NULL)
		goto err;
	/* A tunnel QP where the device makes one: tunnel_qp_ok. */
	if (priv->dv_ok) {
		priv->tunnel_qp_ok = 1;
		sc->qp = vsteer_hash_qp_create(priv, sc->ind, priv->rss_key, 0,
					       VSTEER_RSS_TUNNEL);
		if (sc->qp == NULL)
			priv->tunnel_qp_ok = 0;
	}
	if (sc->qp == NULL)
		sc->qp = vsteer_hash_qp_create(priv, sc->ind, priv->rss_key, 0,
					       0);
	if (sc->qp == NULL)
		goto err;
	return 0;
err : {
	int ret = -(errno ? errno : ENOTSUP);

	vsteer_scratch_free(priv, sc);
	return ret;
}
}

/* A verbs rule that matches no frame: ETH dst 00:00:00:00:00:00 exactly,
 * then whatever the probe needs, laid out as ibv_create_flow(3) wants. */
struct vsteer_probe_rule {
	union {
		struct ibv_flow_attr attr;
		uint8_t buf[sizeof(struct ibv_flow_attr) +
			    sizeof(struct ibv_flow_spec_eth) +
			    sizeof(struct ibv_flow_spec_ipv4_ext) +
			    sizeof(struct ibv_flow_spec_esp)];
	};
};

static void
vsteer_probe_rule_add(struct vsteer_probe_rule *r, const void *spec,
		      uint16_t size)
{
	memcpy(r->buf + r->attr.size, spec, size);
	r->attr.size += size;
	r->attr.num_of_specs++;
}

static void
vsteer_probe_rule_init(const struct vsteer_priv *priv,
		       struct vsteer_probe_rule *r, uint16_t priority,
		       uint32_t flags, bool esp)
{
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4_ext ipv4;
	struct ibv_flow_spec_esp esp_spec;

	memset(r, 0, sizeof(*r));
	r->attr.type = IBV_FLOW_ATTR_NORMAL;
	r->attr.priority = priority;
	r->attr.port = priv->port_num;
	r->attr.flags = flags;
	r->attr.size = sizeof(r->attr);
	memset(&eth, 0, sizeof(eth));
	eth.type = IBV_FLOW_SPEC_ETH;
	eth.size = sizeof(eth);
	memset(eth.mask.dst_mac, 0xff, sizeof(eth.mask.dst_mac));
	vsteer_probe_rule_add(r, &eth, sizeof(eth));
	if (!esp)
		return;
	/* ESP is IP protocol 50, as the translator writes it. */
	memset(&ipv4, 0, sizeof(ipv4));
	ipv4.type = IBV_FLOW_SPEC_IPV4_EXT;
	ipv4.size = sizeof(ipv4);
	ipv4.val.proto = IPPROTO_ESP;
	ipv4.mask.proto = 0xff;
	vsteer_probe_rule_add(r, &ipv4, sizeof(ipv4));
	memset(&esp_spec, 0, sizeof(esp_spec));
	esp_spec.type = IBV_FLOW_SPEC_ESP;
	esp_spec.size = sizeof(esp_spec);
	esp_spec.val.spi = RTE_BE32(1);
	esp_spec.mask.spi = RTE_BE32(UINT32_MAX);
	vsteer_probe_rule_add(r, &esp_spec, sizeof(esp_spec));
}

/* Can the device install the rule? 0 or the errno it answered. */
static int
vsteer_probe_rule_try(struct vsteer_priv *priv, struct ibv_qp *qp,
		      struct vsteer_probe_rule *r)
{
	struct ibv_flow *flow;
	int ret;

	errno = 0;
	flow = ibv_create_flow(qp, &r->attr);
	if (flow == NULL)
		return errno ? errno : ENOTSUP;
	ret = ibv_destroy_flow(flow);
	if (ret != 0)
		INIT_LOG(WARNING, "%s: destroy probe flow: %s",
			 priv->ibdev_name, strerror(ret));
	return 0;
}

/*
 * What the firmware parses and matches, as DPDK's mlx5 asks it: MPLS over
 * GRE and over UDP from mlx5dv_query_device()'s tunnel offloads (both
 * bits, mlx5_os_capabilities_prepare(): mpls_en), which firmware gives
 * only with FLEX_PARSER_PROFILE_ENABLE=1; the IPv4 IHL match field from
 * the NIC flow table capabilities (QUERY_HCA_CAP through DevX,
 * mlx5_devx_cmd_query_hca_attr()). A device that is no mlx5dv device has
 * neither query: its verbs provider decides about MPLS specs, and IHL is
 * a matcher field only.
 */
static void
vsteer_probe_parser(const char *name, struct vsteer_priv *priv)
{
	uint8_t in[VSTEER_PRM_QUERY_HCA_CAP_IN_BYTES];
	struct vsteer_dv_ft_caps caps;
	struct mlx5dv_context dv;
	void *out;
	int ret;

	priv->mpls_ok = !priv->dv_ok;
	if (priv->dv_ok) {
		memset(&dv, 0, sizeof(dv));
		dv.comp_mask = MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS;
		ret = priv->glue->dv_query_device(priv->ctx, &dv);
		if (ret == 0 &&
		    (dv.comp_mask & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS))
			priv->mpls_ok =
				(dv.tunnel_offloads_caps &
				 MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE) &&
				(dv.tunnel_offloads_caps &
				 MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP);
		else if (ret != 0)
			INIT_LOG(INFO, "%s: mlx5dv_query_device(%s): %s", name,
				 priv->ibdev_name, strerror(ret));
	}
	priv->ihl_ok = 0;
	priv->ihl_inner_ok = 0;
	/* Without the query, what DPDK's mlx5 assumes for the root tables:
	 * 16 modify actions (MLX5_ROOT_TBL_MODIFY_NUM), 132-byte headers
	 * (MLX5_ENCAP_MAX_LEN); the device refuses more when the actions are
	 * made. */
	priv->max_modify_rx = VSTEER_MODIFY_ACTIONS_ASSUMED;
	priv->max_modify_tx = VSTEER_MODIFY_ACTIONS_ASSUMED;
	priv->max_encap = VSTEER_ENCAP_BYTES_ASSUMED;
	if (!priv->devx_ok)
		return;
	/* 4 KiB of capability page: not on the stack. */
	out = calloc(1, VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES);
	if (out == NULL)
		return;
	vsteer_dv_cmd_query_ft_caps(in);
	ret = priv->glue->devx_general_cmd(priv->ctx, in, sizeof(in), out,
					   VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES);
	if (ret == 0)
		ret = -vsteer_dv_cmd_query_ft_caps_parse(
			out, VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES, &caps);
	if (ret == 0) {
		priv->ihl_ok = caps.ihl_outer;
		priv->ihl_inner_ok = caps.ihl_inner;
		priv->max_modify_rx = caps.max_modify_rx;
		priv->max_modify_tx = caps.max_modify_tx;
		priv->max_encap = caps.max_encap;
	} else {
		INIT_LOG(INFO,
			 "%s: %s: flow table capabilities (QUERY_HCA_CAP): %s",
			 name, priv->ibdev_name, strerror(ret));
	}
	free(out);
}

/*
 * Does a hash QP have states? mlx4 moves one INIT -> RTR before it
 * receives (DPDK's mlx4_rss_attach()); libmlx5 refuses any modify of a
 * hash QP, which works as created: EOPNOTSUPP in rdma-core 44
 * (mlx5_modify_qp(): "if (mqp->rss_qp)"), ENOSYS before 28. A device that
 * takes INIT gets both steps on every hash QP (vsteer_hash_qp_ready()).
 */
static int
vsteer_probe_hash_qp_states(const char *name, struct vsteer_priv *priv,
			    struct ibv_qp *qp)
{
	struct ibv_qp_attr mod;
	int ret;

	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_INIT;
	mod.port_num = priv->port_num;
	ret = priv->glue->modify_qp(qp, &mod, IBV_QP_STATE | IBV_QP_PORT);
	if (ret == 0) {
		priv->hash_qp_rtr = 1;
		return 0;
	}
	if (ret == EOPNOTSUPP || ret == ENOSYS) {
		priv->hash_qp_rtr = 0;
		return 0;
	}
	INIT_LOG(ERR, "%s: %s: a hash QP to INIT: %s", name, priv->ibdev_name,
		 strerror(ret));
	return -ret;
}

/*
 * Capabilities that no query reports: ask the device by trying, as DPDK
 * mlx5 does. The rules match no frame and live for the probe only.
 *   tag_ok, count_ok  a CQ-ex reading flow tags, an ibv_counters;
 *   tunnel_qp_ok      a hash QP with tunnel offloads (mlx5dv);
 *   inner_rss_ok      a hash QP hashing inner headers (rss_caps offered);
 *   max_verbs_prio    16 or 8 verbs priorities (flow_verbs_discover_
 *                     priorities(): a rule at 15, else at 7; older mlx5
 *                     kernels have 8, ENOMEM above);
 *   verbs_esp_ok      a rule with IBV_FLOW_SPEC_ESP (current mlx5 kernels
 *                     refuse it: EOPNOTSUPP);
 *   egress_ok         a rule with IBV_FLOW_ATTR_FLAGS_EGRESS;
 *   hash_qp_rtr       a hash QP taken to INIT (mlx5 refuses it);
 *   tx_*              the largest send queues (vsteer_tx_probe()).
 * Returns 0, or a negative errno when the device cannot steer at all.
 */
static int
vsteer_probe_caps(const char *name, struct vsteer_priv *priv)
{
	static const uint16_t vprio[] = { VSTEER_VERBS_PRIOS_MIN, 16 };
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_counters_init_attr cnt_attr;
	struct vsteer_probe_rule rule;
	struct vsteer_scratch sc;
	struct ibv_counters *cnt;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	unsigned int i;
	int ret;

	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = 1;
	cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG;
	cq = ibv_create_cq_ex(priv->ctx, &cq_attr);
	if (cq != NULL) {
		priv->tag_ok = 1;
		priv->glue->destroy_cq(ibv_cq_ex_to_cq(cq));
	}
	memset(&cnt_attr, 0, sizeof(cnt_attr));
	cnt = ibv_create_counters(priv->ctx, &cnt_attr);
	if (cnt != NULL) {
		priv->count_ok = 1;
		ibv_destroy_counters(cnt);
	}
	ret = vsteer_scratch_init(priv, &sc);
	if (ret != 0) {
		INIT_LOG(ERR,
			 "%s: %s: cannot make a receive hash QP (WQ, indirection table, RSS QP): %s",
			 name, priv->ibdev_name, strerror(-ret));
		return ret;
	}
	ret = vsteer_probe_hash_qp_states(name, priv, sc.qp);
	if (ret != 0) {
		vsteer_scratch_free(priv, &sc);
		return ret;
	}
	if (priv->dev_attr.rss_caps.rx_hash_fields_mask & IBV_RX_HASH_INNER) {
		qp = vsteer_hash_qp_create(priv, sc.ind, priv->rss_key,
					   IBV_RX_HASH_INNER |
						   IBV_RX_HASH_SRC_IPV4 |
						   IBV_RX_HASH_DST_IPV4,
					   VSTEER_RSS_TUNNEL);
		if (qp != NULL) {
			priv->inner_rss_ok = 1;
			priv->glue->destroy_qp(qp);
		}
	}
	priv->max_verbs_prio = 0;
	for (i = 0; i < RTE_DIM(vprio); i++) {
		vsteer_probe_rule_init(priv, &rule, vprio[i] - 1, 0, false);
		ret = vsteer_probe_rule_try(priv, sc.qp, &rule);
		if (ret != 0)
			break;
		priv->max_verbs_prio = vprio[i] - 1;
	}
	if (i == 0) {
		INIT_LOG(ERR,
			 "%s: %s: a verbs flow rule at priority %u: %s (%s)",
			 name, priv->ibdev_name, vprio[0] - 1, strerror(ret),
			 ret == EPERM || ret == EACCES ?
				 "raw packet flows need CAP_NET_RAW" :
				 "the driver needs at least 8 verbs priorities");
		vsteer_scratch_free(priv, &sc);
		return -ret;
	}
	vsteer_probe_rule_init(priv, &rule, 0, 0, true);
	ret = vsteer_probe_rule_try(priv, sc.qp, &rule);
	priv->verbs_esp_ok = ret == 0;
	vsteer_probe_rule_init(priv, &rule, 0, IBV_FLOW_ATTR_FLAGS_EGRESS,
			       false);
	priv->egress_ok = vsteer_probe_rule_try(priv, sc.qp, &rule) == 0;
	vsteer_scratch_free(priv, &sc);
	vsteer_probe_parser(name, priv);
	ret = vsteer_tx_probe(priv);
	if (ret != 0) {
		INIT_LOG(ERR, "%s: %s: no send queue of %u WRs or more: %s",
			 name, priv->ibdev_name, VSTEER_DESC_MIN,
			 strerror(-ret));
		return ret;
	}
	INIT_LOG(DEBUG,
		 "%s: %u verbs priorities, DevX %d, tunnel QPs %d, inner RSS %d, verbs ESP %d, egress %d, hash QP states %d, MPLS over GRE/UDP %d, IPv4 IHL %d/%d, send queues of %u WRs, %u with %u SGEs, TSO %u and %u, modify actions %u/%u, reformat header %u bytes",
		 name, priv->max_verbs_prio + 1, priv->devx_ok,
		 priv->tunnel_qp_ok, priv->inner_rss_ok, priv->verbs_esp_ok,
		 priv->egress_ok, priv->hash_qp_rtr, priv->mpls_ok,
		 priv->ihl_ok, priv->ihl_inner_ok, priv->tx_wr_max,
		 priv->tx_wr_max_sges, priv->tx_sge_max, priv->tx_wr_max_tso,
		 priv->tx_wr_max_tso_sges, priv->max_modify_rx,
		 priv->max_modify_tx, priv->max_encap);
	return 0;
}

static uint16_t
vsteer_ibv_mtu_bytes(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256:
		return 256;
	case IBV_MTU_512:
		return 512;
	case IBV_MTU_1024:
		return 1024;
	case IBV_MTU_2048:
		return 2048;
	case IBV_MTU_4096:
		return 4096;
	default:
		return 0;
	}
}

static int
vsteer_priv_init(const char *name, struct vsteer_priv *priv,
		 const struct vsteer_args *a, int is_mlx5dv, int devx)
{
	const struct ibv_rss_caps *rc;
	uint64_t fields;
	int ret;

	ret = priv->glue->query_device_ex(priv->ctx, NULL, &priv->dev_attr);
	if (ret != 0) {
		INIT_LOG(ERR, "%s: query_device_ex(%s): %s", name,
			 priv->ibdev_name, strerror(ret));
		return -ret;
	}
	if (a->port > priv->dev_attr.orig_attr.phys_port_cnt) {
		INIT_LOG(ERR, "%s: port=%lu: device %s has %u port(s)", name,
			 a->port, priv->ibdev_name,
			 priv->dev_attr.orig_attr.phys_port_cnt);
		return -EINVAL;
	}
	priv->port_num = (uint8_t)a->port;
	ret = priv->glue->query_port(priv->ctx, priv->port_num,
				     &priv->port_attr);
	if (ret != 0) {
		INIT_LOG(ERR, "%s: query_port(%s, %u): %s", name,
			 priv->ibdev_name, priv->port_num, strerror(ret));
		return -ret;
	}
	if (priv->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET &&
	    priv->port_attr.link_layer != IBV_LINK_LAYER_UNSPECIFIED) {
		INIT_LOG(ERR, "%s: %s port %u is not an Ethernet port", name,
			 priv->ibdev_name, priv->port_num);
		return -ENOTSUP;
	}
	priv->max_sge = RTE_MAX(priv->dev_attr.orig_attr.max_sge, 1);
	priv->max_wr = RTE_MAX(priv->dev_attr.orig_attr.max_qp_wr, 1);
	rc = &priv->dev_attr.rss_caps;
	fields = rc->rx_hash_fields_mask;
	priv->rss_hf_supported = vsteer_rss_hf_supported(fields);
	priv->ind_tbl_max = rc->max_rwq_indirection_table_size;
	if (priv->ind_tbl_max == 0)
		priv->ind_tbl_max = 1;
	priv->ind_tbl_max = rte_align32prevpow2(priv->ind_tbl_max);
	priv->reta_size =
		(uint16_t)RTE_MIN(priv->ind_tbl_max, (uint32_t)VSTEER_RETA_MAX);
	priv->tx_csum = (priv->dev_attr.raw_packet_caps &
			 IBV_RAW_PACKET_CAP_IP_CSUM) != 0;
	/* What libmlx5 takes for IBV_WR_TSO on a raw packet QP (max_tso
	 * from tso_caps), and a device clock for completion timestamps, as
	 * DPDK's mlx5 reads them (mlx5_os_capabilities_prepare()). */
	priv->tso_ok = priv->dev_attr.tso_caps.max_tso > 0 &&
		       (priv->dev_attr.tso_caps.supported_qpts &
			(1u << IBV_QPT_RAW_PACKET)) != 0;
	priv->max_tso = priv->tso_ok ? priv->dev_attr.tso_caps.max_tso : 0;
	priv->ts_ok = priv->dev_attr.completion_timestamp_mask != 0 &&
		      priv->dev_attr.hca_core_clock != 0;
	priv->dv_ok = is_mlx5dv != 0;
	priv->devx_ok = devx != 0;
	priv->min_mtu = RTE_ETHER_MIN_MTU;
	priv->max_mtu = RTE_MAX(vsteer_ibv_mtu_bytes(priv->port_attr.max_mtu),
				(uint16_t)RTE_ETHER_MTU);
	switch (a->engine) {
	case VSTEER_ENGINE_ARG_DV:
		if (!is_mlx5dv) {
			INIT_LOG(ERR,
				 "%s: flow_engine=dv: %s is not an mlx5dv device",
				 name, priv->ibdev_name);
			return -ENOTSUP;
		}
		priv->flow_engine = VSTEER_FLOW_ENGINE_DV;
		break;
	case VSTEER_ENGINE_ARG_VERBS:
		priv->flow_engine = VSTEER_FLOW_ENGINE_VERBS;
		break;
	default:
		priv->flow_engine = is_mlx5dv ? VSTEER_FLOW_ENGINE_DV :
						VSTEER_FLOW_ENGINE_VERBS;
		priv->flow_engine_auto = 1;
		break;
	}
	return vsteer_probe_caps(name, priv);
}

void
vsteer_ctl_lock_init(struct vsteer_priv *priv)
{
	pthread_mutexattr_t attr;

	RTE_VERIFY(pthread_mutexattr_init(&attr) == 0);
	RTE_VERIFY(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK) ==
		   0);
	RTE_VERIFY(pthread_mutex_init(&priv->ctl_lock, &attr) == 0);
	pthread_mutexattr_destroy(&attr);
	priv->ctl_owner = 0;
}

void (*vsteer_ctl_unheld_hook)(const char *func);

bool
vsteer_ctl_held(struct vsteer_priv *priv)
{
	int ret;

	if (__atomic_load_n(&priv->ctl_owner, __ATOMIC_RELAXED) != rte_gettid())
		return false;
	/* The owner alone would say yes to a lock that never locked the
	 * mutex: a locked mutex refuses a try, even to its owner. */
	ret = pthread_mutex_trylock(&priv->ctl_lock);
	if (ret == 0) {
		pthread_mutex_unlock(&priv->ctl_lock);
		return false;
	}
	return ret == EBUSY || ret == EDEADLK;
}

void
vsteer_ctl_unheld(const struct vsteer_priv *priv, const char *func)
{
	if (vsteer_ctl_unheld_hook != NULL) {
		vsteer_ctl_unheld_hook(func);
		return;
	}
	rte_panic("%s(): port %u: called without the port's control lock\n",
		  func, priv->data != NULL ? priv->data->port_id : 0);
}

/*
 * A secondary process attaches to the port the primary made: the shared
 * data is there already, nothing of the device is (see vsteer_mp.c). It
 * gets the ops that read what is shared (statistics, information) and no
 * bursts: the queues' device objects live in the primary's private
 * memory. Packet capture (dpdk-pdump) works all the same: its callbacks
 * run in the primary's bursts.
 */
static int
vsteer_probe_secondary(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *eth_dev;

	eth_dev = rte_eth_dev_attach_secondary(name);
	if (eth_dev == NULL) {
		INIT_LOG(ERR, "%s: the primary process has no such port", name);
		return -ENODEV;
	}
	eth_dev->device = &vdev->device;
	eth_dev->dev_ops = &vsteer_dev_ops_secondary;
	eth_dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	eth_dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	eth_dev->rx_queue_count = NULL;
	eth_dev->rx_descriptor_status = NULL;
	eth_dev->tx_descriptor_status = NULL;
	rte_eth_dev_probing_finish(eth_dev);
	INIT_LOG(INFO,
		 "%s: port %u attached in a secondary process (statistics and information; no Rx/Tx here)",
		 name, eth_dev->data->port_id);
	return 0;
}

static int
vsteer_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *eth_dev = NULL;
	struct vsteer_priv *priv;
	struct vsteer_args a;
	const struct vsteer_glue *glue;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	char soft_name[64] = "";
	const char *ibdev;
	uint8_t mac[RTE_ETHER_ADDR_LEN];
	int is_mlx5dv = 0, devx = 0;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return vsteer_probe_secondary(vdev);
	ret = vsteer_args_parse(name, rte_vdev_device_args(vdev), &a);
	if (ret != 0)
		return ret;
	if (vsteer_is_soft(a.dev)) {
		glue = &vsteer_glue_soft;
		ret = vsteer_soft_create(name, &a, soft_name,
					 sizeof(soft_name));
		if (ret != 0)
			return ret;
		ibdev = soft_name;
	} else {
		glue = &vsteer_glue_rdma;
		if (a.soft_key != NULL) {
			INIT_LOG(ERR,
				 "%s: %s= applies to softverbs devices (soft:, xdp:, mem:), not to %s",
				 name, a.soft_key, a.dev);
			return -EINVAL;
		}
		ibdev = a.dev;
	}
	ctx = vsteer_open(name, glue, ibdev, a.dev, &is_mlx5dv, &devx);
	if (ctx == NULL) {
		ret = -rte_errno;
		goto err;
	}
	pd = glue->alloc_pd(ctx);
	if (pd == NULL) {
		ret = -(errno ? errno : ENOMEM);
		INIT_LOG(ERR, "%s: alloc_pd(%s): %s", name, ibdev,
			 strerror(-ret));
		goto err;
	}
	eth_dev = rte_eth_vdev_allocate(vdev, sizeof(*priv));
	if (eth_dev == NULL) {
		INIT_LOG(ERR, "%s: cannot allocate the ethdev", name);
		ret = -ENOMEM;
		goto err;
	}
	priv = eth_dev->data->dev_private;
	priv->data = eth_dev->data;
	vsteer_ctl_lock_init(priv);
	priv->glue = glue;
	priv->ctx = ctx;
	priv->pd = pd;
	snprintf(priv->ibdev_name, sizeof(priv->ibdev_name), "%s", ibdev);
	TAILQ_INIT(&priv->rss_list);
	TAILQ_INIT(&priv->defflows);
	vsteer_age_init(priv);
	/* The probes' hash QPs take the key too. */
	memcpy(priv->rss_key, vsteer_flow_rss_key_default, VSTEER_RSS_KEY_LEN);
	ret = vsteer_priv_init(name, priv, &a, is_mlx5dv, devx);
	if (ret != 0)
		goto err;
	ret = glue->port_mac(ctx, priv->port_num, mac);
	if (ret != 0 && !a.mac_given) {
		INIT_LOG(ERR, "%s: MAC address of %s port %u: %s (give mac=)",
			 name, ibdev, priv->port_num, strerror(ret));
		ret = -ret;
		goto err;
	}
	eth_dev->data->mac_addrs =
		rte_zmalloc(name,
			    VSTEER_MAX_MAC * sizeof(struct rte_ether_addr), 0);
	if (eth_dev->data->mac_addrs == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	if (a.mac_given)
		eth_dev->data->mac_addrs[0] = a.mac;
	else
		memcpy(eth_dev->data->mac_addrs[0].addr_bytes, mac,
		       RTE_ETHER_ADDR_LEN);
	vsteer_mr_init(priv);
	vsteer_reta_default(eth_dev);
	vsteer_ethdev_init(eth_dev);
	ret = vsteer_intr_init(eth_dev);
	if (ret != 0)
		goto err;
	/* Port counters start from zero for this port. */
	if (vsteer_port_counters_read(priv, &priv->cnt_base) != 0)
		memset(&priv->cnt_base, 0, sizeof(priv->cnt_base));
	/* Only set soft_name once the device is ours to remove at close. */
	snprintf(priv->soft_name, sizeof(priv->soft_name), "%s", soft_name);
	eth_dev->dev_ops = &vsteer_dev_ops;
	eth_dev->rx_pkt_burst = vsteer_rx_burst;
	eth_dev->tx_pkt_burst = vsteer_tx_burst;
	/* Flow ops and the control paths share the port's lock. */
	eth_dev->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS |
				    RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE;
	/* Secondary processes may ask for the device's counters. */
	vsteer_mp_primary_init();
	rte_eth_dev_probing_finish(eth_dev);
	INIT_LOG(INFO,
		 "%s: port %u on %s device %s port %u, MAC " RTE_ETHER_ADDR_PRT_FMT
		 ", flow engine %s",
		 name, eth_dev->data->port_id, glue->name, ibdev,
		 priv->port_num,
		 RTE_ETHER_ADDR_BYTES(&eth_dev->data->mac_addrs[0]),
		 vsteer_flow_engine_desc(priv));
	return 0;
err:
	if (eth_dev != NULL)
		rte_eth_dev_release_port(eth_dev);
	if (pd != NULL)
		glue->dealloc_pd(pd);
	if (ctx != NULL)
		glue->close_device(ctx);
	if (soft_name[0] != '\0')
		vsteer_soft_device_remove(soft_name);
	return ret;
}

static int
vsteer_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *eth_dev;

	eth_dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (eth_dev == NULL)
		return 0; /* already closed */
	vsteer_dev_close(eth_dev);
	return rte_eth_dev_release_port(eth_dev);
}

static struct rte_vdev_driver vsteer_vdev_driver = {
	.probe = vsteer_probe,
	.remove = vsteer_remove,
};

#define VSTEER_DRIVER_NAME "net_vsteer"
#define VSTEER_PARAMS                                                          \
	VSTEER_ARG_DEV                                                         \
	"=<mlx5_0|soft:ifname|xdp:ifname|mem:link> " VSTEER_ARG_PORT           \
	"=<int> " VSTEER_ARG_PROFILE "=<generic|mlx5> " VSTEER_ARG_FLOW_ENGINE \
	"=<auto|verbs|dv> " VSTEER_ARG_MAC                                     \
	"=<mac addr> " VSTEER_ARG_SV_FLOW_PRIOS "=<1-16> " VSTEER_ARG_SV_DEVX  \
	"=<0|1> " VSTEER_ARG_SV_TUNNEL "=<0|1> " VSTEER_ARG_SV_EGRESS          \
	"=<0|1> " VSTEER_ARG_SV_IHL "=<0|1> " VSTEER_ARG_SV_FLEX               \
	"=<0|1> " VSTEER_ARG_SV_MODIFY "=<1-255>"
#define VSTEER_KMOD "* ib_uverbs & mlx5_core & mlx5_ib"

/*
 * Registration, as RTE_PMD_REGISTER_VDEV() does, unless a driver of the
 * name is registered already: another copy of this driver in the process.
 * That happens when a driver is installed in the plugin directory, which
 * EAL loads every time, and a build of it is loaded with -d as well (or
 * is built into the program): EAL loads the -d objects before the plugin
 * directory, so the copy asked for by name is the one that probes, and
 * the other one says so and stays out of the way.
 */
RTE_INIT(vsteer_register)
{
	struct rte_vdev_driver *other = NULL;
	struct rte_bus *bus = rte_bus_find_by_name("vdev");
	Dl_info mine, theirs;
	int lt;

	if (bus != NULL && bus->parse != NULL &&
	    bus->parse(VSTEER_DRIVER_NAME, &other) == 0 && other != NULL &&
	    strcmp(other->driver.name, VSTEER_DRIVER_NAME) == 0) {
		/* The log types may not be registered yet in this copy. */
		lt = rte_log_register_type_and_pick_level(
			RTE_STR(RTE_LOG_DEFAULT_LOGTYPE) ".init",
			RTE_LOG_NOTICE);
		if (dladdr(other, &theirs) == 0 || theirs.dli_fname == NULL)
			theirs.dli_fname = "?";
		if (dladdr(&vsteer_vdev_driver, &mine) == 0 ||
		    mine.dli_fname == NULL)
			mine.dli_fname = "?";
		rte_log(RTE_LOG_NOTICE, lt < 0 ? RTE_LOGTYPE_PMD : (uint32_t)lt,
			"%s: using the driver of %s; the copy in %s is not used\n",
			VSTEER_DRIVER_NAME,
			theirs.dli_fname[0] ? theirs.dli_fname : "the program",
			mine.dli_fname);
		return;
	}
	vsteer_vdev_driver.driver.name = VSTEER_DRIVER_NAME;
	rte_vdev_register(&vsteer_vdev_driver);
}

RTE_PMD_EXPORT_NAME(net_vsteer, __COUNTER__);
RTE_PMD_REGISTER_PARAM_STRING(net_vsteer, VSTEER_PARAMS);
RTE_PMD_REGISTER_KMOD_DEP(net_vsteer, VSTEER_KMOD);

/* What dpdk-pmdinfo.py reads in a driver (DPDK's build makes it with
 * buildtools/pmdinfogen.py, which an out-of-tree driver does not have):
 * dpdk-pmdinfo.py -p dpdk-testpmd lists the drivers of the plugin
 * directory, this one among them once installed. */
static const char vsteer_pmd_info[] __rte_used =
	"PMD_INFO_STRING= {\"name\": \"" VSTEER_DRIVER_NAME
	"\", \"params\": \"" VSTEER_PARAMS "\", \"kmod\": \"" VSTEER_KMOD
	"\", \"pci_ids\": []}";
