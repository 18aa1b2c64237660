/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The AF_XDP wire ("xdp:<ifname>") on veth pairs, as root, in a network
 * namespace of the test's own. The other end of the pair is read and
 * written through the AF_PACKET wire ("if:"), an independent path
 * through the kernel. Checks what every wire gives (frames byte for
 * byte, VLAN tags, counters, MTU, link state, batches), what is
 * particular to XDP (native mode on veth, generic mode elsewhere, the
 * kernel stack no longer seeing the frames of queue 0 but keeping those
 * of other queues, the program gone with the wire even when the process
 * dies or the open fails half way) and the errors of the open.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <arpa/inet.h>
#include <linux/capability.h>
#include <linux/if_ether.h>

#include "vt_wire.h"

#ifdef SV_HAVE_XDP
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#endif

/* Mirrors of the wire's limits (sv_wire_xdp.c). */
#define XDP_MTU_MAX 3818	   /* 4096 - 256 headroom - 14 - two tags */
#define VETH_XDP_PEER_MTU_MAX 3506 /* veth_xdp_set() on x86-64 */

/* No root needed: names that cannot be opened. */
static int
test_xdp_spec_errors(void)
{
	struct sv_wire *w = (struct sv_wire *)&w;
#ifdef SV_HAVE_XDP
	VT_CHECK_EQ(sv_wire_open("xdp:", &w, NULL, NULL), ENODEV, "empty");
	VT_CHECK(w == NULL, "no wire on failure");
	VT_CHECK_EQ(sv_wire_open("xdp:sv-no-such-if", &w, NULL, NULL), ENODEV,
		    "unknown interface");
	VT_CHECK_EQ(sv_wire_open("xdp:an-interface-name-too-long", &w, NULL,
				 NULL),
		    ENODEV, "long interface name");
	/* Before any privileged step: frames would not be Ethernet. */
	VT_CHECK_EQ(sv_wire_open("xdp:lo", &w, NULL, NULL), EINVAL,
		    "loopback is not an Ethernet interface");
#else
	VT_CHECK_EQ(sv_wire_open("xdp:lo", &w, NULL, NULL), EPROTONOSUPPORT,
		    "built without AF_XDP: the wire says so");
	VT_CHECK(w == NULL, "no wire on failure");
#endif
	return VT_OK;
}

#ifdef SV_HAVE_XDP

enum xdp_mode {
	XDP_NONE,
	XDP_NATIVE,
	XDP_GENERIC,
};

/* The XDP program on ifname, as ip(8) reports it: "mtu 1500 xdp qdisc"
 * (native) or "xdpgeneric" in the interface's line. */
static enum xdp_mode
xdp_mode(const char *ifname)
{
	char cmd[96], line[512];

	snprintf(cmd, sizeof(cmd), "ip link show dev %s", ifname);
	if (!vt_sh_grep(cmd, " mtu ", line, sizeof(line)))
		return XDP_NONE;
	if (strstr(line, " xdpgeneric ") != NULL)
		return XDP_GENERIC;
	return strstr(line, " xdp ") != NULL ? XDP_NATIVE : XDP_NONE;
}

static int
count_fds(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int
xdp_open(const char *ifname, struct sv_wire **w, uint8_t mac[6])
{
	char spec[IFNAMSIZ + 8];
	int end = -1;
	int rc;

	snprintf(spec, sizeof(spec), "xdp:%s", ifname);
	*w = NULL;
	rc = sv_wire_open(spec, w, &end, mac);
	if (rc == 0 && end != 0) {
		sv_wire_close(*w);
		return -1;
	}
	return rc;
}

static int
xpair_open(struct vt_pair *pr, const char *a, const char *b)
{
	char spec[IFNAMSIZ + 4];
	uint8_t mac[6];
	unsigned int i;
	int mtu = 0;

	memset(pr, 0, sizeof(*pr));
	VT_CHECK_EQ(xdp_open(a, &pr->w[0], pr->mac[0]), 0, "open xdp:%s", a);
	snprintf(spec, sizeof(spec), "if:%s", b);
	VT_CHECK_EQ(sv_wire_open(spec, &pr->w[1], NULL, pr->mac[1]), 0,
		    "open %s", spec);
	VT_CHECK(vt_if_mac_mtu(a, mac, &mtu) == 0, "ifreq");
	VT_CHECK(memcmp(mac, pr->mac[0], 6) == 0, "the interface's MAC");
	VT_CHECK_EQ(sv_wire_mtu(pr->w[0]), mtu, "the interface's MTU");
	for (i = 0; i < 2; i++) {
		pr->c[i] = vt_coll_new(true);
		VT_CHECK(pr->c[i] != NULL, "alloc");
	}
	for (i = 0; i < 2; i++)
		VT_CHECK(vt_wait_link(pr->w[i], true, 3000), "link %u up", i);
	return VT_OK;
}

/* A plain packet socket on ifname: what the kernel stack receives. */
static int
stack_socket(const char *ifname)
{
	struct sockaddr_ll sll;
	int fd;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	if (fd < 0)
		return -1;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Incoming frames of ours the stack socket got within ms. */
static unsigned int
stack_count(int fd, int ms)
{
	uint8_t buf[2048];
	struct sockaddr_ll sll;
	int64_t end = vt_now_ms() + ms;
	unsigned int n = 0;

	while (vt_now_ms() < end) {
		socklen_t sl = sizeof(sll);
		ssize_t len = recvfrom(fd, buf, sizeof(buf), 0,
				       (struct sockaddr *)&sll, &sl);
		int off;

		if (len < 0) {
			usleep(1000);
			continue;
		}
		off = vt_payload_off(buf, (uint32_t)len);
		if (sll.sll_pkttype != PACKET_OUTGOING && off >= 0 &&
		    memcmp(buf + off, vt_marker, VT_MARK_LEN) == 0)
			n++;
	}
	return n;
}

/* A tc program on ifname's egress that pushes an 802.1Q tag of vid into
 * the frames' metadata (bpf_skb_vlan_push()). */
static int
tag_egress(const char *ifname, int vid)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_2,
		  .imm = 0x0081 }, /* htons(ETH_P_8021Q) */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_3,
		  .imm = vid },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_skb_vlan_push },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_0,
		  .imm = 0 }, /* TC_ACT_OK */
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int fd, rc;

	fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "vt_vlan_push", "BSD",
			   insns, sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd < 0)
		return fd;
	memset(&hook, 0, sizeof(hook));
	hook.sz = sizeof(hook);
	hook.ifindex = (int)if_nametoindex(ifname);
	hook.attach_point = BPF_TC_EGRESS;
	rc = bpf_tc_hook_create(&hook);
	if (rc == 0) {
		memset(&opts, 0, sizeof(opts));
		opts.sz = sizeof(opts);
		opts.prog_fd = fd;
		rc = bpf_tc_attach(&hook, &opts);
	}
	close(fd); /* the filter holds the program */
	return rc;
}

static int
xdp_frames(const char *an, const char *bn)
{
	static uint8_t buf[3000][4096];
	static uint8_t *frames[3000];
	static uint32_t len[3000];
	const uint16_t q[2] = { 0x8100, 0x6064 }; /* PCP 3 VID 100 */
	const uint16_t qinq[4] = { 0x88a8, 0x0123, 0x8100, 0x0456 };
	struct sv_wire_stats st;
	struct vt_pair pr;
	unsigned int i, d;
	int rc, fd;

	VT_CHECK_EQ(xdp_mode(an), XDP_NONE, "no XDP program before");
	rc = xpair_open(&pr, an, bn);
	if (rc != VT_OK)
		return rc;
	VT_CHECK_EQ(xdp_mode(an), XDP_NATIVE, "native XDP on a veth");
	VT_CHECK_EQ(vt_promiscuity(an), 1, "the wire made a promiscuous");
	for (d = 0; d < 2; d++) {
		for (i = 0; i < 20; i++)
			len[i] = vt_build(buf[i], pr.mac[1 - d], pr.mac[d],
					  NULL, 0, i,
					  60 + (i * 97) % (1514 - 60 + 1));
		len[20] = vt_build(buf[20], pr.mac[1 - d], pr.mac[d], NULL, 0,
				   20, 1514);
		/* Broadcast too: the device does its own filtering. */
		len[21] = vt_build(buf[21], vt_bcast, pr.mac[d], NULL, 0, 21,
				   100);
		rc = vt_pair_exchange(&pr, d, buf[0], sizeof(buf[0]), len, 22);
		if (rc != VT_OK)
			goto out;
	}

	/* VLAN tags in the frame travel as they are, both ways. */
	for (d = 0; d < 2; d++) {
		len[0] = vt_build(buf[0], pr.mac[1 - d], pr.mac[d], q, 1, 100,
				  200);
		len[1] = vt_build(buf[1], pr.mac[1 - d], pr.mac[d], qinq, 2,
				  101, 300);
		len[2] = vt_build(buf[2], pr.mac[1 - d], pr.mac[d], q, 1, 102,
				  1518);
		rc = vt_pair_exchange(&pr, d, buf[0], sizeof(buf[0]), len, 3);
		if (rc != VT_OK)
			goto out;
	}
	/* A tag the sending kernel keeps in metadata (pushed on b's egress
	 * as a VLAN device or tc would, veth offloading tag insertion) is
	 * in the frame XDP sees. */
	VT_CHECK_EQ(tag_egress(bn, 7), 0, "tc program pushing VID 7 on %s", bn);
	len[0] = vt_build(buf[0], pr.mac[0], pr.mac[1], NULL, 0, 200, 120);
	VT_CHECK(vt_raw_send(bn, buf[0], len[0]) == 0, "send on %s", bn);
	vt_coll_reset(pr.c[0]);
	VT_CHECK_EQ(vt_coll_wait(pr.w[0], pr.c[0], 1, 2000), 1,
		    "tagged frame received");
	VT_CHECK_EQ(pr.c[0]->len[0], len[0] + 4, "with its tag");
	VT_CHECK(pr.c[0]->f[0][12] == 0x81 && pr.c[0]->f[0][13] == 0x00 &&
			 pr.c[0]->f[0][14] == 0x00 && pr.c[0]->f[0][15] == 0x07,
		 "802.1Q tag of VID 7 after the MACs");
	VT_CHECK(memcmp(pr.c[0]->f[0], buf[0], 12) == 0 &&
			 memcmp(pr.c[0]->f[0] + 16, buf[0] + 12, len[0] - 12) ==
				 0,
		 "the rest of the frame intact");
	VT_CHECK_EQ(vt_sh("tc qdisc del dev %s clsact", bn), 0, "untag");

	/* Frames leaving a through the stack go out; the wire reports only
	 * what comes in. */
	len[0] = vt_build(buf[0], pr.mac[1], pr.mac[0], NULL, 0, 500, 80);
	VT_CHECK(vt_raw_send(an, buf[0], len[0]) == 0, "send through stack");
	vt_coll_reset(pr.c[0]);
	vt_coll_reset(pr.c[1]);
	VT_CHECK_EQ(vt_coll_wait(pr.w[1], pr.c[1], 1, 2000), 1, "b gets it");
	VT_CHECK(memcmp(pr.c[1]->f[0], buf[0], len[0]) == 0, "intact");
	vt_coll_wait(pr.w[0], pr.c[0], 1, 50);
	VT_CHECK_EQ(pr.c[0]->n, 0, "a does not see its outgoing frame");

	/* The kernel stack on a no longer receives: the frames are the
	 * socket's. */
	fd = stack_socket(an);
	VT_CHECK(fd >= 0, "packet socket on %s", an);
	for (i = 0; i < 10; i++)
		len[i] = vt_build(buf[i], pr.mac[0], pr.mac[1], NULL, 0,
				  600 + i, 90);
	rc = vt_pair_exchange(&pr, 1, buf[0], sizeof(buf[0]), len, 10);
	if (rc != VT_OK) {
		close(fd);
		goto out;
	}
	VT_CHECK_EQ(stack_count(fd, 200), 0,
		    "the stack sees none of the frames the wire takes");

	/* Limits: a runt and an untagged frame over the MTU are refused. */
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 0, "no errors yet");
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[0], 12), 0, "runt");
	len[3] = vt_build(buf[3], pr.mac[1], pr.mac[0], NULL, 0, 103, 1515);
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "over the MTU");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 2, "counted");

	/* One call, more frames than the kernel sends per kick (32) and
	 * than the wire has tx chunks (2048): all accepted, in order. */
	for (i = 0; i < 3000; i++) {
		frames[i] = buf[i];
		len[i] = vt_build(buf[i], pr.mac[1], pr.mac[0], NULL, 0,
				  1000 + i, 60 + (i * 13) % 300);
	}
	vt_coll_reset(pr.c[1]);
	VT_CHECK_EQ(vt_send_batch(pr.w[0], frames, len, 3000), 3000,
		    "batch tx");
	VT_CHECK_EQ(vt_coll_wait(pr.w[1], pr.c[1], 3000, 3000), 3000,
		    "batch rx (%u other frames)", pr.c[1]->other);
	for (i = 0; i < 3000; i++)
		VT_CHECK(pr.c[1]->len[i] == len[i] &&
				 memcmp(pr.c[1]->f[i], buf[i], len[i]) == 0,
			 "batch frame %u byte-exact", i);
	/* And 256 the other way, pulled 64 at a time. */
	for (i = 0; i < 256; i++)
		len[i] = vt_build(buf[i], pr.mac[0], pr.mac[1], NULL, 0,
				  5000 + i, 60 + (i * 13) % 1000);
	vt_coll_reset(pr.c[0]);
	VT_CHECK_EQ(vt_send_batch(pr.w[1], frames, len, 256), 256, "tx");
	VT_CHECK_EQ(vt_coll_wait(pr.w[0], pr.c[0], 256, 2000), 256,
		    "rx (%u other frames)", pr.c[0]->other);
	for (i = 0; i < 256; i++)
		VT_CHECK(pr.c[0]->len[i] == len[i] &&
				 memcmp(pr.c[0]->f[i], buf[i], len[i]) == 0,
			 "frame %u byte-exact", i);
	VT_CHECK_EQ(sv_wire_rx(pr.w[0], 0, vt_coll_cb, pr.c[0]), 0, "max 0");

	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_frames, 22 + 3 + 3000, "tx_frames of a");
	VT_CHECK_EQ(st.tx_errors, 2, "tx_errors of a");
	VT_CHECK(st.rx_frames >= 22 + 3 + 1 + 10 + 256, "rx_frames of a");
	VT_CHECK_EQ(st.rx_kernel_drops, 0, "no kernel drops");

	/* Closing gives the interface back: no program, and the stack
	 * receives again. */
	sv_wire_close(pr.w[0]);
	pr.w[0] = NULL;
	VT_CHECK_EQ(xdp_mode(an), XDP_NONE, "program gone with the wire");
	VT_CHECK_EQ(vt_promiscuity(an), 0, "closing undoes promiscuity");
	for (i = 0; i < 10; i++)
		VT_CHECK_EQ(vt_send3(pr.w[1], buf[i], len[i]), 1, "tx %u", i);
	VT_CHECK_EQ(stack_count(fd, 500), 10, "the stack receives again");
	close(fd);
	rc = VT_OK;
out:
	vt_pair_close(&pr);
	return rc;
}

/* MTU within the chunk's limit, link state, tx with the link down. */
static int
xdp_mtu_link(const char *an, const char *bn)
{
	static uint8_t buf[4][4096];
	static uint32_t len[4];
	const uint16_t q[2] = { 0x8100, 0x0007 };
	struct sv_wire_stats st;
	struct sv_wire_link link;
	struct vt_pair pr;
	uint8_t mac[6];
	int rc, mtu = 0;

	rc = xpair_open(&pr, an, bn);
	if (rc != VT_OK)
		return rc;
	/* A veth takes far more: the chunk is the limit the port reports. */
	VT_CHECK_EQ(sv_wire_max_mtu(pr.w[0]), XDP_MTU_MAX, "largest MTU");
	sv_wire_link_info(pr.w[0], &link);
	VT_CHECK_EQ(link.speed_mbps, 10000, "a veth's speed (ethtool)");
	VT_CHECK(link.full_duplex, "full duplex");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[0], XDP_MTU_MAX + 1), EINVAL,
		    "over what a chunk holds");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[0], 67), EINVAL, "under 68");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[0], XDP_MTU_MAX), 0, "the largest");
	VT_CHECK(vt_if_mac_mtu(an, mac, &mtu) == 0 && mtu == XDP_MTU_MAX,
		 "the interface's MTU changed");
	/* While the program is on a, veth caps the peer's MTU so that its
	 * frames fit one page. */
	VT_CHECK(sv_wire_set_mtu(pr.w[1], VETH_XDP_PEER_MTU_MAX + 1) != 0,
		 "the peer's MTU is capped");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[1], VETH_XDP_PEER_MTU_MAX), 0,
		    "up to the cap");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[0], 3000), 0, "MTU 3000 on a");
	VT_CHECK_EQ(sv_wire_mtu(pr.w[0]), 3000, "reads back");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[1], 3000), 0, "MTU 3000 on b");
	VT_CHECK(vt_wait_link(pr.w[0], true, 3000), "link up");
	VT_CHECK(vt_wait_link(pr.w[1], true, 3000), "link up");
	len[0] = vt_build(buf[0], pr.mac[1], pr.mac[0], NULL, 0, 1, 3014);
	len[1] = vt_build(buf[1], pr.mac[1], pr.mac[0], q, 1, 2, 3018);
	len[2] = vt_build(buf[2], pr.mac[1], pr.mac[0], NULL, 0, 3, 64);
	rc = vt_pair_exchange(&pr, 0, buf[0], sizeof(buf[0]), len, 3);
	if (rc != VT_OK)
		goto out;
	len[0] = vt_build(buf[0], pr.mac[0], pr.mac[1], NULL, 0, 4, 3014);
	len[1] = vt_build(buf[1], pr.mac[0], pr.mac[1], q, 1, 5, 3018);
	rc = vt_pair_exchange(&pr, 1, buf[0], sizeof(buf[0]), len, 2);
	if (rc != VT_OK)
		goto out;
	len[3] = vt_build(buf[3], pr.mac[1], pr.mac[0], NULL, 0, 6, 3015);
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "over the MTU");

	/* Peer down: no carrier. Frames sent meanwhile are dropped by the
	 * kernel, and counted as errors. */
	VT_CHECK_EQ(vt_sh("ip link set %s down", bn), 0, "b down");
	VT_CHECK(vt_wait_link(pr.w[1], false, 3000), "b is down");
	VT_CHECK(vt_wait_link(pr.w[0], false, 3000), "a has no carrier");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 1, "errors so far");
	len[3] = vt_build(buf[3], pr.mac[1], pr.mac[0], NULL, 0, 7, 100);
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "no carrier");
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "no carrier");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 3, "counted");
	VT_CHECK_EQ(vt_sh("ip link set %s up", bn), 0, "b up");
	VT_CHECK(vt_wait_link(pr.w[0], true, 3000), "a up again");
	VT_CHECK(vt_wait_link(pr.w[1], true, 3000), "b up again");

	/* Our interface down: frames are refused and counted, and none of
	 * them is left in the ring to go out later. */
	VT_CHECK_EQ(vt_sh("ip link set %s down", an), 0, "a down");
	VT_CHECK(vt_wait_link(pr.w[0], false, 3000), "a is down");
	len[3] = vt_build(buf[3], pr.mac[1], pr.mac[0], NULL, 0, 66, 100);
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "tx while down");
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "tx while down");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 5, "counted");
	VT_CHECK_EQ(vt_sh("ip link set %s up", an), 0, "a up");
	VT_CHECK(vt_wait_link(pr.w[0], true, 3000), "a up again");
	VT_CHECK_EQ(xdp_mode(an), XDP_NATIVE, "program still there");
	len[0] = vt_build(buf[0], pr.mac[1], pr.mac[0], NULL, 0, 67, 100);
	rc = vt_pair_exchange(&pr, 0, buf[0], sizeof(buf[0]), len, 1);
	if (rc != VT_OK)
		goto out;
	vt_coll_wait(pr.w[1], pr.c[1], 2, 100);
	VT_CHECK_EQ(pr.c[1]->n, 1, "no stale frame went out");
	/* And receiving works after the interface came back. */
	len[0] = vt_build(buf[0], pr.mac[0], pr.mac[1], NULL, 0, 68, 100);
	len[1] = vt_build(buf[1], pr.mac[0], pr.mac[1], q, 1, 69, 1000);
	rc = vt_pair_exchange(&pr, 1, buf[0], sizeof(buf[0]), len, 2);
	if (rc != VT_OK)
		goto out;
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_frames, 3 + 1, "tx_frames");
	VT_CHECK_EQ(st.tx_errors, 5, "tx_errors");
	rc = VT_OK;
out:
	vt_pair_close(&pr);
	return rc;
}

/* Kernel drops when the receiver does not keep up. */
static int
xdp_drops(const char *an, const char *bn)
{
	enum {
		N = 6000,
		B = 200
	};
	static uint8_t buf[B][4096];
	uint8_t *frames[B];
	uint32_t len[B];
	struct sv_wire_stats st;
	struct vt_pair pr;
	unsigned int i, sent = 0, got = 0, polls = 0, n;
	int rc;

	rc = xpair_open(&pr, an, bn);
	if (rc != VT_OK)
		return rc;
	for (i = 0; i < B; i++) {
		frames[i] = buf[i];
		len[i] = vt_build(buf[i], pr.mac[0], pr.mac[1], NULL, 0, i, 64);
	}
	for (i = 0; i < N; i += B)
		sent += vt_send_batch(pr.w[1], frames, len, B);
	VT_CHECK_EQ(sent, N, "all sent");
	usleep(100000);
	do {
		n = sv_wire_rx(pr.w[0], 256, vt_coll_cb, pr.c[0]);
		got += n;
		vt_coll_reset(pr.c[0]);
	} while (n != 0 && polls++ < 1000);
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK(st.rx_kernel_drops > 0, "the kernel's drops are reported");
	VT_CHECK(got >= 1000 && got <= 2048 && got + st.rx_kernel_drops <= N,
		 "got %u (at most a ring), %llu dropped", got,
		 (unsigned long long)st.rx_kernel_drops);
	VT_CHECK_EQ(st.rx_frames, got, "rx_frames");
	/* The ring refills: traffic flows again. */
	vt_coll_reset(pr.c[0]);
	VT_CHECK_EQ(vt_send_batch(pr.w[1], frames, len, 16), 16, "tx");
	VT_CHECK_EQ(vt_coll_wait(pr.w[0], pr.c[0], 16, 2000), 16, "rx again");
	vt_pair_close(&pr);
	return VT_OK;
}

/* Generic XDP where the driver has none (a macvlan over a): the plain
 * program (the kernel refuses a device-bound one in generic mode), and
 * frames as on any interface. */
static int
xdp_generic(const char *an, const char *bn)
{
	static uint8_t buf[8][4096];
	static uint32_t len[8];
	char mn[IFNAMSIZ];
	struct vt_pair pr;
	unsigned int i, d;
	int rc;

	snprintf(mn, sizeof(mn), "%.12sm", an);
	VT_CHECK_EQ(vt_sh("ip link add link %s name %s type macvlan mode "
			  "bridge",
			  an, mn),
		    0, "macvlan");
	vt_disable_ipv6(mn);
	VT_CHECK_EQ(vt_sh("ip link set %s up", mn), 0, "macvlan up");
	rc = xpair_open(&pr, mn, bn);
	if (rc != VT_OK)
		return rc;
	VT_CHECK_EQ(xdp_mode(mn), XDP_GENERIC, "generic XDP on a macvlan");
	for (d = 0; d < 2; d++) {
		for (i = 0; i < 8; i++)
			len[i] = vt_build(buf[i], pr.mac[1 - d], pr.mac[d],
					  NULL, 0, 10 * d + i,
					  60 + (i * 197) % 1455);
		rc = vt_pair_exchange(&pr, d, buf[0], sizeof(buf[0]), len, 8);
		if (rc != VT_OK)
			goto out;
	}
	rc = VT_OK;
out:
	vt_pair_close(&pr);
	if (rc == VT_OK)
		VT_CHECK_EQ(xdp_mode(mn), XDP_NONE, "program gone");
	return rc;
}

/* An IPv4/UDP frame from src to dst whose UDP ports depend on i (so that
 * the sender's queue selection spreads them) carrying our marker. */
static uint32_t
udp_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
	  unsigned int i)
{
	static const uint8_t ip_udp[28] = {
		0x45, 0,
		0,    20 + 8 + VT_MARK_LEN + 4, /* IPv4, total length */
		0,    0,
		0,    0,
		64,   17,
		0,    0, /* TTL 64, UDP */
		10,   0,
		0,    1,
		10,   0,
		0,    2, /* 10.0.0.1 > 10.0.0.2 */
		0x10, 0,
		0x20, 0,
		0,    8 + VT_MARK_LEN + 4,
		0,    0, /* UDP */
	};

	memset(f, 0, 64);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08; /* IPv4 */
	memcpy(f + 14, ip_udp, sizeof(ip_udp));
	f[35] = (uint8_t)i; /* source port */
	f[37] = (uint8_t)i; /* destination port */
	memcpy(f + 42, vt_marker, VT_MARK_LEN);
	f[42 + VT_MARK_LEN + 3] = (uint8_t)i;
	return 64;
}

static bool
is_udp_marked(const uint8_t *f, size_t len)
{
	return len >= 42 + VT_MARK_LEN && f[12] == 0x08 && f[13] == 0 &&
	       memcmp(f + 42, vt_marker, VT_MARK_LEN) == 0;
}

static void
count_udp_cb(void *arg, const uint8_t *f, uint32_t len)
{
	if (is_udp_marked(f, len))
		(*(unsigned int *)arg)++;
}

/* An interface with two queues: the frames that arrive on queue 0 are
 * the wire's, those on queue 1 stay with the kernel stack, none lost. */
static int
xdp_queues(const char *an, const char *bn)
{
	enum {
		N = 64
	};
	char qa[IFNAMSIZ], qb[IFNAMSIZ];
	uint8_t f[64], ma[6], mb[6];
	struct sockaddr_ll sll;
	struct sv_wire *w;
	unsigned int i, wire = 0, stack = 0;
	int fd, mtu, polls;

	snprintf(qa, sizeof(qa), "%.11sqa", an);
	snprintf(qb, sizeof(qb), "%.11sqb", an);
	VT_CHECK_EQ(vt_sh("ip link add %s numtxqueues 2 numrxqueues 2 type "
			  "veth peer name %s numtxqueues 2 numrxqueues 2",
			  qa, qb),
		    0, "two-queue veth");
	vt_disable_ipv6(qa);
	vt_disable_ipv6(qb);
	VT_CHECK_EQ(vt_sh("ip link set %s up && ip link set %s up", qa, qb), 0,
		    "up");
	VT_CHECK(vt_if_mac_mtu(qa, ma, &mtu) == 0 &&
			 vt_if_mac_mtu(qb, mb, &mtu) == 0,
		 "MACs");
	VT_CHECK_EQ(xdp_open(qa, &w, NULL), 0, "open xdp:%s", qa);
	fd = stack_socket(qa);
	VT_CHECK(fd >= 0, "packet socket on %s", qa);
	for (i = 0; i < N; i++) {
		udp_frame(f, ma, mb, i);
		VT_CHECK(vt_raw_send(qb, f, 64) == 0, "send %u", i);
	}
	for (polls = 0; polls < 200 && wire + stack < N; polls++) {
		uint8_t buf[2048];
		ssize_t len;

		sv_wire_rx(w, 64, count_udp_cb, &wire);
		for (;;) {
			socklen_t sl = sizeof(sll);

			len = recvfrom(fd, buf, sizeof(buf), 0,
				       (struct sockaddr *)&sll, &sl);
			if (len < 0)
				break;
			if (sll.sll_pkttype != PACKET_OUTGOING &&
			    is_udp_marked(buf, (size_t)len))
				stack++;
		}
		usleep(10000);
	}
	close(fd);
	sv_wire_close(w);
	vt_sh("ip link del %s", qa);
	VT_CHECK_EQ(wire + stack, N, "every frame (wire %u, stack %u)", wire,
		    stack);
	VT_CHECK(wire > 0 && stack > 0,
		 "both queues used: wire %u (queue 0), stack %u (queue 1)",
		 wire, stack);
	return VT_OK;
}

/* Drop capabilities (and lower the locked-memory limit to memlock bytes
 * unless 0) in this process. */
static int
drop_caps(const int *keep, unsigned int nkeep, rlim_t memlock)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct rlimit rl = { memlock, memlock };
	unsigned int i;

	memset(data, 0, sizeof(data));
	for (i = 0; i < nkeep; i++) {
		data[keep[i] / 32].effective |= 1u << (keep[i] % 32);
		data[keep[i] / 32].permitted |= 1u << (keep[i] % 32);
	}
	if (memlock != 0 && setrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		return -1;
	return (int)syscall(SYS_capset, &hdr, data);
}

/* Open xdp:ifname in a child with only the capabilities keep; its
 * result, or -1. */
static int
open_as(const char *ifname, const int *keep, unsigned int nkeep, rlim_t memlock)
{
	struct sv_wire *w;
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int rc;

		if (drop_caps(keep, nkeep, memlock) != 0)
			_exit(255);
		rc = xdp_open(ifname, &w, NULL);
		/* A half-made open must leave nothing on the interface. */
		if (rc != 0 && xdp_mode(ifname) != XDP_NONE)
			_exit(254);
		_exit(rc);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Attach a program that passes everything, as another tool would
 * (netlink, not a link); its fd, or -1. */
static int
other_program(int ifindex)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "vt_pass", "BSD", insns, 2, NULL);
	if (fd < 0)
		return -1;
	if (bpf_xdp_attach(ifindex, fd, XDP_FLAGS_UPDATE_IF_NOEXIST, NULL) !=
	    0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Errors of the open, and nothing left behind after a failed one or a
 * killed process. */
static int
xdp_errors(const char *an, const char *bn)
{
	const int net_raw_only[] = { CAP_NET_RAW };
	const int no_ipc_lock[] = { CAP_NET_RAW, CAP_NET_ADMIN, CAP_BPF,
				    CAP_SYS_ADMIN };
	const int no_bpf[] = { CAP_NET_RAW, CAP_NET_ADMIN, CAP_IPC_LOCK };
	const int no_net_admin[] = { CAP_NET_RAW, CAP_BPF, CAP_IPC_LOCK };
	struct sv_wire *w, *w2;
	char spec[IFNAMSIZ + 8];
	int fds, rc, prog, p[2], status;
	enum xdp_mode mode;
	char c;
	pid_t pid;

	snprintf(spec, sizeof(spec), "xdp:%s-x", an);
	VT_CHECK_EQ(sv_wire_open(spec, &w, NULL, NULL), ENODEV, "unknown if");

	/* Privileges, as a process that has: none; the socket's but not
	 * the program's; all but CAP_BPF; all but CAP_NET_ADMIN; all but
	 * CAP_IPC_LOCK, with less locked memory than the frames need. */
	VT_CHECK_EQ(open_as(an, NULL, 0, 0), EPERM, "no capability");
	VT_CHECK_EQ(open_as(an, net_raw_only, 1, 0), EPERM,
		    "EPERM with CAP_NET_RAW only");
	VT_CHECK_EQ(open_as(an, no_bpf, 3, 0), EPERM,
		    "EPERM without CAP_BPF or CAP_SYS_ADMIN");
	VT_CHECK_EQ(open_as(an, no_net_admin, 3, 0), EPERM,
		    "EPERM without CAP_NET_ADMIN");
	VT_CHECK_EQ(open_as(an, no_ipc_lock, 4, 1 << 20), ENOBUFS,
		    "ENOBUFS over RLIMIT_MEMLOCK without CAP_IPC_LOCK");

	/* One wire per interface: the second open is refused. */
	fds = count_fds();
	VT_CHECK_EQ(xdp_open(an, &w, NULL), 0, "open");
	VT_CHECK_EQ(xdp_open(an, &w2, NULL), EBUSY, "second open");
	sv_wire_close(w);
	VT_CHECK_EQ(count_fds(), fds, "no fd left by the open and close");
	VT_CHECK_EQ(xdp_mode(an), XDP_NONE, "no program after close");

	/* Another program on the interface. */
	prog = other_program((int)if_nametoindex(an));
	VT_CHECK(prog >= 0, "attach a program of our own");
	VT_CHECK_EQ(xdp_open(an, &w, NULL), EBUSY, "another XDP program");
	VT_CHECK_EQ(count_fds(), fds + 1, "the failed open left no fd");
	VT_CHECK_EQ(bpf_xdp_detach((int)if_nametoindex(an),
				   XDP_FLAGS_UPDATE_IF_NOEXIST, NULL),
		    0, "detach it");
	close(prog);

	/* MTU: ours over what a chunk holds; the veth peer's over what
	 * veth's XDP takes, found only when attaching, after the socket
	 * and program exist: nothing of them may stay. */
	VT_CHECK_EQ(vt_sh("ip link set %s mtu 4000", an), 0, "a mtu 4000");
	VT_CHECK_EQ(xdp_open(an, &w, NULL), EMSGSIZE, "our MTU too large");
	VT_CHECK_EQ(vt_sh("ip link set %s mtu 1500", an), 0, "a mtu 1500");
	VT_CHECK_EQ(vt_sh("ip link set %s mtu 4000", bn), 0, "b mtu 4000");
	VT_CHECK_EQ(xdp_open(an, &w, NULL), EMSGSIZE, "peer MTU too large");
	VT_CHECK_EQ(count_fds(), fds, "the failed open left no fd");
	VT_CHECK_EQ(xdp_mode(an), XDP_NONE, "nor a program");
	VT_CHECK_EQ(vt_promiscuity(an), 0, "nor promiscuity");
	VT_CHECK_EQ(vt_sh("ip link set %s mtu 1500", bn), 0, "b mtu 1500");
	VT_CHECK_EQ(xdp_open(an, &w, NULL), 0, "open works again");
	sv_wire_close(w);

	/* A process that dies with the wire open takes the program along. */
	VT_CHECK(pipe(p) == 0, "pipe");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	VT_CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(p[0]);
		alarm(20); /* the parent kills it; if it cannot, this does */
		rc = xdp_open(an, &w, NULL);
		if (rc != 0)
			fprintf(stderr, "  child: open: %s\n", strerror(rc));
		c = rc == 0 ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	rc = (int)read(p[0], &c, 1);
	close(p[0]);
	mode = xdp_mode(an);
	kill(pid, SIGKILL);
	VT_CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	VT_CHECK(rc == 1 && c == 'y', "the child opened the wire");
	VT_CHECK_EQ(mode, XDP_NATIVE, "its program was there");
	VT_CHECK_EQ(vt_promiscuity(an), 0, "nor promiscuity");
	VT_CHECK_EQ(xdp_mode(an), XDP_NONE, "gone with the process");
	VT_CHECK_EQ(xdp_open(an, &w, NULL), 0, "the interface is free");
	sv_wire_close(w);
	return VT_OK;
}

static int
test_xdp_frames(void)
{
	return vt_run_on_veth(xdp_frames, 60);
}

static int
test_xdp_mtu_link(void)
{
	return vt_run_on_veth(xdp_mtu_link, 30);
}

static int
test_xdp_drops(void)
{
	return vt_run_on_veth(xdp_drops, 30);
}

static int
test_xdp_generic(void)
{
	return vt_run_on_veth(xdp_generic, 30);
}

static int
test_xdp_queues(void)
{
	return vt_run_on_veth(xdp_queues, 30);
}

static int
test_xdp_errors(void)
{
	return vt_run_on_veth(xdp_errors, 30);
}

#endif /* SV_HAVE_XDP */

static const struct vt_case cases[] = {
	VT_CASE(test_xdp_spec_errors),
#ifdef SV_HAVE_XDP
	VT_CASE(test_xdp_frames),
	VT_CASE(test_xdp_mtu_link),
	VT_CASE(test_xdp_drops),
	VT_CASE(test_xdp_generic),
	VT_CASE(test_xdp_queues),
	VT_CASE(test_xdp_errors),
#endif
	{ 0 },
};

int
main(int argc, char **argv)
{
	vt_marker_init();
	return vt_main(argc, argv, cases);
}
