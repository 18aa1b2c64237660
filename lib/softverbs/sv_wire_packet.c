/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The "if:<ifname>" wire: a Linux interface through an AF_PACKET socket
 * with TPACKET_V2 rx and tx rings mapped into our memory.
 *
 * Ring geometry: both rings are made of 64 KiB blocks (order-4 kernel
 * allocations, no waste); the rx ring is 8 MiB, the tx ring 4 MiB. The
 * frame size follows the largest MTU the wire has seen, at least 1500:
 * 2 KiB frames up to MTU 1500 (4096 rx / 2048 tx frames), 10 KiB frames
 * for jumbo MTUs up to the largest, 9978 (768 rx / 384 tx frames). Raising the MTU past what the
 * frames hold (through the wire, or on the interface behind its back)
 * rebuilds both rings; frames in flight at that moment are lost, as on a
 * NIC that resets its queues.
 *
 * Frames come with a virtio-net header (PACKET_VNET_HDR): a local sender
 * (a veth peer, a tap) leaves checksums and segmentation to the device,
 * and the header says how (VIRTIO_NET_HDR_F_NEEDS_CSUM, gso_type,
 * gso_size). A frame larger than a ring frame (a 64 KiB TCP super-frame)
 * is queued whole on the socket (PACKET_COPY_THRESH) and read with
 * recvmsg() where the ring says TP_STATUS_COPY. Delivered frames are what
 * a NIC would have put on the cable (sv_offload.h). Sent frames carry an
 * empty header: nothing is left to offload.
 *
 * The socket is promiscuous (the device filters by MAC itself, as a NIC
 * does), ignores its own outgoing frames and bypasses the qdisc on tx.
 *
 * For a device that sleeps: the packet socket itself polls readable while
 * frames wait (packet_poll(): the ring frame before the kernel's head is
 * the user's, or whole frames are queued), and a route netlink socket
 * subscribed to link messages says when the interface's carrier or
 * administrative state changes (the link is up when the interface is
 * IFF_UP and IFF_RUNNING, as sv_wire_link_up() reads it).
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "sv_csum.h"
#include "sv_offload.h"
#include "sv_wire.h"
#include "sv_wire_if.h"
#include "vsteer_netdev.h"

#define SV_PKT_BLOCK (64u << 10)
#define SV_PKT_RX_BYTES (8u << 20)
#define SV_PKT_TX_BYTES (4u << 20)
#define SV_PKT_MTU_MAX 9978u  /* an mlx5 netdev's largest */
#define SV_PKT_MTU_RING 1500u /* rings hold at least this MTU */
#define SV_PKT_VLAN_HLEN 4u
#define SV_PKT_VNET_LEN ((unsigned int)sizeof(struct virtio_net_hdr))
/* Where the kernel puts the network header of an rx frame (the MAC header
 * and the virtio-net header sit just before it); tx data starts earlier,
 * so this bounds both. */
#define SV_PKT_HDR_ROOM (TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + SV_PKT_VNET_LEN)
/* Frames beyond a ring frame, read whole: IPv4's 64 KiB, headers, tag. */
#define SV_PKT_BIG (65536u + 256u)
#define SV_PKT_RCVBUF (8 << 20) /* room for the whole frames queued */
/* UDP segmentation (Linux 6.2 uapi; older headers lack the name). */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif
/* Tx frame data offset for TPACKET_V2 without PACKET_TX_HAS_OFF. */
#define SV_PKT_TX_OFF (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
/* Slot wait when the tx ring is full, and kick retries on congestion. */
#define SV_PKT_TX_WAIT_NS 1000000L
#define SV_PKT_KICK_TRIES 32
#define SV_PKT_NL_BUF 16384 /* link messages read at once */

struct sv_pkt_ring {
	uint8_t **frame; /* frame addresses in the mapping */
	unsigned int nr;
	unsigned int head; /* next frame we look at */
};

struct sv_pkt {
	int fd;
	int ifindex;
	char ifname[IFNAMSIZ];
	/* rx_lock: the single consumer vs ring rebuilds; tx_lock: senders. */
	pthread_mutex_t rx_lock;
	pthread_mutex_t tx_lock;
	uint8_t *map;
	size_t map_len;
	unsigned int frame_size; /* 0: no rings */
	struct sv_pkt_ring rx;
	struct sv_pkt_ring tx;
	/* rx work buffers (rx_lock): whole frames read with recvmsg, frames
	 * with their VLAN tag put back, segments of a super-frame. */
	uint8_t *big;
	uint8_t *work;
	uint8_t *seg;
	/* Link messages (link_poll, one caller at a time); -1: none. */
	int nl;
	bool nl_up; /* state of the last message seen */
	uint8_t *nl_buf;
	atomic_uint mtu;      /* last known interface MTU */
	unsigned int max_mtu; /* the interface's, within the rings' */
	atomic_uint_fast64_t rx_frames;
	atomic_uint_fast64_t rx_kernel_drops;
	atomic_uint_fast64_t rx_csum_completed;
	atomic_uint_fast64_t rx_gso_frames;
	atomic_uint_fast64_t tx_frames;
	atomic_uint_fast64_t tx_errors;
};

static unsigned int
sv_pkt_frame_size(unsigned int mtu)
{
	if (mtu < SV_PKT_MTU_RING)
		mtu = SV_PKT_MTU_RING;
	if (mtu > SV_PKT_MTU_MAX)
		mtu = SV_PKT_MTU_MAX;
	/* Room for two VLAN tags that the kernel leaves in the data. */
	return (SV_PKT_HDR_ROOM + mtu + 2 * SV_PKT_VLAN_HLEN + 1023) & ~1023u;
}

/* The largest MTU whose frames a ring frame holds. */
static unsigned int
sv_pkt_ring_mtu(unsigned int frame_size)
{
	unsigned int hdr = SV_PKT_HDR_ROOM + 2 * SV_PKT_VLAN_HLEN;

	if (frame_size <= hdr)
		return 0;
	return frame_size - hdr < SV_PKT_MTU_MAX ? frame_size - hdr :
						   SV_PKT_MTU_MAX;
}

static void
sv_pkt_ifreq(const struct sv_pkt *p, struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, p->ifname, sizeof(p->ifname));
}

static int
sv_pkt_set_int(int fd, int opt, int val)
{
	if (setsockopt(fd, SOL_PACKET, opt, &val, sizeof(val)) != 0)
		return errno;
	return 0;
}

static void
sv_pkt_rings_unmap(struct sv_pkt *p)
{
	if (p->map != NULL)
		munmap(p->map, p->map_len);
	p->map = NULL;
	p->map_len = 0;
	free(p->rx.frame);
	free(p->tx.frame);
	memset(&p->rx, 0, sizeof(p->rx));
	memset(&p->tx, 0, sizeof(p->tx));
	p->frame_size = 0;
}

/* Give both rings back to the kernel; EBUSY while tx frames are in
 * flight, so wait a bounded while for them. */
static int
sv_pkt_rings_teardown(struct sv_pkt *p)
{
	struct tpacket_req req;
	int tries;

	sv_pkt_rings_unmap(p);
	memset(&req, 0, sizeof(req));
	if (setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) !=
	    0)
		return errno;
	for (tries = 0;; tries++) {
		if (setsockopt(p->fd, SOL_PACKET, PACKET_TX_RING, &req,
			       sizeof(req)) == 0)
			return 0;
		if (errno != EBUSY || tries == 1000)
			return errno;
		usleep(1000);
	}
}

static int
sv_pkt_ring_frames(struct sv_pkt_ring *r, uint8_t *base,
		   const struct tpacket_req *req)
{
	unsigned int per_block = req->tp_block_size / req->tp_frame_size;
	unsigned int i;

	r->frame = calloc(req->tp_frame_nr, sizeof(*r->frame));
	if (r->frame == NULL)
		return ENOMEM;
	for (i = 0; i < req->tp_frame_nr; i++)
		r->frame[i] = base +
			      (size_t)(i / per_block) * req->tp_block_size +
			      (size_t)(i % per_block) * req->tp_frame_size;
	r->nr = req->tp_frame_nr;
	r->head = 0;
	return 0;
}

static int
sv_pkt_rings_setup(struct sv_pkt *p, unsigned int frame_size)
{
	struct tpacket_req rxq, txq;
	void *map;
	int rc;

	memset(&rxq, 0, sizeof(rxq));
	rxq.tp_block_size = SV_PKT_BLOCK;
	rxq.tp_block_nr = SV_PKT_RX_BYTES / SV_PKT_BLOCK;
	rxq.tp_frame_size = frame_size;
	rxq.tp_frame_nr = (SV_PKT_BLOCK / frame_size) * rxq.tp_block_nr;
	txq = rxq;
	txq.tp_block_nr = SV_PKT_TX_BYTES / SV_PKT_BLOCK;
	txq.tp_frame_nr = (SV_PKT_BLOCK / frame_size) * txq.tp_block_nr;
	if (setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &rxq, sizeof(rxq)) !=
	    0)
		return errno;
	if (setsockopt(p->fd, SOL_PACKET, PACKET_TX_RING, &txq, sizeof(txq)) !=
	    0) {
		rc = errno;
		goto fail;
	}
	/* One mapping: the rx ring, then the tx ring. */
	p->map_len = (size_t)SV_PKT_RX_BYTES + SV_PKT_TX_BYTES;
	map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd,
		   0);
	if (map == MAP_FAILED) {
		rc = errno;
		p->map_len = 0;
		goto fail;
	}
	p->map = map;
	p->frame_size = frame_size;
	rc = sv_pkt_ring_frames(&p->rx, p->map, &rxq);
	if (rc == 0)
		rc = sv_pkt_ring_frames(&p->tx, p->map + SV_PKT_RX_BYTES, &txq);
	if (rc == 0)
		return 0;
fail:
	sv_pkt_rings_teardown(p);
	return rc;
}

/* Rebuild the rings when their frames are too small for mtu (bigger frames
 * first, so that the rings never truncate what the interface takes). */
static int
sv_pkt_rings_fit(struct sv_pkt *p, unsigned int mtu)
{
	unsigned int fs = sv_pkt_frame_size(mtu);
	int rc = 0;

	pthread_mutex_lock(&p->rx_lock);
	pthread_mutex_lock(&p->tx_lock);
	if (fs > p->frame_size) {
		rc = sv_pkt_rings_teardown(p);
		if (rc == 0)
			rc = sv_pkt_rings_setup(p, fs);
	}
	pthread_mutex_unlock(&p->tx_lock);
	pthread_mutex_unlock(&p->rx_lock);
	return rc;
}

static int
sv_pkt_ioctl(const struct sv_pkt *p, unsigned long req, struct ifreq *ifr)
{
	if (ioctl(p->fd, req, ifr) != 0)
		return errno;
	return 0;
}

static void
sv_pkt_poll_drops(struct sv_pkt *p)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	/* Reading the counters resets them, so accumulate. */
	if (getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0 &&
	    st.tp_drops != 0)
		atomic_fetch_add_explicit(&p->rx_kernel_drops, st.tp_drops,
					  memory_order_relaxed);
}

static void
sv_pkt_free(struct sv_pkt *p)
{
	sv_pkt_rings_unmap(p);
	free(p->big);
	free(p->work);
	free(p->seg);
	if (p->fd >= 0)
		close(p->fd); /* also drops the promiscuous membership */
	if (p->nl >= 0)
		close(p->nl);
	free(p->nl_buf);
	pthread_mutex_destroy(&p->rx_lock);
	pthread_mutex_destroy(&p->tx_lock);
	free(p);
}

static bool sv_pkt_link_up(void *priv);

/* The link messages of the interface: subscribed before its state is
 * read, so that no change falls between. A wire without it has no link
 * events (sv_wire_link_fd() says so), nothing else is lost. */
static void
sv_pkt_link_open(struct sv_pkt *p)
{
	struct sockaddr_nl sa;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    NETLINK_ROUTE);
	if (fd < 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = RTMGRP_LINK;
	p->nl_buf = malloc(SV_PKT_NL_BUF);
	if (p->nl_buf == NULL ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		free(p->nl_buf);
		p->nl_buf = NULL;
		return;
	}
	p->nl = fd;
	p->nl_up = sv_pkt_link_up(p);
}

static int
sv_pkt_open(const char *name, void **priv, int *end, uint8_t mac[6])
{
	struct sockaddr_ll sll;
	struct packet_mreq mr;
	struct ifreq ifr;
	struct sv_pkt *p;
	unsigned int ifindex, max_mtu = 0;
	int rc, sndbuf, rcvbuf;

	if (name[0] == '\0' || strlen(name) >= IFNAMSIZ)
		return ENODEV;
	/* Needs no privilege: an unknown name is ENODEV for anyone. */
	ifindex = if_nametoindex(name);
	if (ifindex == 0)
		return errno == ENOMEM ? ENOMEM : ENODEV;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return ENOMEM;
	pthread_mutex_init(&p->rx_lock, NULL);
	pthread_mutex_init(&p->tx_lock, NULL);
	p->nl = -1;
	p->ifindex = (int)ifindex;
	strcpy(p->ifname, name);
	p->big = malloc(SV_PKT_BIG);
	p->work = malloc(SV_PKT_BIG + SV_PKT_VLAN_HLEN);
	p->seg = malloc(SV_PKT_BIG);
	if (p->big == NULL || p->work == NULL || p->seg == NULL) {
		p->fd = -1;
		rc = ENOMEM;
		goto fail;
	}
	/* Protocol 0: nothing is queued before bind() picks the interface. */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		rc = errno == EACCES ? EPERM : errno;
		goto fail;
	}

	sv_pkt_ifreq(p, &ifr);
	rc = sv_pkt_ioctl(p, SIOCGIFHWADDR, &ifr);
	if (rc != 0)
		goto fail;
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER &&
	    ifr.ifr_hwaddr.sa_family != ARPHRD_LOOPBACK) {
		rc = EINVAL; /* frames would not start with an Ethernet header */
		goto fail;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	sv_pkt_ifreq(p, &ifr);
	rc = sv_pkt_ioctl(p, SIOCGIFMTU, &ifr);
	if (rc != 0)
		goto fail;
	atomic_init(&p->mtu, (unsigned int)ifr.ifr_mtu);
	/* The rings cap what this wire carries. */
	if (vsteer_netdev_max_mtu(name, &max_mtu) != 0 || max_mtu == 0 ||
	    max_mtu > SV_PKT_MTU_MAX)
		max_mtu = SV_PKT_MTU_MAX;
	p->max_mtu = max_mtu;

	rc = sv_pkt_set_int(p->fd, PACKET_VERSION, TPACKET_V2);
	if (rc != 0)
		goto fail;
	/* Before the rings: the kernel refuses it once they exist. */
	rc = sv_pkt_set_int(p->fd, PACKET_VNET_HDR, 1);
	if (rc != 0)
		goto fail;
	/* Frames that do not fit a ring frame go whole to the socket. */
	rc = sv_pkt_set_int(p->fd, PACKET_COPY_THRESH, 1);
	if (rc != 0)
		goto fail;
	/* recvmsg() of those gives their VLAN tag in metadata. */
	rc = sv_pkt_set_int(p->fd, PACKET_AUXDATA, 1);
	if (rc != 0)
		goto fail;
	/* The kernel skips a frame it cannot send rather than stalling the
	 * ring on it; we count such frames before they get there. */
	rc = sv_pkt_set_int(p->fd, PACKET_LOSS, 1);
	if (rc != 0)
		goto fail;
	rc = sv_pkt_set_int(p->fd, PACKET_QDISC_BYPASS, 1);
	if (rc != 0)
		goto fail;
	/* Older kernels lack it; rx also skips PACKET_OUTGOING frames. */
	sv_pkt_set_int(p->fd, PACKET_IGNORE_OUTGOING, 1);
	/* Frames in flight are charged to the send buffer: let a full tx
	 * ring be in flight (the forced size needs CAP_NET_ADMIN). */
	sndbuf = SV_PKT_TX_BYTES;
	if (setsockopt(p->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf,
		       sizeof(sndbuf)) != 0)
		setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
			   sizeof(sndbuf));
	rcvbuf = SV_PKT_RCVBUF;
	if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) != 0)
		setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	rc = sv_pkt_rings_setup(p, sv_pkt_frame_size(atomic_load(&p->mtu)));
	if (rc != 0)
		goto fail;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = p->ifindex;
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		rc = errno == ENXIO ? ENODEV : errno;
		goto fail;
	}
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = p->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) != 0) {
		rc = errno;
		goto fail;
	}
	sv_pkt_link_open(p);
	*end = 0;
	*priv = p;
	return 0;
fail:
	sv_pkt_free(p);
	return rc;
}

static void
sv_pkt_close(void *priv)
{
	sv_pkt_free(priv);
}

/* What the kernel says of a received frame besides its bytes. */
struct sv_pkt_meta {
	const struct virtio_net_hdr *vnet;
	bool vlan; /* the tag was taken out of the frame */
	uint16_t tpid;
	uint16_t tci;
};

/*
 * Hand one received frame (writable: a ring frame or a work buffer) to cb
 * as it would have been on the cable: its VLAN tag back in place, a
 * checksum left to offload completed, a super-frame cut into segments.
 * Returns the number of frames delivered.
 */
static unsigned int
sv_pkt_deliver(struct sv_pkt *p, uint8_t *frame, uint32_t len,
	       const struct sv_pkt_meta *m, sv_wire_rx_cb cb, void *arg)
{
	const struct virtio_net_hdr *vh = m->vnet;
	unsigned int gso = vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN, n;

	if (m->vlan) {
		uint8_t *w = p->work;

		/* The kernel took the outer tag out of the frame; put it
		 * back after the MACs. */
		memcpy(w, frame, 2 * ETH_ALEN);
		sv_wr16(w + 12, m->tpid);
		sv_wr16(w + 14, m->tci);
		memcpy(w + 16, frame + 2 * ETH_ALEN, len - 2 * ETH_ALEN);
		frame = w;
		len += SV_PKT_VLAN_HLEN;
	}
	if (gso != VIRTIO_NET_HDR_GSO_NONE) {
		/* UFO (IP fragments) is not a segmentation a NIC does. */
		n = 0;
		if (gso == VIRTIO_NET_HDR_GSO_TCPV4 ||
		    gso == VIRTIO_NET_HDR_GSO_TCPV6 ||
		    gso == VIRTIO_NET_HDR_GSO_UDP_L4)
			n = sv_gso_cut(frame, len,
				       gso != VIRTIO_NET_HDR_GSO_UDP_L4,
				       vh->gso_size, p->seg, SV_PKT_BIG, cb,
				       arg);
		if (n == 0)
			atomic_fetch_add_explicit(&p->rx_kernel_drops, 1,
						  memory_order_relaxed);
		else
			atomic_fetch_add_explicit(&p->rx_gso_frames, 1,
						  memory_order_relaxed);
		return n;
	}
	/* skb_checksum_help(), as before a device without checksum
	 * offload. */
	if ((vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    sv_csum_fill(frame, len, false))
		atomic_fetch_add_explicit(&p->rx_csum_completed, 1,
					  memory_order_relaxed);
	cb(arg, frame, len);
	return 1;
}

/* The whole frame behind a TP_STATUS_COPY ring frame, from the socket
 * queue: its length (0 if none) in p->big, metadata in m. */
static uint32_t
sv_pkt_recv_whole(struct sv_pkt *p, struct sv_pkt_meta *m)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = p->big, .iov_len = SV_PKT_BIG };
	struct msghdr mh;
	struct cmsghdr *c;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	n = recvmsg(p->fd, &mh, MSG_DONTWAIT);
	if (n < (ssize_t)(SV_PKT_VNET_LEN + ETH_HLEN) ||
	    (mh.msg_flags & MSG_TRUNC))
		return 0;
	m->vnet = (const struct virtio_net_hdr *)(const void *)p->big;
	m->vlan = false;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		struct tpacket_auxdata aux;

		if (c->cmsg_level != SOL_PACKET ||
		    c->cmsg_type != PACKET_AUXDATA)
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (aux.tp_status & TP_STATUS_VLAN_VALID) {
			m->vlan = true;
			m->tci = aux.tp_vlan_tci;
			m->tpid = (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) ?
					  aux.tp_vlan_tpid :
					  ETH_P_8021Q;
		}
	}
	return (uint32_t)n - SV_PKT_VNET_LEN;
}

static unsigned int
sv_pkt_rx(void *priv, unsigned int max, sv_wire_rx_cb cb, void *arg)
{
	struct sv_pkt *p = priv;
	struct sv_pkt_ring *r = &p->rx;
	unsigned int n = 0, seen;

	pthread_mutex_lock(&p->rx_lock);
	/* Bounded by the ring: skipped frames count against one lap. */
	for (seen = 0; n < max && seen < r->nr; seen++) {
		struct tpacket2_hdr *h =
			(struct tpacket2_hdr *)(void *)r->frame[r->head];
		const struct sockaddr_ll *sll;
		struct sv_pkt_meta m;
		uint32_t status, len;
		uint8_t *frame;

		status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (!(status & TP_STATUS_USER))
			break;
		if (status & TP_STATUS_LOSING)
			sv_pkt_poll_drops(p);
		sll = (const struct sockaddr_ll
			       *)(const void *)((uint8_t *)h +
						TPACKET_ALIGN(sizeof(*h)));
		frame = (uint8_t *)h + h->tp_mac;
		len = h->tp_snaplen;
		m.vnet = (const struct virtio_net_hdr
				  *)(const void *)(frame - SV_PKT_VNET_LEN);
		m.vlan = (status & TP_STATUS_VLAN_VALID) != 0;
		m.tci = h->tp_vlan_tci;
		m.tpid = (status & TP_STATUS_VLAN_TPID_VALID) ?
				 h->tp_vlan_tpid :
				 ETH_P_8021Q;
		if (sll->sll_pkttype == PACKET_OUTGOING) {
			/* our own frame (no PACKET_IGNORE_OUTGOING) */
		} else if (status & TP_STATUS_COPY) {
			/* Bigger than a ring frame: queued whole. */
			len = sv_pkt_recv_whole(p, &m);
			if (len != 0)
				n += sv_pkt_deliver(p, p->big + SV_PKT_VNET_LEN,
						    len, &m, cb, arg);
			else
				atomic_fetch_add_explicit(&p->rx_kernel_drops,
							  1,
							  memory_order_relaxed);
		} else if (len < h->tp_len || len < ETH_HLEN) {
			/* Truncated: the socket had no room for it whole. */
			atomic_fetch_add_explicit(&p->rx_kernel_drops, 1,
						  memory_order_relaxed);
		} else {
			n += sv_pkt_deliver(p, frame, len, &m, cb, arg);
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		r->head = r->head + 1 == r->nr ? 0 : r->head + 1;
	}
	pthread_mutex_unlock(&p->rx_lock);
	if (n != 0)
		atomic_fetch_add_explicit(&p->rx_frames, n,
					  memory_order_relaxed);
	return n;
}

static uint32_t
sv_pkt_tx_status(struct sv_pkt *p, unsigned int i)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)(void *)p->tx.frame[i];

	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

/*
 * Have the kernel send every frame marked SEND_REQUEST; pending of them
 * are ours since the last kick. Returns how many of those it could not
 * take: they are given back to us (AVAILABLE) and the head moves back
 * over them, so the ring never keeps stale requests and the kernel's
 * head and ours stay together.
 */
static unsigned int
sv_pkt_kick(struct sv_pkt *p, unsigned int pending)
{
	unsigned int back = 0, i = p->tx.head;
	int tries;

	for (tries = 0;; tries++) {
		if (sendto(p->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
			return 0;
		/* Congestion (send buffer full, device busy): frames in
		 * flight complete meanwhile. Anything else may be an error
		 * the socket kept from an earlier event (ENETDOWN from an
		 * interface that is up again) and reported once: one retry.
		 */
		if (tries == SV_PKT_KICK_TRIES ||
		    (tries > 0 && errno != EAGAIN && errno != ENOBUFS &&
		     errno != EINTR))
			break;
		sched_yield();
	}
	while (back < pending) {
		struct tpacket2_hdr *h;

		i = i == 0 ? p->tx.nr - 1 : i - 1;
		h = (struct tpacket2_hdr *)(void *)p->tx.frame[i];
		if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) !=
		    TP_STATUS_SEND_REQUEST)
			break;
		__atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE,
				 __ATOMIC_RELEASE);
		back++;
	}
	p->tx.head = (p->tx.head + p->tx.nr - back) % p->tx.nr;
	return back;
}

static bool
sv_pkt_tx_free(uint32_t status)
{
	return status == TP_STATUS_AVAILABLE ||
	       (status & TP_STATUS_WRONG_FORMAT);
}

static unsigned int
sv_pkt_tx(void *priv, const struct iovec *iov, const unsigned int *first,
	  unsigned int n)
{
	struct sv_pkt *p = priv;
	unsigned int i, j, pending = 0, sent = 0;
	size_t cap, max;

	max = SV_WIRE_FRAME_MAX(
		atomic_load_explicit(&p->mtu, memory_order_relaxed));
	pthread_mutex_lock(&p->tx_lock);
	if (p->frame_size == 0)
		goto out;
	cap = p->frame_size - SV_PKT_TX_OFF - SV_PKT_VNET_LEN;
	for (i = 0; i < n; i++) {
		struct tpacket2_hdr *h;
		size_t len = 0;
		uint8_t *data;

		for (j = first[i]; j < first[i + 1]; j++)
			len += iov[j].iov_len;
		/* With a virtio-net header the kernel leaves the MTU to us:
		 * refuse what the interface would not forward. */
		if (len < ETH_HLEN || len > cap || len > max)
			continue;
		if (!sv_pkt_tx_free(sv_pkt_tx_status(p, p->tx.head))) {
			int64_t deadline;

			/* Ring full: push what we queued, then wait a
			 * bounded while for the kernel to free a frame. */
			if (pending != 0) {
				unsigned int back = sv_pkt_kick(p, pending);

				sent -= back;
				pending = 0;
			}
			deadline = sv_wire_now_ns() + SV_PKT_TX_WAIT_NS;
			while (!sv_pkt_tx_free(
				       sv_pkt_tx_status(p, p->tx.head)) &&
			       sv_wire_now_ns() < deadline)
				sched_yield();
			if (!sv_pkt_tx_free(sv_pkt_tx_status(p, p->tx.head)))
				break; /* the rest count as errors */
		}
		h = (struct tpacket2_hdr *)(void *)p->tx.frame[p->tx.head];
		data = (uint8_t *)h + SV_PKT_TX_OFF;
		/* An empty virtio-net header: nothing left to offload. */
		memset(data, 0, SV_PKT_VNET_LEN);
		data += SV_PKT_VNET_LEN;
		for (j = first[i]; j < first[i + 1]; j++) {
			memcpy(data, iov[j].iov_base, iov[j].iov_len);
			data += iov[j].iov_len;
		}
		h->tp_len = len + SV_PKT_VNET_LEN;
		h->tp_snaplen = h->tp_len;
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
				 __ATOMIC_RELEASE);
		p->tx.head = p->tx.head + 1 == p->tx.nr ? 0 : p->tx.head + 1;
		pending++;
		sent++;
	}
	if (pending != 0)
		sent -= sv_pkt_kick(p, pending);
out:
	pthread_mutex_unlock(&p->tx_lock);
	if (sent != 0)
		atomic_fetch_add_explicit(&p->tx_frames, sent,
					  memory_order_relaxed);
	if (sent != n)
		atomic_fetch_add_explicit(&p->tx_errors, n - sent,
					  memory_order_relaxed);
	return sent;
}

/*
 * The interface's MTU, read at every call so that a change made on the
 * interface is followed at once; the rings grow when their frames no
 * longer hold it. What the rings cannot hold is not the wire's MTU.
 */
static unsigned int
sv_pkt_mtu(void *priv)
{
	struct sv_pkt *p = priv;
	unsigned int mtu, room;
	struct ifreq ifr;

	sv_pkt_ifreq(p, &ifr);
	if (sv_pkt_ioctl(p, SIOCGIFMTU, &ifr) == 0) {
		mtu = (unsigned int)ifr.ifr_mtu;
		if (mtu > SV_PKT_MTU_MAX)
			mtu = SV_PKT_MTU_MAX;
		room = sv_pkt_ring_mtu(
			__atomic_load_n(&p->frame_size, __ATOMIC_RELAXED));
		if (mtu > room && sv_pkt_rings_fit(p, mtu) != 0)
			mtu = room;
		atomic_store_explicit(&p->mtu, mtu, memory_order_relaxed);
	}
	return atomic_load_explicit(&p->mtu, memory_order_relaxed);
}

static unsigned int
sv_pkt_max_mtu(void *priv)
{
	return ((struct sv_pkt *)priv)->max_mtu;
}

static int
sv_pkt_set_mtu(void *priv, unsigned int mtu)
{
	struct sv_pkt *p = priv;
	struct ifreq ifr;
	int rc;

	rc = sv_pkt_rings_fit(p, mtu);
	if (rc != 0)
		return rc;
	sv_pkt_ifreq(p, &ifr);
	ifr.ifr_mtu = (int)mtu;
	rc = sv_pkt_ioctl(p, SIOCSIFMTU, &ifr);
	if (rc != 0)
		return rc;
	atomic_store_explicit(&p->mtu, mtu, memory_order_relaxed);
	return 0;
}

static bool
sv_pkt_link_up(void *priv)
{
	struct sv_pkt *p = priv;

	return sv_wire_if_up(p->fd, p->ifname);
}

static int
sv_pkt_rx_fd(void *priv)
{
	return ((struct sv_pkt *)priv)->fd;
}

static int
sv_pkt_link_fd(void *priv)
{
	struct sv_pkt *p = priv;

	return p->nl >= 0 ? p->nl : -ENOTSUP;
}

/* Keep state in states[] (the latest when full). */
static void
sv_pkt_link_note(bool *states, unsigned int max, unsigned int *n, bool up)
{
	if (*n == max) {
		memmove(states, states + 1, (max - 1) * sizeof(*states));
		(*n)--;
	}
	states[(*n)++] = up;
}

static unsigned int
sv_pkt_link_poll(void *priv, bool *states, unsigned int max)
{
	struct sv_pkt *p = priv;
	bool resync = false, up;
	unsigned int n = 0;
	ssize_t len;

	if (p->nl < 0)
		return 0;
	for (;;) {
		size_t off;

		len = recv(p->nl, p->nl_buf, SV_PKT_NL_BUF, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS: messages were lost; read the state. */
			if (errno == ENOBUFS) {
				resync = true;
				continue;
			}
			break; /* EAGAIN: all read */
		}
		for (off = 0; off + NLMSG_HDRLEN <= (size_t)len;) {
			const struct nlmsghdr *nh =
				(const void *)(p->nl_buf + off);
			const struct ifinfomsg *ifi =
				(const void *)((const uint8_t *)nh +
					       NLMSG_HDRLEN);

			if (nh->nlmsg_len < NLMSG_HDRLEN ||
			    nh->nlmsg_len > (size_t)len - off)
				break;
			off += NLMSG_ALIGN(nh->nlmsg_len);
			if ((nh->nlmsg_type != RTM_NEWLINK &&
			     nh->nlmsg_type != RTM_DELLINK) ||
			    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
			    ifi->ifi_index != p->ifindex)
				continue;
			up = nh->nlmsg_type == RTM_NEWLINK &&
			     (ifi->ifi_flags & (IFF_UP | IFF_RUNNING)) ==
				     (IFF_UP | IFF_RUNNING);
			if (up != p->nl_up)
				sv_pkt_link_note(states, max, &n, up);
			p->nl_up = up;
		}
	}
	if (resync) {
		up = sv_pkt_link_up(p);
		if (up != p->nl_up)
			sv_pkt_link_note(states, max, &n, up);
		p->nl_up = up;
	}
	return n;
}

static void
sv_pkt_link_info(void *priv, struct sv_wire_link *link)
{
	sv_wire_if_link_info(((struct sv_pkt *)priv)->ifname, link);
}

static void
sv_pkt_get_stats(void *priv, struct sv_wire_stats *stats)
{
	struct sv_pkt *p = priv;

	memset(stats, 0, sizeof(*stats));
	sv_pkt_poll_drops(p);
	stats->rx_frames =
		atomic_load_explicit(&p->rx_frames, memory_order_relaxed);
	stats->rx_kernel_drops =
		atomic_load_explicit(&p->rx_kernel_drops, memory_order_relaxed);
	stats->rx_csum_completed = atomic_load_explicit(&p->rx_csum_completed,
							memory_order_relaxed);
	stats->rx_gso_frames =
		atomic_load_explicit(&p->rx_gso_frames, memory_order_relaxed);
	stats->tx_frames =
		atomic_load_explicit(&p->tx_frames, memory_order_relaxed);
	stats->tx_errors =
		atomic_load_explicit(&p->tx_errors, memory_order_relaxed);
}

const struct sv_wire_ops sv_wire_packet_ops = {
	.open = sv_pkt_open,
	.close = sv_pkt_close,
	.rx = sv_pkt_rx,
	.tx = sv_pkt_tx,
	.mtu = sv_pkt_mtu,
	.max_mtu = sv_pkt_max_mtu,
	.set_mtu = sv_pkt_set_mtu,
	.link_up = sv_pkt_link_up,
	.link_info = sv_pkt_link_info,
	.get_stats = sv_pkt_get_stats,
	.rx_fd = sv_pkt_rx_fd,
	.link_fd = sv_pkt_link_fd,
	.link_poll = sv_pkt_link_poll,
};
