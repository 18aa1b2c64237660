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
 * 2 KiB frames up to MTU 1500 (4096 rx / 2048 tx frames), 9 KiB frames
 * for MTU 9000 (896 rx / 448 tx frames). Raising the MTU past what the
 * frames hold rebuilds both rings; frames in flight at that moment are
 * lost, as on a NIC that resets its queues.
 *
 * The socket is promiscuous (the device filters by MAC itself, as a NIC
 * does), ignores its own outgoing frames and bypasses the qdisc on tx.
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
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "sv_csum.h"
#include "sv_wire.h"

#define SV_PKT_BLOCK (64u << 10)
#define SV_PKT_RX_BYTES (8u << 20)
#define SV_PKT_TX_BYTES (4u << 20)
#define SV_PKT_MTU_MIN 68u
#define SV_PKT_MTU_MAX 9000u
#define SV_PKT_MTU_RING 1500u /* rings hold at least this MTU */
#define SV_PKT_VLAN_HLEN 4u
/* Where the kernel puts the network header of an rx frame (the MAC header
 * sits just before it); tx data starts earlier, so this bounds both. */
#define SV_PKT_HDR_ROOM TPACKET_ALIGN(TPACKET2_HDRLEN + 16)
/* Tx frame data offset for TPACKET_V2 without PACKET_TX_HAS_OFF. */
#define SV_PKT_TX_OFF (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
/* Slot wait when the tx ring is full, and kick retries on congestion. */
#define SV_PKT_TX_WAIT_NS 1000000L
#define SV_PKT_KICK_TRIES 32

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
	uint8_t *scratch; /* rx frame with its VLAN tag put back */
	atomic_uint mtu;  /* last known interface MTU */
	atomic_uint_fast64_t rx_frames;
	atomic_uint_fast64_t rx_kernel_drops;
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
	free(p->scratch);
	memset(&p->rx, 0, sizeof(p->rx));
	memset(&p->tx, 0, sizeof(p->tx));
	p->scratch = NULL;
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
	if (rc == 0) {
		p->scratch = malloc(frame_size + SV_PKT_VLAN_HLEN);
		if (p->scratch == NULL)
			rc = ENOMEM;
	}
	if (rc == 0)
		return 0;
fail:
	sv_pkt_rings_teardown(p);
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
	if (p->fd >= 0)
		close(p->fd); /* also drops the promiscuous membership */
	pthread_mutex_destroy(&p->rx_lock);
	pthread_mutex_destroy(&p->tx_lock);
	free(p);
}

static int
sv_pkt_open(const char *name, void **priv, int *end, uint8_t mac[6])
{
	struct sockaddr_ll sll;
	struct packet_mreq mr;
	struct ifreq ifr;
	struct sv_pkt *p;
	unsigned int ifindex;
	int rc, sndbuf;

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
	p->ifindex = (int)ifindex;
	strcpy(p->ifname, name);
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

	rc = sv_pkt_set_int(p->fd, PACKET_VERSION, TPACKET_V2);
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
		if (sll->sll_pkttype == PACKET_OUTGOING) {
			/* our own frame (no PACKET_IGNORE_OUTGOING) */
		} else if (len < h->tp_len || len < ETH_HLEN) {
			/* Truncated: bigger than a ring frame. */
			atomic_fetch_add_explicit(&p->rx_kernel_drops, 1,
						  memory_order_relaxed);
		} else {
			if (status & TP_STATUS_VLAN_VALID) {
				uint16_t tpid = ETH_P_8021Q;
				uint8_t *s = p->scratch;

				if (status & TP_STATUS_VLAN_TPID_VALID)
					tpid = h->tp_vlan_tpid;
				/* The kernel took the outer tag out of the
				 * frame; put it back after the MACs. */
				memcpy(s, frame, 2 * ETH_ALEN);
				sv_wr16(s + 12, tpid);
				sv_wr16(s + 14, h->tp_vlan_tci);
				memcpy(s + 16, frame + 2 * ETH_ALEN,
				       len - 2 * ETH_ALEN);
				frame = s;
				len += SV_PKT_VLAN_HLEN;
			}
			cb(arg, frame, len);
			n++;
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

static int64_t
sv_pkt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static unsigned int
sv_pkt_tx(void *priv, const struct iovec *iov, const unsigned int *first,
	  unsigned int n)
{
	struct sv_pkt *p = priv;
	unsigned int i, j, mtu, pending = 0, sent = 0;
	size_t cap;

	mtu = atomic_load_explicit(&p->mtu, memory_order_relaxed);
	pthread_mutex_lock(&p->tx_lock);
	if (p->frame_size == 0)
		goto out;
	cap = p->frame_size - SV_PKT_TX_OFF;
	for (i = 0; i < n; i++) {
		struct tpacket2_hdr *h;
		size_t len = 0, max;
		uint8_t *data;

		for (j = first[i]; j < first[i + 1]; j++)
			len += iov[j].iov_len;
		if (len < ETH_HLEN || len > cap)
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
			deadline = sv_pkt_now_ns() + SV_PKT_TX_WAIT_NS;
			while (!sv_pkt_tx_free(
				       sv_pkt_tx_status(p, p->tx.head)) &&
			       sv_pkt_now_ns() < deadline)
				sched_yield();
			if (!sv_pkt_tx_free(sv_pkt_tx_status(p, p->tx.head)))
				break; /* the rest count as errors */
		}
		h = (struct tpacket2_hdr *)(void *)p->tx.frame[p->tx.head];
		data = (uint8_t *)h + SV_PKT_TX_OFF;
		for (j = first[i]; j < first[i + 1]; j++) {
			memcpy(data, iov[j].iov_base, iov[j].iov_len);
			data += iov[j].iov_len;
		}
		data = (uint8_t *)h + SV_PKT_TX_OFF;
		/* The kernel's own limit: MTU plus the Ethernet header, plus
		 * one 802.1Q (not 802.1ad) tag. */
		max = (size_t)mtu + ETH_HLEN;
		if (sv_rd16(data + 12) == ETH_P_8021Q)
			max += SV_PKT_VLAN_HLEN;
		if (len > max)
			continue;
		h->tp_len = len;
		h->tp_snaplen = len;
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

static unsigned int
sv_pkt_mtu(void *priv)
{
	struct sv_pkt *p = priv;
	struct ifreq ifr;

	sv_pkt_ifreq(p, &ifr);
	if (sv_pkt_ioctl(p, SIOCGIFMTU, &ifr) == 0)
		atomic_store_explicit(&p->mtu, (unsigned int)ifr.ifr_mtu,
				      memory_order_relaxed);
	return atomic_load_explicit(&p->mtu, memory_order_relaxed);
}

static int
sv_pkt_set_mtu(void *priv, unsigned int mtu)
{
	struct sv_pkt *p = priv;
	unsigned int fs = sv_pkt_frame_size(mtu);
	struct ifreq ifr;
	int rc = 0;

	if (mtu < SV_PKT_MTU_MIN || mtu > SV_PKT_MTU_MAX)
		return EINVAL;
	/* Bigger frames first, so the ring never truncates what the
	 * interface accepts. */
	pthread_mutex_lock(&p->rx_lock);
	pthread_mutex_lock(&p->tx_lock);
	if (fs > p->frame_size) {
		rc = sv_pkt_rings_teardown(p);
		if (rc == 0)
			rc = sv_pkt_rings_setup(p, fs);
	}
	pthread_mutex_unlock(&p->tx_lock);
	pthread_mutex_unlock(&p->rx_lock);
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
	struct ifreq ifr;

	sv_pkt_ifreq(p, &ifr);
	if (sv_pkt_ioctl(p, SIOCGIFFLAGS, &ifr) != 0)
		return false;
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
	       (IFF_UP | IFF_RUNNING);
}

static void
sv_pkt_get_stats(void *priv, struct sv_wire_stats *stats)
{
	struct sv_pkt *p = priv;

	sv_pkt_poll_drops(p);
	stats->rx_frames =
		atomic_load_explicit(&p->rx_frames, memory_order_relaxed);
	stats->rx_kernel_drops =
		atomic_load_explicit(&p->rx_kernel_drops, memory_order_relaxed);
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
	.set_mtu = sv_pkt_set_mtu,
	.link_up = sv_pkt_link_up,
	.get_stats = sv_pkt_get_stats,
};
