/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VT_WIRE_H
#define VT_WIRE_H

/*
 * Helpers for tests of softverbs wires on veth pairs: test frames that
 * carry a marker and a sequence number, a collector for what a wire
 * receives, senders that gather frames from several pieces, and a veth
 * pair made in a network namespace of the test's own (as root).
 *
 * The including file defines the marker (vt_marker) before use.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sv_wire.h"
#include "vt_test.h"

#define VT_ETYPE_TEST 0x88b5 /* IEEE local experimental */
#define VT_MARK_LEN 8
#define VT_COLL_MAX 8192

static uint8_t vt_marker[VT_MARK_LEN]; /* "SVWT" + the pid */

static const uint8_t vt_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static inline void
vt_marker_init(void)
{
	uint32_t pid = (uint32_t)getpid();

	memcpy(vt_marker, "SVWT", 4);
	vt_marker[4] = pid >> 24;
	vt_marker[5] = pid >> 16;
	vt_marker[6] = pid >> 8;
	vt_marker[7] = pid;
}

static inline int64_t
vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Offset of the test payload (marker) in a frame, or -1. */
static inline int
vt_payload_off(const uint8_t *f, uint32_t len)
{
	uint32_t off = 12;
	int tags;

	for (tags = 0; tags <= 2 && off + 2 <= len; tags++) {
		uint16_t type = (uint16_t)(f[off] << 8 | f[off + 1]);

		if (type == VT_ETYPE_TEST)
			return off + 2 + VT_MARK_LEN <= len ? (int)(off + 2) :
							      -1;
		if (type != 0x8100 && type != 0x88a8)
			return -1;
		off += 4;
	}
	return -1;
}

/*
 * A test frame: dst, src, ntags (tpid, tci) pairs, our ethertype, the
 * marker, a 32-bit sequence number and filler that depends on it.
 */
static inline uint32_t
vt_build(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6],
	 const uint16_t *tags, unsigned int ntags, uint32_t seq, uint32_t len)
{
	uint32_t off = 12, i;

	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	for (i = 0; i < ntags; i++) {
		buf[off++] = tags[2 * i] >> 8;
		buf[off++] = tags[2 * i] & 0xff;
		buf[off++] = tags[2 * i + 1] >> 8;
		buf[off++] = tags[2 * i + 1] & 0xff;
	}
	buf[off++] = VT_ETYPE_TEST >> 8;
	buf[off++] = VT_ETYPE_TEST & 0xff;
	memcpy(buf + off, vt_marker, VT_MARK_LEN);
	off += VT_MARK_LEN;
	buf[off++] = seq >> 24;
	buf[off++] = seq >> 16;
	buf[off++] = seq >> 8;
	buf[off++] = seq;
	for (i = off; i < len; i++)
		buf[i] = (uint8_t)(seq * 7 + i);
	return len > off ? len : off;
}

/* Frames received, copied; only ours (by marker) when filter is set. */
struct vt_coll {
	bool filter;
	unsigned int n;
	unsigned int other;
	uint8_t *f[VT_COLL_MAX];
	uint32_t len[VT_COLL_MAX];
};

static inline void
vt_coll_cb(void *arg, const uint8_t *frame, uint32_t len)
{
	struct vt_coll *c = arg;
	int off = vt_payload_off(frame, len);

	if (c->filter &&
	    (off < 0 || memcmp(frame + off, vt_marker, VT_MARK_LEN) != 0)) {
		c->other++;
		return;
	}
	if (c->n == VT_COLL_MAX)
		return;
	c->f[c->n] = malloc(len);
	if (c->f[c->n] == NULL)
		return;
	memcpy(c->f[c->n], frame, len);
	c->len[c->n] = len;
	c->n++;
}

static inline struct vt_coll *
vt_coll_new(bool filter)
{
	struct vt_coll *c = calloc(1, sizeof(*c));

	if (c != NULL)
		c->filter = filter;
	return c;
}

static inline void
vt_coll_reset(struct vt_coll *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		free(c->f[i]);
	c->n = 0;
	c->other = 0;
}

static inline void
vt_coll_free(struct vt_coll *c)
{
	if (c == NULL)
		return;
	vt_coll_reset(c);
	free(c);
}

/* Poll until want frames are collected or timeout_ms passed. */
static inline unsigned int
vt_coll_wait(struct sv_wire *w, struct vt_coll *c, unsigned int want,
	     int timeout_ms)
{
	int64_t end = vt_now_ms() + timeout_ms;
	unsigned int polls = 0;

	while (c->n < want && polls < 10000000) {
		if (sv_wire_rx(w, 64, vt_coll_cb, c) == 0) {
			if (vt_now_ms() > end)
				break;
			usleep(polls < 100 ? 10 : 1000);
		}
		polls++;
	}
	return c->n;
}

/* Send one frame gathered from three pieces (some may be empty). */
static inline unsigned int
vt_send3(struct sv_wire *w, const uint8_t *f, uint32_t len)
{
	struct iovec iov[3];
	unsigned int first[2] = { 0, 3 };
	uint32_t a = len / 3, b = (2 * len) / 3;

	iov[0].iov_base = (void *)(uintptr_t)f;
	iov[0].iov_len = a;
	iov[1].iov_base = (void *)(uintptr_t)(f + a);
	iov[1].iov_len = b - a;
	iov[2].iov_base = (void *)(uintptr_t)(f + b);
	iov[2].iov_len = len - b;
	return sv_wire_tx(w, iov, first, 1);
}

/* Send n frames of frames[i] (len[i] bytes) in one call, two pieces each. */
static inline unsigned int
vt_send_batch(struct sv_wire *w, uint8_t *const *frames, const uint32_t *len,
	      unsigned int n)
{
	struct iovec *iov = calloc(2 * n, sizeof(*iov));
	unsigned int *first = calloc(n + 1, sizeof(*first));
	unsigned int i, sent = 0;

	if (iov != NULL && first != NULL) {
		for (i = 0; i < n; i++) {
			first[i] = 2 * i;
			iov[2 * i].iov_base = frames[i];
			iov[2 * i].iov_len = 14;
			iov[2 * i + 1].iov_base = frames[i] + 14;
			iov[2 * i + 1].iov_len = len[i] - 14;
		}
		first[n] = 2 * n;
		sent = sv_wire_tx(w, iov, first, n);
	}
	free(iov);
	free(first);
	return sent;
}

static inline int
vt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run a shell command; a failure is printed. */
static inline int
vt_sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "  '%s' failed (%d)\n", cmd, rc);
	return rc;
}

/* Whether a line of a command's output contains needle; the first such
 * line goes to line (when not NULL). */
static inline bool
vt_sh_grep(const char *cmd, const char *needle, char *line, size_t len)
{
	char buf[512];
	bool found = false;
	FILE *f;

	f = popen(cmd, "r");
	if (f == NULL)
		return false;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		if (found || strstr(buf, needle) == NULL)
			continue;
		found = true;
		if (line != NULL)
			snprintf(line, len, "%s", buf);
	}
	pclose(f);
	return found;
}

static inline void
vt_disable_ipv6(const char *ifname)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 ifname);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return; /* no IPv6 at all: no IPv6 noise either */
	if (write(fd, "1", 1) != 1)
		fprintf(stderr, "  cannot disable IPv6 on %s\n", ifname);
	close(fd);
}

static inline int
vt_if_mac_mtu(const char *ifname, uint8_t mac[6], int *mtu)
{
	struct ifreq ifr;
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
		if (ioctl(fd, SIOCGIFMTU, &ifr) == 0) {
			*mtu = ifr.ifr_mtu;
			rc = 0;
		}
	}
	close(fd);
	return rc;
}

/* The interface's promiscuity count (ip -d link), or -1. */
static inline int
vt_promiscuity(const char *ifname)
{
	char cmd[96], line[512], *p;

	snprintf(cmd, sizeof(cmd), "ip -d link show %s", ifname);
	if (!vt_sh_grep(cmd, "promiscuity ", line, sizeof(line)))
		return -1;
	p = strstr(line, "promiscuity ");
	return atoi(p + strlen("promiscuity "));
}

static inline bool
vt_wait_link(struct sv_wire *w, bool up, int timeout_ms)
{
	int64_t end = vt_now_ms() + timeout_ms;

	while (sv_wire_link_up(w) != up) {
		if (vt_now_ms() > end)
			return false;
		usleep(10000);
	}
	return true;
}

typedef int (*vt_veth_body)(const char *a, const char *b);

/*
 * Run body in a child with a fresh veth pair a/b, up, without IPv6. The
 * child makes its own network namespace when it can: the pair then goes
 * with it even if it crashes; otherwise the pair is deleted here after
 * the child, whatever it returned. timeout_s bounds the child.
 */
static inline int
vt_run_on_veth(vt_veth_body body, unsigned int timeout_s)
{
	char a[IFNAMSIZ], b[IFNAMSIZ], in_netns = 0;
	int status, p[2];
	pid_t pid;

	VT_SKIP_IF(geteuid() != 0, "needs root for veth pairs");
	VT_SKIP_IF(system("ip -V >/dev/null 2>&1") != 0, "needs ip(8)");
	snprintf(a, sizeof(a), "vtx%da", (int)getpid());
	snprintf(b, sizeof(b), "vtx%db", (int)getpid());
	VT_CHECK(pipe(p) == 0, "pipe");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	VT_CHECK(pid >= 0, "fork");
	if (pid == 0) {
		int rc = VT_FAIL;
		char ns;

		close(p[0]);
		alarm(timeout_s); /* whatever happens, the child ends */
		ns = unshare(CLONE_NEWNET) == 0;
		if (write(p[1], &ns, 1) != 1)
			_exit(VT_FAIL);
		close(p[1]);
		if (vt_sh("ip link add %s type veth peer name %s", a, b) == 0) {
			vt_disable_ipv6(a);
			vt_disable_ipv6(b);
			if (vt_sh("ip link set %s up", a) == 0 &&
			    vt_sh("ip link set %s up", b) == 0)
				rc = body(a, b);
			vt_sh("ip link del %s", a);
		}
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	close(p[1]);
	if (read(p[0], &in_netns, 1) != 1)
		in_netns = 0;
	close(p[0]);
	VT_CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	if (!in_netns)
		vt_sh("ip link del %s >/dev/null 2>&1 || true", a);
	VT_CHECK(WIFEXITED(status), "child killed by signal %d",
		 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

/* Send a frame out of ifname through the stack (a plain packet socket,
 * the qdisc and the taps), as other software on the host would. */
static inline int
vt_raw_send(const char *ifname, const uint8_t *f, uint32_t len)
{
	struct sockaddr_ll sll;
	int fd = socket(AF_PACKET, SOCK_RAW, 0);
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, f, 6);
	n = sendto(fd, f, len, 0, (struct sockaddr *)&sll, sizeof(sll));
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Two wires of a veth pair, each with a collector of our frames. */
struct vt_pair {
	struct sv_wire *w[2];
	uint8_t mac[2][6];
	struct vt_coll *c[2];
};

static inline void
vt_pair_close(struct vt_pair *pr)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		sv_wire_close(pr->w[i]);
		pr->w[i] = NULL;
		vt_coll_free(pr->c[i]);
		pr->c[i] = NULL;
	}
}

/* Send n frames (frame i at buf + i * stride) from d to 1-d, one call
 * each, and check they arrive as sent and that the sender does not see
 * its own. */
static inline int
vt_pair_exchange(struct vt_pair *pr, unsigned int d, const uint8_t *buf,
		 size_t stride, const uint32_t *len, unsigned int n)
{
	struct vt_coll *c = pr->c[1 - d];
	unsigned int i;

	vt_coll_reset(c);
	vt_coll_reset(pr->c[d]);
	for (i = 0; i < n; i++)
		VT_CHECK_EQ(vt_send3(pr->w[d], buf + i * stride, len[i]), 1,
			    "tx %u", i);
	VT_CHECK_EQ(vt_coll_wait(pr->w[1 - d], c, n, 2000), n,
		    "received (%u other frames)", c->other);
	for (i = 0; i < n; i++)
		VT_CHECK(c->len[i] == len[i] &&
				 memcmp(c->f[i], buf + i * stride, len[i]) == 0,
			 "frame %u byte-exact (got %u bytes, sent %u)", i,
			 c->len[i], len[i]);
	vt_coll_wait(pr->w[d], pr->c[d], 1, 50);
	VT_CHECK_EQ(pr->c[d]->n, 0, "sender sees none of its own frames");
	return VT_OK;
}

#endif /* VT_WIRE_H */
