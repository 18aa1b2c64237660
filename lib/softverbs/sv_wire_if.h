/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_WIRE_IF_H
#define SV_WIRE_IF_H

/*
 * What the wires on a Linux interface, AF_PACKET (sv_wire_packet.c) and
 * AF_XDP (sv_wire_xdp.c), ask of it alike. For those two files only.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <net/if.h>
#include <sys/ioctl.h>

#include "sv_wire.h"
#include "vsteer_netdev.h"

/* CLOCK_MONOTONIC in nanoseconds, for the wires' bounded waits. */
static inline int64_t
sv_wire_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The link of interface ifname (IFNAMSIZ bytes) is up when it is IFF_UP and
 * IFF_RUNNING; fd is a socket to ask it on. False when it cannot be read. */
static inline bool
sv_wire_if_up(int fd, const char ifname[IFNAMSIZ])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, IFNAMSIZ);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
		return false;
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
	       (IFF_UP | IFF_RUNNING);
}

/* Speed and duplex of interface ifname (ethtool); without ethtool on the
 * interface, speed unknown and full duplex. */
static inline void
sv_wire_if_link_info(const char *ifname, struct sv_wire_link *link)
{
	struct vsteer_netdev_link nl;

	memset(link, 0, sizeof(*link));
	link->full_duplex = true;
	if (vsteer_netdev_link(ifname, &nl) != 0)
		return; /* no ethtool on the interface: speed unknown */
	link->speed_mbps = nl.speed_mbps;
	link->full_duplex = nl.full_duplex;
	link->autoneg = nl.autoneg;
}

#endif /* SV_WIRE_IF_H */
