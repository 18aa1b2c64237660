/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_WIRE_H
#define SV_WIRE_H

/*
 * A wire moves Ethernet frames between a softverbs port and the outside:
 * a Linux interface through AF_PACKET (sv_wire_packet.c) or AF_XDP
 * (sv_wire_xdp.c), or one end of an in-memory link (sv_wire_mem.c).
 *
 * Concurrency: sv_wire_rx() is called by one thread at a time (the device
 * serialises it with a try-lock); sv_wire_tx() may be called from several
 * threads at once and serialises internally.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct sv_wire;

/* Delivered frames are complete Ethernet frames without FCS, as they would
 * be on a cable: VLAN tags that the kernel moved into metadata are put back
 * in the frame, checksums the sending kernel left to an offload are
 * completed and its segmentation super-frames (TSO/GSO) are cut into
 * frames of the segment size it chose. The pointer is valid only during the
 * callback. */
typedef void (*sv_wire_rx_cb)(void *arg, const uint8_t *frame, uint32_t len);

struct sv_wire_stats {
	uint64_t rx_frames;
	uint64_t rx_kernel_drops;   /* lost before we could read them */
	uint64_t rx_csum_completed; /* checksums left to offload, done */
	uint64_t rx_gso_frames;	    /* super-frames cut into frames */
	uint64_t tx_frames;
	uint64_t tx_errors;
};

/* Largest frame a wire carries for an MTU: the Ethernet header and one
 * VLAN tag on top of it, as the kernel forwards frames between veth ends
 * (is_skb_forwardable) and as mlx5 sizes its port MTU from the netdev's
 * (MLX5E_SW2HW_MTU, FCS aside). */
#define SV_WIRE_FRAME_MAX(mtu) ((uint32_t)(mtu) + 14u + 4u)

/* Link of a wire: speed in Mb/s (0 unknown), duplex, autonegotiation. */
struct sv_wire_link {
	uint32_t speed_mbps;
	bool full_duplex;
	bool autoneg;
};

/*
 * Open a wire. spec is "if:<ifname>", "xdp:<ifname>" or "mem:<link>". For
 * "mem:", end is set to 0 for the first opener of the link and 1 for the
 * second (EBUSY for a third); for "if:" and "xdp:", end is 0. mac receives
 * the wire's Ethernet address (the interface's, or a locally administered
 * one derived from the link name and end). Returns 0 or a positive errno
 * (ENODEV: no such interface, EPERM: no CAP_NET_RAW). "xdp:" also:
 * EPERM: no CAP_NET_ADMIN or CAP_BPF either; EAFNOSUPPORT: the kernel has
 * no AF_XDP; ENOSYS: no bpf(); EBUSY: the interface has an XDP program or
 * an AF_XDP socket on queue 0 already; EMSGSIZE: its MTU (or a veth
 * peer's) is too large for XDP frames; ENOTSUP: its driver refuses XDP;
 * ENOBUFS: the locked-memory limit is too low for the frame memory;
 * EPROTONOSUPPORT: built without AF_XDP.
 */
int
sv_wire_open(const char *spec, struct sv_wire **wire, int *end, uint8_t mac[6]);
void sv_wire_close(struct sv_wire *wire);

/* Pull up to max frames, calling cb for each; returns how many. Never
 * blocks. */
unsigned int
sv_wire_rx(struct sv_wire *wire, unsigned int max, sv_wire_rx_cb cb, void *arg);

/*
 * Send n frames, frame i gathered from iov[first[i] .. first[i+1]-1]
 * (first has n + 1 entries). One kick of the wire for the whole batch.
 * Returns how many frames were accepted (the rest count as tx_errors).
 */
unsigned int sv_wire_tx(struct sv_wire *wire, const struct iovec *iov,
			const unsigned int *first, unsigned int n);

/* MTU of the wire (L3 payload bytes, the interface's current one for
 * "if:"), the largest it takes, link state and speed. set_mtu: EINVAL out of
 * [SV_WIRE_MTU_MIN, max], EPERM when the interface may not be changed. */
#define SV_WIRE_MTU_MIN 68u /* IPv4's minimum (ETH_MIN_MTU) */
unsigned int sv_wire_mtu(const struct sv_wire *wire);
unsigned int sv_wire_max_mtu(const struct sv_wire *wire);
int sv_wire_set_mtu(struct sv_wire *wire, unsigned int mtu);
bool sv_wire_link_up(const struct sv_wire *wire);
void sv_wire_link_info(const struct sv_wire *wire, struct sv_wire_link *link);
void sv_wire_get_stats(const struct sv_wire *wire, struct sv_wire_stats *stats);

/*
 * Descriptors to sleep on, for a device without a thread of its own
 * (completion channels and async events, sv_event.c). Each returns an fd
 * the wire owns, or a negative errno (-ENOTSUP: the wire has none).
 *
 * sv_wire_rx_fd(): polls readable (POLLIN, level) whenever frames wait for
 * sv_wire_rx(); it may be readable with nothing waiting, never unreadable
 * with frames waiting. The first call may turn on work the wire otherwise
 * skips (the in-memory link then signals each batch that finds the ring
 * empty).
 *
 * sv_wire_link_fd(): polls readable when the link may have changed;
 * sv_wire_link_poll() drains it and writes the link states (true: up) the
 * wire went through since the last call, oldest first, up to max (the
 * latest kept when there were more), returning how many. Called by one
 * thread at a time.
 */
int sv_wire_rx_fd(struct sv_wire *wire);
int sv_wire_link_fd(struct sv_wire *wire);
unsigned int
sv_wire_link_poll(struct sv_wire *wire, bool *states, unsigned int max);
/* Take the wire's end of the link administratively down or up (`ip link
 * set down`): an in-memory link is up when both ends are open and up.
 * Returns 0 or a positive errno: ENOTSUP for wires on a Linux interface
 * (change the interface itself). */
int sv_wire_set_link(struct sv_wire *wire, bool up);

/*
 * Backends, for sv_wire_*.c only: sv_wire_open() picks one by the spec
 * prefix and forwards each call with the state its open returned. open
 * gets the spec without its prefix.
 */
struct sv_wire_ops {
	int (*open)(const char *name, void **priv, int *end, uint8_t mac[6]);
	void (*close)(void *priv);
	unsigned int (*rx)(void *priv, unsigned int max, sv_wire_rx_cb cb,
			   void *arg);
	unsigned int (*tx)(void *priv, const struct iovec *iov,
			   const unsigned int *first, unsigned int n);
	unsigned int (*mtu)(void *priv);
	unsigned int (*max_mtu)(void *priv);
	/* Gets an MTU in [SV_WIRE_MTU_MIN, max_mtu()]: sv_wire_set_mtu()
	 * checks. */
	int (*set_mtu)(void *priv, unsigned int mtu);
	bool (*link_up)(void *priv);
	void (*link_info)(void *priv, struct sv_wire_link *link);
	void (*get_stats)(void *priv, struct sv_wire_stats *stats);
	/* Optional (NULL: ENOTSUP, no link changes): see sv_wire_rx_fd()
	 * and the calls after it. */
	int (*rx_fd)(void *priv);
	int (*link_fd)(void *priv);
	unsigned int (*link_poll)(void *priv, bool *states, unsigned int max);
	int (*set_link)(void *priv, bool up);
};

extern const struct sv_wire_ops sv_wire_packet_ops; /* "if:" */
extern const struct sv_wire_ops sv_wire_xdp_ops;    /* "xdp:" */

#endif /* SV_WIRE_H */
