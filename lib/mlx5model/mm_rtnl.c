/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * A modelled port's netdev as route netlink shows it. mlx5e gives the
 * netdev of a ConnectX-5 port the MTU range the port takes (max_mtu
 * 9978: mlx5e_build_nic_netdev(), Linux 6.1). The netdev the model
 * presents is either a Linux interface, the port's wire, whose own range
 * may be wider (a veth takes 65535), or, on an in-memory link, the
 * model's own, which no kernel knows. So on the process's route sockets:
 *   - RTM_NEWLINK answers about a wire interface get IFLA_MAX_MTU
 *     lowered to the port's;
 *   - an RTM_GETLINK of one in-memory link's netdev (by index or name)
 *     is answered by the model: the link message the kernel would send
 *     (index, name, flags, address, MTU range), then the acknowledgement
 *     when asked for.
 * A dump (NLM_F_DUMP) goes to the kernel and lists Linux interfaces only.
 * The model's answer waits in the socket's state, not in the socket: a
 * caller that polls before it receives does not see it.
 */

#include <errno.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mm_internal.h"

struct mm_rtnl {
	pthread_mutex_t lock;
	size_t len; /* the answer waiting, 0: none */
	uint8_t buf[512];
};

void
mm_rtnl_open(int fd)
{
	struct mm_rtnl *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return; /* the kernel's answers, unchanged */
	pthread_mutex_init(&r->lock, NULL);
	mm_fd_set(fd, MM_FD_RTNL, r);
}

void
mm_rtnl_close(int fd)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);

	if (r == NULL)
		return;
	mm_fd_clear(fd);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Append an attribute; the buffer is large enough for what is put. */
static size_t
mm_rta_put(uint8_t *msg, size_t off, uint16_t type, const void *data,
	   size_t len)
{
	struct rtattr *rta = (struct rtattr *)(void *)(msg + off);

	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	return off + RTA_ALIGN(rta->rta_len);
}

static size_t
mm_rta_u32(uint8_t *msg, size_t off, uint16_t type, uint32_t v)
{
	return mm_rta_put(msg, off, type, &v, sizeof(v));
}

/* rtnl_getlink()'s answer for a modelled netdev: one RTM_NEWLINK. */
static size_t
mm_rtnl_link_msg(struct mm_dev *dev, const struct nlmsghdr *req, uint8_t *msg)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(void *)msg;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	unsigned int mtu = 0, max = 0;
	struct sv_port_link link;
	size_t off;

	if (mm_netdev_mtu(dev, &mtu, &max) != 0 ||
	    softverbs_port_link(dev->kctx, 1, &link) != 0)
		return 0;
	memset(msg, 0, NLMSG_LENGTH(sizeof(*ifi)));
	nh->nlmsg_type = RTM_NEWLINK;
	nh->nlmsg_seq = req->nlmsg_seq;
	nh->nlmsg_pid = req->nlmsg_pid;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_type = ARPHRD_ETHER;
	ifi->ifi_index = mm_dev_ifindex(dev);
	ifi->ifi_flags = IFF_UP | IFF_BROADCAST | IFF_MULTICAST |
			 (link.up ? IFF_RUNNING | IFF_LOWER_UP : 0);
	off = NLMSG_LENGTH(sizeof(*ifi));
	off = mm_rta_put(msg, off, IFLA_IFNAME, dev->netdev,
			 strlen(dev->netdev) + 1);
	off = mm_rta_put(msg, off, IFLA_ADDRESS, dev->mac, sizeof(dev->mac));
	off = mm_rta_u32(msg, off, IFLA_MTU, mtu);
	off = mm_rta_u32(msg, off, IFLA_MIN_MTU, 68);
	off = mm_rta_u32(msg, off, IFLA_MAX_MTU, max);
	nh->nlmsg_len = (uint32_t)off;
	return NLMSG_ALIGN(off);
}

/* The device an RTM_GETLINK names (ifi_index, else IFLA_IFNAME), when
 * its netdev is the model's own. */
static struct mm_dev *
mm_rtnl_getlink_dev(const struct nlmsghdr *req)
{
	/* Read only; the netlink macros take no const. */
	struct nlmsghdr *nh = (struct nlmsghdr *)(uintptr_t)req;
	struct ifinfomsg *ifi;
	struct rtattr *rta;
	struct mm_dev *dev = NULL;
	int alen;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    nh->nlmsg_type != RTM_GETLINK || (nh->nlmsg_flags & NLM_F_DUMP))
		return NULL;
	ifi = NLMSG_DATA(nh);
	if (ifi->ifi_index > 0) {
		dev = mm_dev_by_ifindex(ifi->ifi_index);
	} else {
		rta = IFLA_RTA(ifi);
		alen = (int)IFLA_PAYLOAD(nh);
		for (; RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen))
			if (rta->rta_type == IFLA_IFNAME &&
			    strnlen(RTA_DATA(rta), RTA_PAYLOAD(rta)) <
				    RTA_PAYLOAD(rta))
				dev = mm_dev_by_netdev(RTA_DATA(rta));
	}
	return dev != NULL && dev->netdev_modelled ? dev : NULL;
}

bool
mm_rtnl_request(struct mm_rtnl *r, const void *buf, size_t len)
{
	const struct nlmsghdr *nh = buf;
	struct nlmsgerr *e;
	struct nlmsghdr *ack;
	struct mm_dev *dev;
	size_t n;

	if (len < sizeof(*nh) || nh->nlmsg_len > len)
		return false;
	dev = mm_rtnl_getlink_dev(nh);
	if (dev == NULL)
		return false;
	pthread_mutex_lock(&r->lock);
	n = mm_rtnl_link_msg(dev, nh, r->buf);
	if (n != 0 && (nh->nlmsg_flags & NLM_F_ACK)) {
		ack = (struct nlmsghdr *)(void *)(r->buf + n);
		memset(ack, 0, NLMSG_LENGTH(sizeof(*e)));
		ack->nlmsg_len = NLMSG_LENGTH(sizeof(*e));
		ack->nlmsg_type = NLMSG_ERROR;
		ack->nlmsg_flags = NLM_F_CAPPED;
		ack->nlmsg_seq = nh->nlmsg_seq;
		ack->nlmsg_pid = nh->nlmsg_pid;
		e = NLMSG_DATA(ack);
		memcpy(&e->msg, nh, sizeof(*nh));
		n += NLMSG_ALIGN(ack->nlmsg_len);
	}
	r->len = n;
	pthread_mutex_unlock(&r->lock);
	/* A device that cannot come up: the kernel says what it knows. */
	return n != 0;
}

ssize_t
mm_rtnl_answer(struct mm_rtnl *r, void *buf, size_t len, int flags)
{
	ssize_t rc = -1;
	size_t n;

	pthread_mutex_lock(&r->lock);
	if (r->len != 0) {
		n = len < r->len ? len : r->len;
		memcpy(buf, r->buf, n);
		/* A datagram: MSG_TRUNC asks for its real length. */
		rc = (ssize_t)((flags & MSG_TRUNC) ? r->len : n);
		if (!(flags & MSG_PEEK))
			r->len = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void
mm_rtnl_received(void *buf, size_t len)
{
	struct nlmsghdr *nh = buf;
	struct ifinfomsg *ifi;
	struct rtattr *rta;
	struct mm_dev *dev;
	uint32_t v, max;
	int alen;

	for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
		if (nh->nlmsg_type != RTM_NEWLINK ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
			continue;
		ifi = NLMSG_DATA(nh);
		dev = mm_dev_by_ifindex(ifi->ifi_index);
		if (dev == NULL)
			continue;
		max = dev->caps->netdev_max_mtu;
		rta = IFLA_RTA(ifi);
		alen = (int)IFLA_PAYLOAD(nh);
		for (; RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen)) {
			if (rta->rta_type != IFLA_MAX_MTU ||
			    RTA_PAYLOAD(rta) < sizeof(v))
				continue;
			memcpy(&v, RTA_DATA(rta), sizeof(v));
			if (v > max)
				memcpy(RTA_DATA(rta), &max, sizeof(max));
		}
	}
}
