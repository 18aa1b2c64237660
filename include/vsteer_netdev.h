/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_NETDEV_H
#define VSTEER_NETDEV_H

/*
 * Queries of a Linux network interface by name, shared by softverbs' packet
 * wire (its interface) and the driver's rdma-core glue (the netdev bound to
 * an RDMA port): the MTU (SIOCGIFMTU / SIOCSIFMTU, as DPDK's mlx4 and mlx5
 * set it), the largest MTU the interface takes (rtnetlink IFLA_MAX_MTU, what
 * "ip -d link" shows as maxmtu) and the link speed and duplex (ethtool).
 * Control path only: each call opens its own socket. Each returns 0 or a
 * positive errno. No DPDK or verbs dependency on purpose.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

struct vsteer_netdev_link {
	uint32_t speed_mbps; /* 0: unknown */
	bool full_duplex;
	bool autoneg;
};

static inline int
vsteer_netdev_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd, rc = 0;

	if (ifname == NULL || ifname[0] == '\0' || strlen(ifname) >= IFNAMSIZ)
		return ENODEV;
	memcpy(ifr->ifr_name, ifname, strlen(ifname) + 1);
	/* Interface ioctls work on any socket; AF_UNIX needs no network
	 * family. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (ioctl(fd, req, ifr) != 0)
		rc = errno;
	close(fd);
	return rc;
}

static inline int
vsteer_netdev_mtu(const char *ifname, unsigned int *mtu)
{
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	rc = vsteer_netdev_ioctl(ifname, SIOCGIFMTU, &ifr);
	if (rc == 0)
		*mtu = (unsigned int)ifr.ifr_mtu;
	return rc;
}

/* EINVAL when the interface refuses the value, EPERM without
 * CAP_NET_ADMIN. */
static inline int
vsteer_netdev_set_mtu(const char *ifname, unsigned int mtu)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_mtu = (int)mtu;
	return vsteer_netdev_ioctl(ifname, SIOCSIFMTU, &ifr);
}

/* The interface's largest MTU; 0 when the kernel does not say
 * (IFLA_MAX_MTU appeared in Linux 4.19). */
static inline int
vsteer_netdev_max_mtu(const char *ifname, unsigned int *max_mtu)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct rtattr ext;
		uint32_t ext_mask;
	} req;
	struct sockaddr_nl sa;
	struct nlmsghdr *nh;
	char buf[16384];
	unsigned int ifindex;
	ssize_t n;
	int fd, rc = ENOENT;

	*max_mtu = 0;
	ifindex = if_nametoindex(ifname);
	if (ifindex == 0)
		return ENODEV;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return errno;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = (int)ifindex;
	/* No statistics: a small answer. */
	req.ext.rta_type = IFLA_EXT_MASK;
	req.ext.rta_len = RTA_LENGTH(sizeof(uint32_t));
	req.ext_mask = RTEXT_FILTER_SKIP_STATS;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		rc = errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		rc = errno;
		goto out;
	}
	for (nh = (struct nlmsghdr *)(void *)buf; NLMSG_OK(nh, (size_t)n);
	     nh = NLMSG_NEXT(nh, n)) {
		struct rtattr *rta;
		int alen;

		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);

			rc = e->error < 0 ? -e->error : EIO;
			break;
		}
		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;
		rc = 0;
		rta = IFLA_RTA(NLMSG_DATA(nh));
		alen = (int)IFLA_PAYLOAD(nh);
		for (; RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen)) {
			if (rta->rta_type == IFLA_MAX_MTU &&
			    RTA_PAYLOAD(rta) >= sizeof(uint32_t))
				memcpy(max_mtu, RTA_DATA(rta),
				       sizeof(uint32_t));
		}
		break;
	}
out:
	close(fd);
	return rc;
}

/* Speed and duplex as ethtool reports them (veth: 10000 Mb/s, full). */
static inline int
vsteer_netdev_link(const char *ifname, struct vsteer_netdev_link *link)
{
	struct ethtool_cmd ecmd;
	struct ifreq ifr;
	uint32_t speed;
	int rc;

	memset(link, 0, sizeof(*link));
	memset(&ifr, 0, sizeof(ifr));
	memset(&ecmd, 0, sizeof(ecmd));
	ecmd.cmd = ETHTOOL_GSET;
	ifr.ifr_data = (void *)&ecmd;
	rc = vsteer_netdev_ioctl(ifname, SIOCETHTOOL, &ifr);
	if (rc != 0)
		return rc;
	speed = (uint32_t)ecmd.speed_hi << 16 | ecmd.speed;
	link->speed_mbps = speed == (uint32_t)SPEED_UNKNOWN ? 0 : speed;
	link->full_duplex = ecmd.duplex == DUPLEX_FULL;
	link->autoneg = ecmd.autoneg == AUTONEG_ENABLE;
	return 0;
}

#endif /* VSTEER_NETDEV_H */
