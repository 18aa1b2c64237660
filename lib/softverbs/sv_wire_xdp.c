/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The "xdp:<ifname>" wire: a Linux interface through one AF_XDP socket on
 * its queue 0, in copy mode, with a small XDP program of our own that
 * redirects every frame of queue 0 to the socket.
 *
 * Choices, and why:
 *  - The program is built here (no object file, no bpffs, no libxdp
 *    dispatcher): bpf_redirect_map() on an XSKMAP of one entry keyed by
 *    the frame's rx queue, XDP_PASS when the lookup fails, so frames of
 *    other queues stay with the kernel. On Linux 6.8+ it first puts back
 *    an outer VLAN tag that the sender or the NIC kept in metadata (see
 *    sv_xdp_tag).
 *  - It is attached through a BPF link (bpf_link_create, Linux 5.9),
 *    not through netlink: the kernel detaches it when the link's last fd
 *    closes, so the interface gets its normal path back when the wire
 *    closes, when an open fails half way, and when the process dies.
 *  - No XDP mode flag: the kernel takes native XDP where the driver has
 *    it (veth does) and generic XDP otherwise (dev_xdp_mode()).
 *  - Copy mode (XDP_COPY): softverbs copies each frame into a posted
 *    receive buffer anyway, and veth has no zero-copy.
 *  - One queue: softverbs does its own RSS over the port's work queues.
 *  - The interface is promiscuous while the wire is open, as with the
 *    AF_PACKET wire: the device filters by MAC address itself.
 *  - UMEM of 4096 chunks of 4 KiB (16 MiB, pinned by the kernel): 2048
 *    for rx (fill and rx rings of 2048) and 2048 for tx (tx and
 *    completion rings of 2048), the sizes DPDK's net_af_xdp uses. A chunk
 *    holds a frame of 4096 - XDP_PACKET_HEADROOM bytes, hence the MTU
 *    limit SV_XDP_MTU_MAX.
 *  - Tx: descriptors for the whole batch, one producer update, then one
 *    kick. In copy mode the kernel sends at most a budget of frames per
 *    sendto() (32 by default, __xsk_generic_xmit()) and answers EAGAIN
 *    for the rest, so the kick repeats sendto() until the ring is empty.
 *  - Rx needs no system call: in copy mode the kernel fills the rx ring
 *    from the interface's receive path (softirq) and never asks for a
 *    fill-ring wakeup.
 *
 * What the kernel stack sees: frames on queue 0 go to the socket and no
 * longer reach the stack (nor packet taps such as tcpdump); frames the
 * device's rules do not take are dropped by the device, not given back.
 * The stack's own transmissions are not affected.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "sv_csum.h"
#include "sv_wire.h"
#include "sv_wire_if.h"
#include "vsteer_netdev.h"

#ifdef SV_HAVE_XDP

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#define SV_XDP_CHUNK 4096u
#define SV_XDP_RX_CHUNKS 2048u /* = fill ring = rx ring */
#define SV_XDP_TX_CHUNKS 2048u /* = tx ring = completion ring */
#define SV_XDP_CHUNKS (SV_XDP_RX_CHUNKS + SV_XDP_TX_CHUNKS)
#define SV_XDP_VLAN_HLEN 4u
/* Largest rx frame: a chunk less the kernel's headroom
 * (xsk_pool_get_rx_frame_size()), with room for two VLAN tags. */
#define SV_XDP_MTU_MAX \
	(SV_XDP_CHUNK - XDP_PACKET_HEADROOM - ETH_HLEN - 2 * SV_XDP_VLAN_HLEN)
/* Tx: wait for a free chunk, and retries of a kick that makes no
 * progress. */
#define SV_XDP_TX_WAIT_NS 1000000L
#define SV_XDP_KICK_TRIES 64
/* Binding to a queue a socket has just left: up to a second (the release
 * took up to 150 ms on a 2-core VM). */
#define SV_XDP_BIND_TRIES 50
#define SV_XDP_BIND_WAIT_US 20000

struct sv_xdp {
	int ifindex;
	char ifname[IFNAMSIZ];
	int ctl_fd;	/* ioctls on the interface */
	int promisc_fd; /* holds the interface promiscuous */
	int map_fd;
	int prog_fd;
	int link_fd;  /* the attachment: closing it detaches the program */
	bool tagging; /* the program restores VLAN tags from metadata */
	int xsk_fd;
	uint8_t *area; /* the UMEM */
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	/* tx_lock: senders (the tx and completion rings, tx_free). The rx
	 * and fill rings belong to the single consumer. */
	pthread_mutex_t tx_lock;
	uint64_t *tx_free; /* tx chunk addresses not in flight */
	unsigned int tx_nfree;
	atomic_uint mtu; /* last known interface MTU */
	atomic_uint_fast64_t rx_frames;
	atomic_uint_fast64_t tx_frames;
	atomic_uint_fast64_t tx_errors;
};

static void
sv_xdp_ifreq(const struct sv_xdp *x, struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, x->ifname, sizeof(x->ifname));
}

static int
sv_xdp_ioctl(const struct sv_xdp *x, unsigned long req, struct ifreq *ifr)
{
	if (ioctl(x->ctl_fd, req, ifr) != 0)
		return errno;
	return 0;
}

/* errno of a failed privileged step: EACCES and EPERM both mean a missing
 * capability (bpf() answers EPERM, sockets EACCES on some paths). */
static int
sv_xdp_errno(int e)
{
	return e == EACCES ? EPERM : e;
}

/* uapi bpf.h of Linux 6.3; Debian 12's headers predate it. */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

#define SV_BPF_INSN(c, d, s, o, i)                                       \
	{                                                                \
		.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), \
		.imm = (i)                                               \
	}
#define SV_MOV_X(d, s) SV_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define SV_MOV_K(d, i) SV_BPF_INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define SV_ADD_K(d, i) SV_BPF_INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define SV_LDX(sz, d, s, o) SV_BPF_INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define SV_STX(sz, d, s, o) SV_BPF_INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define SV_CALL(src, id) SV_BPF_INSN(BPF_JMP | BPF_CALL, 0, src, 0, id)

/* Instructions of the tag part; its jumps go to its end (the redirect). */
#define SV_XDP_TAG_LEN 27

/*
 * The programs. Prologue (1 instruction), then for tag restoration the
 * 27 of SV_XDP_TAG_LEN, then the redirect (6):
 *
 *   r6 = ctx
 *   tag:  if bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &tci) == 0 and
 *         bpf_xdp_adjust_head(ctx, -4) == 0 and the frame has 16 bytes:
 *         move the MAC addresses 4 bytes up, write proto and tci there
 *   return bpf_redirect_map(&xskmap, ctx->rx_queue_index, XDP_PASS)
 *
 * The tag part puts back an outer VLAN tag that the sender or the NIC
 * kept in metadata (a veth peer offloads tag insertion; NICs strip tags
 * on receive): XDP sees the frame without it, and the kfunc (Linux 6.8,
 * a device-bound program) is the only way to read it. The low bits of
 * redirect_map's flags are the action when the map has no socket for
 * the queue (Linux 5.3, __bpf_xdp_redirect_map()).
 */
static const struct bpf_insn sv_xdp_prologue[] = {
	SV_MOV_X(BPF_REG_6, BPF_REG_1),
};

static const struct bpf_insn sv_xdp_tag[SV_XDP_TAG_LEN] = {
	/* proto at fp-2, tci at fp-4, zeroed for the verifier */
	SV_BPF_INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
	SV_MOV_X(BPF_REG_2, BPF_REG_10),
	SV_ADD_K(BPF_REG_2, -2),
	SV_MOV_X(BPF_REG_3, BPF_REG_10),
	SV_ADD_K(BPF_REG_3, -4),
	SV_CALL(BPF_PSEUDO_KFUNC_CALL, 0), /* imm: the kfunc's BTF id */
	SV_BPF_INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, SV_XDP_TAG_LEN - 7,
		    0),
	SV_MOV_X(BPF_REG_1, BPF_REG_6),
	SV_MOV_K(BPF_REG_2, -4),
	SV_CALL(0, BPF_FUNC_xdp_adjust_head),
	SV_BPF_INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0,
		    SV_XDP_TAG_LEN - 11, 0),
	SV_LDX(BPF_W, BPF_REG_2, BPF_REG_6, offsetof(struct xdp_md, data)),
	SV_LDX(BPF_W, BPF_REG_3, BPF_REG_6, offsetof(struct xdp_md, data_end)),
	SV_MOV_X(BPF_REG_4, BPF_REG_2),
	SV_ADD_K(BPF_REG_4, 16),
	SV_BPF_INSN(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3,
		    SV_XDP_TAG_LEN - 16, 0),
	SV_LDX(BPF_W, BPF_REG_5, BPF_REG_2, 4),
	SV_STX(BPF_W, BPF_REG_2, BPF_REG_5, 0),
	SV_LDX(BPF_W, BPF_REG_5, BPF_REG_2, 8),
	SV_STX(BPF_W, BPF_REG_2, BPF_REG_5, 4),
	SV_LDX(BPF_W, BPF_REG_5, BPF_REG_2, 12),
	SV_STX(BPF_W, BPF_REG_2, BPF_REG_5, 8),
	SV_LDX(BPF_H, BPF_REG_5, BPF_REG_10, -2), /* proto: big endian */
	SV_STX(BPF_H, BPF_REG_2, BPF_REG_5, 12),
	SV_LDX(BPF_H, BPF_REG_5, BPF_REG_10, -4), /* tci: host order */
	SV_BPF_INSN(BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_5, 0, 0, 16),
	SV_STX(BPF_H, BPF_REG_2, BPF_REG_5, 14),
};

static int
sv_xdp_prog_load(int map_fd, int ifindex, bool tag)
{
	struct bpf_insn insns[1 + SV_XDP_TAG_LEN + 6];
	const struct bpf_insn tail[6] = {
		SV_LDX(BPF_W, BPF_REG_2, BPF_REG_6,
		       offsetof(struct xdp_md, rx_queue_index)),
		SV_BPF_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1,
			    BPF_PSEUDO_MAP_FD, 0, map_fd),
		SV_BPF_INSN(0, 0, 0, 0, 0), /* upper half of the immediate */
		SV_MOV_K(BPF_REG_3, XDP_PASS),
		SV_CALL(0, BPF_FUNC_redirect_map),
		SV_BPF_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	size_t n = 0;
	int fd;

	memcpy(insns, sv_xdp_prologue, sizeof(sv_xdp_prologue));
	n += sizeof(sv_xdp_prologue) / sizeof(insns[0]);
	if (tag) {
		struct btf *btf = btf__load_vmlinux_btf();
		int id = -1;

		if (btf != NULL) {
			id = btf__find_by_name_kind(btf,
						    "bpf_xdp_metadata_rx_vlan_tag",
						    BTF_KIND_FUNC);
			btf__free(btf);
		}
		if (id <= 0)
			return -ENOENT; /* a kernel before 6.8 */
		memcpy(insns + n, sv_xdp_tag, sizeof(sv_xdp_tag));
		insns[n + 5].imm = id;
		n += SV_XDP_TAG_LEN;
		opts.prog_ifindex = ifindex;
		opts.prog_flags = BPF_F_XDP_DEV_BOUND_ONLY;
	}
	memcpy(insns + n, tail, sizeof(tail));
	n += sizeof(tail) / sizeof(tail[0]);
	/* The verifier lets only GPL-compatible programs call kfuncs
	 * (add_kfunc_call()); these few instructions are ours to offer
	 * under both licenses. */
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "sv_xdp_redirect", "Dual BSD/GPL",
			   insns, n, &opts);
	return fd < 0 ? -sv_xdp_errno(-fd) : fd;
}

/* Map the kernel's answer to an XDP attach onto the causes callers
 * report (sv_wire.h). */
static int
sv_xdp_attach_errno(int e)
{
	switch (e) {
	case EEXIST: /* an XDP program in the other mode */
	case EBUSY:  /* an XDP program or link already there */
		return EBUSY;
	case ERANGE: /* veth_xdp_set(): the peer's MTU does not fit a page */
		return EMSGSIZE;
	case EINVAL:	 /* no XDP links before Linux 5.9; drivers refusing
			  * XDP at their MTU or queue setup */
	case EOPNOTSUPP: /* no XDP in the driver */
		return ENOTSUP;
	default:
		return sv_xdp_errno(e);
	}
}

/* The socket and its UMEM (the frame memory stays mapped). */
static void
sv_xdp_socket_free(struct sv_xdp *x)
{
	if (x->xsk != NULL)
		xsk_socket__delete(x->xsk);
	x->xsk = NULL;
	x->xsk_fd = -1;
	if (x->umem != NULL)
		xsk_umem__delete(x->umem);
	x->umem = NULL;
	free(x->tx_free);
	x->tx_free = NULL;
	x->tx_nfree = 0;
}

static void
sv_xdp_free(struct sv_xdp *x)
{
	/* Program first: the interface gets its receive path back before
	 * the socket goes. */
	if (x->link_fd >= 0)
		close(x->link_fd);
	if (x->prog_fd >= 0)
		close(x->prog_fd);
	if (x->map_fd >= 0)
		close(x->map_fd);
	sv_xdp_socket_free(x);
	if (x->area != NULL)
		munmap(x->area, (size_t)SV_XDP_CHUNKS * SV_XDP_CHUNK);
	if (x->ctl_fd >= 0)
		close(x->ctl_fd);
	if (x->promisc_fd >= 0)
		close(x->promisc_fd); /* drops the promiscuous membership */
	pthread_mutex_destroy(&x->tx_lock);
	free(x);
}

static int
sv_xdp_socket(struct sv_xdp *x)
{
	struct xsk_umem_config ucfg;
	struct xsk_socket_config scfg;
	uint32_t i, idx;
	int rc;

	memset(&ucfg, 0, sizeof(ucfg));
	ucfg.fill_size = SV_XDP_RX_CHUNKS;
	ucfg.comp_size = SV_XDP_TX_CHUNKS;
	ucfg.frame_size = SV_XDP_CHUNK;
	ucfg.frame_headroom = 0;
	/* socket(AF_XDP): EAFNOSUPPORT without CONFIG_XDP_SOCKETS, EPERM
	 * without CAP_NET_RAW (xsk_create()); the UMEM registration:
	 * ENOBUFS over RLIMIT_MEMLOCK without CAP_IPC_LOCK
	 * (xdp_umem_account_pages()). */
	rc = xsk_umem__create(&x->umem, x->area,
			      (uint64_t)SV_XDP_CHUNKS * SV_XDP_CHUNK, &x->fill,
			      &x->comp, &ucfg);
	if (rc != 0) {
		x->umem = NULL;
		return sv_xdp_errno(-rc);
	}
	memset(&scfg, 0, sizeof(scfg));
	scfg.rx_size = SV_XDP_RX_CHUNKS;
	scfg.tx_size = SV_XDP_TX_CHUNKS;
	scfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
	scfg.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP;
	/* bind(): EBUSY when queue 0 has an AF_XDP socket already
	 * (xp_assign_dev()). */
	rc = xsk_socket__create(&x->xsk, x->ifname, 0, x->umem, &x->rx, &x->tx,
				&scfg);
	if (rc != 0) {
		x->xsk = NULL;
		return sv_xdp_errno(-rc);
	}
	x->xsk_fd = xsk_socket__fd(x->xsk);

	/* Rx chunks first, all given to the kernel; tx chunks after. */
	if (xsk_ring_prod__reserve(&x->fill, SV_XDP_RX_CHUNKS, &idx) !=
	    SV_XDP_RX_CHUNKS)
		return ENOMEM;
	for (i = 0; i < SV_XDP_RX_CHUNKS; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) =
			(uint64_t)i * SV_XDP_CHUNK;
	xsk_ring_prod__submit(&x->fill, SV_XDP_RX_CHUNKS);
	x->tx_free = malloc(SV_XDP_TX_CHUNKS * sizeof(*x->tx_free));
	if (x->tx_free == NULL)
		return ENOMEM;
	for (i = 0; i < SV_XDP_TX_CHUNKS; i++)
		x->tx_free[i] = (uint64_t)(SV_XDP_RX_CHUNKS + i) * SV_XDP_CHUNK;
	x->tx_nfree = SV_XDP_TX_CHUNKS;
	return 0;
}

/*
 * The interface promiscuous, as the AF_PACKET wire has it: the device
 * filters by MAC address itself, as a NIC does, and a NIC's own filter
 * runs before XDP. A packet socket's membership, dropped by the kernel
 * when the socket closes, even if the process dies; protocol 0, so the
 * socket receives nothing.
 */
static int
sv_xdp_promisc(struct sv_xdp *x)
{
	struct packet_mreq mr;

	x->promisc_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (x->promisc_fd < 0)
		return sv_xdp_errno(errno);
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = x->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(x->promisc_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) != 0)
		return sv_xdp_errno(errno);
	return 0;
}

/* The map and the program: the privileged steps that come first, so
 * that a process without CAP_BPF and CAP_NET_ADMIN learns it before
 * pinning the frame memory. */
static int
sv_xdp_program(struct sv_xdp *x)
{
	int fd;

	/* bpf(): ENOSYS without CONFIG_BPF_SYSCALL; EPERM without CAP_BPF
	 * (or CAP_SYS_ADMIN), and without CAP_NET_ADMIN for an XSKMAP. */
	fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "sv_xsks", sizeof(uint32_t),
			    sizeof(uint32_t), 1, NULL);
	if (fd < 0)
		return sv_xdp_errno(-fd);
	x->map_fd = fd;
	/* The tag-restoring program where the kernel has the kfunc; the
	 * plain one otherwise, or if it is refused for any reason. */
	fd = sv_xdp_prog_load(x->map_fd, x->ifindex, true);
	x->tagging = fd >= 0;
	if (fd < 0)
		fd = sv_xdp_prog_load(x->map_fd, x->ifindex, false);
	if (fd < 0)
		return -fd;
	x->prog_fd = fd;
	return 0;
}

/* The socket into the map, then the program onto the interface: from
 * its first frame on, the program has a socket to redirect to. */
static int
sv_xdp_attach(struct sv_xdp *x)
{
	uint32_t key = 0;
	int fd;

	if (bpf_map_update_elem(x->map_fd, &key, &x->xsk_fd, 0) != 0)
		return sv_xdp_errno(errno);
	/* EPERM without CAP_NET_ADMIN. */
	fd = bpf_link_create(x->prog_fd, x->ifindex, BPF_XDP, NULL);
	if (fd == -EINVAL && x->tagging) {
		/* Generic XDP takes no device-bound program
		 * (dev_xdp_attach()): the plain one then. */
		fd = sv_xdp_prog_load(x->map_fd, x->ifindex, false);
		if (fd < 0)
			return -fd;
		close(x->prog_fd);
		x->prog_fd = fd;
		x->tagging = false;
		fd = bpf_link_create(x->prog_fd, x->ifindex, BPF_XDP, NULL);
	}
	if (fd < 0)
		return sv_xdp_attach_errno(-fd);
	x->link_fd = fd;
	return 0;
}

static int
sv_xdp_open(const char *name, void **priv, int *end, uint8_t mac[6])
{
	struct ifreq ifr;
	struct sv_xdp *x;
	unsigned int ifindex, tries;
	void *area;
	int rc;

	if (name[0] == '\0' || strlen(name) >= IFNAMSIZ)
		return ENODEV;
	ifindex = if_nametoindex(name);
	if (ifindex == 0)
		return errno == ENOMEM ? ENOMEM : ENODEV;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return ENOMEM;
	pthread_mutex_init(&x->tx_lock, NULL);
	x->ifindex = (int)ifindex;
	strcpy(x->ifname, name);
	x->map_fd = -1;
	x->prog_fd = -1;
	x->link_fd = -1;
	x->xsk_fd = -1;
	x->promisc_fd = -1;
	x->ctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (x->ctl_fd < 0) {
		rc = errno;
		goto fail;
	}
	sv_xdp_ifreq(x, &ifr);
	rc = sv_xdp_ioctl(x, SIOCGIFHWADDR, &ifr);
	if (rc != 0)
		goto fail;
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		rc = EINVAL; /* frames would not start with an Ethernet header */
		goto fail;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	sv_xdp_ifreq(x, &ifr);
	rc = sv_xdp_ioctl(x, SIOCGIFMTU, &ifr);
	if (rc != 0)
		goto fail;
	if ((unsigned int)ifr.ifr_mtu > SV_XDP_MTU_MAX) {
		rc = EMSGSIZE; /* its frames would not fit a chunk */
		goto fail;
	}
	atomic_init(&x->mtu, (unsigned int)ifr.ifr_mtu);
	atomic_init(&x->rx_frames, 0);
	atomic_init(&x->tx_frames, 0);
	atomic_init(&x->tx_errors, 0);
	rc = sv_xdp_program(x);
	if (rc == 0) {
		area = mmap(NULL, (size_t)SV_XDP_CHUNKS * SV_XDP_CHUNK,
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (area == MAP_FAILED)
			rc = errno;
		else
			x->area = area;
	}
	for (tries = 0; rc == 0; tries++) {
		/* A socket just closed on this queue leaves it only when
		 * the kernel's deferred release runs (xp_put_pool()). */
		rc = sv_xdp_socket(x);
		if (rc != EBUSY || tries == SV_XDP_BIND_TRIES)
			break;
		sv_xdp_socket_free(x);
		usleep(SV_XDP_BIND_WAIT_US);
		rc = 0;
	}
	if (rc == 0)
		rc = sv_xdp_promisc(x);
	if (rc == 0)
		rc = sv_xdp_attach(x);
	if (rc != 0)
		goto fail;
	*end = 0;
	*priv = x;
	return 0;
fail:
	sv_xdp_free(x);
	return rc;
}

static void
sv_xdp_close(void *priv)
{
	sv_xdp_free(priv);
}

static unsigned int
sv_xdp_rx(void *priv, unsigned int max, sv_wire_rx_cb cb, void *arg)
{
	struct sv_xdp *x = priv;
	uint32_t idx_rx = 0, idx_fill = 0, i, n;

	n = xsk_ring_cons__peek(&x->rx, max, &idx_rx);
	if (n == 0) {
		/* Copy mode never asks; a zero-copy driver may. */
		if (xsk_ring_prod__needs_wakeup(&x->fill))
			recvfrom(x->xsk_fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&x->rx, idx_rx + i);

		cb(arg, x->area + d->addr, d->len);
	}
	/* Each chunk goes back to the fill ring as soon as it is read. The
	 * fill ring has room for every rx chunk, so this never waits. */
	if (xsk_ring_prod__reserve(&x->fill, n, &idx_fill) == n) {
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&x->rx, idx_rx + i);

			*xsk_ring_prod__fill_addr(&x->fill, idx_fill + i) =
				d->addr & ~(uint64_t)(SV_XDP_CHUNK - 1);
		}
		xsk_ring_prod__submit(&x->fill, n);
	}
	xsk_ring_cons__release(&x->rx, n);
	atomic_fetch_add_explicit(&x->rx_frames, n, memory_order_relaxed);
	return n;
}

/* Take back the tx chunks the kernel is done with. */
static void
sv_xdp_reap(struct sv_xdp *x)
{
	uint32_t idx = 0, i, n;

	n = xsk_ring_cons__peek(&x->comp, SV_XDP_TX_CHUNKS, &idx);
	for (i = 0; i < n; i++)
		x->tx_free[x->tx_nfree++] =
			*xsk_ring_cons__comp_addr(&x->comp, idx + i);
	if (n != 0)
		xsk_ring_cons__release(&x->comp, n);
}

/* Frames of the tx ring the kernel has not taken yet. */
static uint32_t
sv_xdp_tx_queued(const struct sv_xdp *x)
{
	return *x->tx.producer -
	       __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE);
}

/* Undo the submission of the last n frames, which the kernel has not
 * read: the producer moves back and their chunks are free again. */
static unsigned int
sv_xdp_give_back(struct sv_xdp *x, unsigned int n)
{
	unsigned int i;

	x->tx.cached_prod -= n;
	__atomic_store_n(x->tx.producer, x->tx.cached_prod, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++)
		x->tx_free[x->tx_nfree++] =
			xsk_ring_prod__tx_desc(&x->tx, x->tx.cached_prod + i)
				->addr;
	return n;
}

/*
 * Have the kernel send the frames of the tx ring, the last pending of
 * which are this batch's. Returns how many of those it did not send:
 *  - all of them when the first sendto() fails outright: that happens
 *    before the kernel looks at the ring (xsk_check_common(): interface
 *    down, socket unbound), so the producer moves back over them, their
 *    chunks are free again and none of them goes out later;
 *  - one per EBUSY: the kernel took a frame and dropped it
 *    (__dev_direct_xmit() with no carrier).
 * EAGAIN is the kernel's per-call budget or a full device queue: call
 * again while that makes progress. Frames left after a failure later in
 * the kick stay queued and go with the next kick.
 */
static unsigned int
sv_xdp_kick(struct sv_xdp *x, unsigned int pending)
{
	unsigned int dropped = 0, tries = 0;
	bool first = true;

	while (sv_xdp_tx_queued(x) != 0) {
		uint32_t before = *x->tx.consumer;

		if (!xsk_ring_prod__needs_wakeup(&x->tx))
			break; /* a zero-copy driver that polls by itself */
		if (sendto(x->xsk_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0) {
			int e = errno;

			if (e == EBUSY && dropped < pending) {
				dropped++;
			} else if (e != EAGAIN && e != ENOBUFS && e != EINTR) {
				if (first)
					return sv_xdp_give_back(x, pending);
				break;
			}
		}
		first = false;
		sv_xdp_reap(x);
		if (__atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE) != before)
			tries = 0;
		else if (++tries == SV_XDP_KICK_TRIES)
			break;
		else
			sched_yield();
	}
	return dropped;
}

/* A free tx chunk, waiting a bounded while for completions. */
static bool
sv_xdp_tx_chunk(struct sv_xdp *x, unsigned int *pending, unsigned int *sent)
{
	int64_t deadline;

	if (x->tx_nfree != 0)
		return true;
	sv_xdp_reap(x);
	if (x->tx_nfree != 0)
		return true;
	if (*pending != 0) {
		xsk_ring_prod__submit(&x->tx, *pending);
		*sent -= sv_xdp_kick(x, *pending);
		*pending = 0;
	}
	deadline = sv_wire_now_ns() + SV_XDP_TX_WAIT_NS;
	do {
		sv_xdp_reap(x);
		if (x->tx_nfree != 0)
			return true;
		/* Frames left from a kick that gave up go now. */
		if (sv_xdp_tx_queued(x) != 0)
			sendto(x->xsk_fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
		else
			sched_yield();
	} while (sv_wire_now_ns() < deadline);
	return false;
}

static unsigned int
sv_xdp_tx(void *priv, const struct iovec *iov, const unsigned int *first,
	  unsigned int n)
{
	struct sv_xdp *x = priv;
	unsigned int i, j, mtu, pending = 0, sent = 0;

	mtu = atomic_load_explicit(&x->mtu, memory_order_relaxed);
	pthread_mutex_lock(&x->tx_lock);
	sv_xdp_reap(x);
	for (i = 0; i < n; i++) {
		struct xdp_desc *d;
		size_t len = 0, max;
		uint32_t idx;
		uint8_t *data;
		uint64_t addr;

		for (j = first[i]; j < first[i + 1]; j++)
			len += iov[j].iov_len;
		if (len < ETH_HLEN || len > SV_XDP_CHUNK)
			continue;
		if (!sv_xdp_tx_chunk(x, &pending, &sent))
			break; /* the rest count as errors */
		addr = x->tx_free[x->tx_nfree - 1];
		data = x->area + addr;
		for (j = first[i]; j < first[i + 1]; j++) {
			memcpy(data, iov[j].iov_base, iov[j].iov_len);
			data += iov[j].iov_len;
		}
		/* What the AF_PACKET wire lets the kernel refuse: MTU plus
		 * the Ethernet header, plus one 802.1Q (not 802.1ad) tag.
		 * The copy-mode transmit path checks no MTU itself. */
		max = (size_t)mtu + ETH_HLEN;
		if (sv_rd16(x->area + addr + 12) == ETH_P_8021Q)
			max += SV_XDP_VLAN_HLEN;
		if (len > max)
			continue;
		/* The ring has a slot for every tx chunk: never fails. */
		if (xsk_ring_prod__reserve(&x->tx, 1, &idx) != 1)
			break;
		x->tx_nfree--;
		d = xsk_ring_prod__tx_desc(&x->tx, idx);
		d->addr = addr;
		d->len = (uint32_t)len;
		d->options = 0;
		pending++;
		sent++;
	}
	if (pending != 0) {
		xsk_ring_prod__submit(&x->tx, pending);
		sent -= sv_xdp_kick(x, pending);
	}
	pthread_mutex_unlock(&x->tx_lock);
	if (sent != 0)
		atomic_fetch_add_explicit(&x->tx_frames, sent,
					  memory_order_relaxed);
	if (sent != n)
		atomic_fetch_add_explicit(&x->tx_errors, n - sent,
					  memory_order_relaxed);
	return sent;
}

static unsigned int
sv_xdp_mtu(void *priv)
{
	struct sv_xdp *x = priv;
	struct ifreq ifr;

	sv_xdp_ifreq(x, &ifr);
	if (sv_xdp_ioctl(x, SIOCGIFMTU, &ifr) == 0)
		atomic_store_explicit(&x->mtu, (unsigned int)ifr.ifr_mtu,
				      memory_order_relaxed);
	return atomic_load_explicit(&x->mtu, memory_order_relaxed);
}

/* The interface's own maximum, within what the frame memory holds. */
static unsigned int
sv_xdp_max_mtu(void *priv)
{
	struct sv_xdp *x = priv;
	unsigned int max = 0;

	if (vsteer_netdev_max_mtu(x->ifname, &max) != 0 || max == 0 ||
	    max > SV_XDP_MTU_MAX)
		max = SV_XDP_MTU_MAX;
	return max;
}

static int
sv_xdp_set_mtu(void *priv, unsigned int mtu)
{
	struct sv_xdp *x = priv;
	struct ifreq ifr;
	int rc;

	sv_xdp_ifreq(x, &ifr);
	ifr.ifr_mtu = (int)mtu;
	rc = sv_xdp_ioctl(x, SIOCSIFMTU, &ifr);
	if (rc != 0)
		return rc;
	atomic_store_explicit(&x->mtu, mtu, memory_order_relaxed);
	return 0;
}

static bool
sv_xdp_link_up(void *priv)
{
	struct sv_xdp *x = priv;

	return sv_wire_if_up(x->ctl_fd, x->ifname);
}

/* Speed and duplex of the interface (ethtool), as the packet wire. */
static void
sv_xdp_link_info(void *priv, struct sv_wire_link *link)
{
	sv_wire_if_link_info(((struct sv_xdp *)priv)->ifname, link);
}

static void
sv_xdp_get_stats(void *priv, struct sv_wire_stats *stats)
{
	struct sv_xdp *x = priv;
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	memset(stats, 0, sizeof(*stats));
	/* The kernel's counters only grow: frames it could not put in the
	 * rx ring (full) or had no fill chunk or room for (rx_dropped). */
	memset(&xs, 0, sizeof(xs));
	if (getsockopt(x->xsk_fd, SOL_XDP, XDP_STATISTICS, &xs, &len) == 0)
		stats->rx_kernel_drops = xs.rx_dropped + xs.rx_ring_full;
	stats->rx_frames =
		atomic_load_explicit(&x->rx_frames, memory_order_relaxed);
	stats->tx_frames =
		atomic_load_explicit(&x->tx_frames, memory_order_relaxed);
	stats->tx_errors =
		atomic_load_explicit(&x->tx_errors, memory_order_relaxed);
}

const struct sv_wire_ops sv_wire_xdp_ops = {
	.open = sv_xdp_open,
	.close = sv_xdp_close,
	.rx = sv_xdp_rx,
	.tx = sv_xdp_tx,
	.mtu = sv_xdp_mtu,
	.max_mtu = sv_xdp_max_mtu,
	.set_mtu = sv_xdp_set_mtu,
	.link_up = sv_xdp_link_up,
	.link_info = sv_xdp_link_info,
	.get_stats = sv_xdp_get_stats,
};

#else /* !SV_HAVE_XDP */

/* Built without libxdp and libbpf: the wire exists and says so. */
static int
sv_xdp_open(const char *name, void **priv, int *end, uint8_t mac[6])
{
	return EPROTONOSUPPORT;
}

const struct sv_wire_ops sv_wire_xdp_ops = {
	.open = sv_xdp_open,
};

#endif /* SV_HAVE_XDP */
