/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * softverbs wires: the in-memory link (always) and the AF_PACKET wire on a
 * veth pair (as root with ip(8); in a network namespace of the test's own
 * when it can make one, so the pair vanishes with the test whatever
 * happens), and the offloads the packet wire does for frames a local
 * sender's kernel left unfinished (sv_offload.h).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sv_offload.h"
#include "sv_wire.h"
#include "vt_test.h"
#include "vt_wire.h"

static uint32_t
frame_seq(const uint8_t *f, uint32_t len)
{
	int off = vt_payload_off(f, len);

	if (off < 0 || (uint32_t)off + VT_MARK_LEN + 4 > len)
		return UINT32_MAX;
	f += off + VT_MARK_LEN;
	return (uint32_t)f[0] << 24 | f[1] << 16 | f[2] << 8 | f[3];
}

/* ---------------------------------------------------------------- mem */

static int
test_mem_ends(void)
{
	struct sv_wire *a, *b, *c = NULL, *d;
	uint8_t ma[6], mb[6], mc[6], md[6];
	int ea = -1, eb = -1, ec = -1;

	VT_CHECK_EQ(sv_wire_open("mem:ends", &a, &ea, ma), 0, "open a");
	VT_CHECK_EQ(ea, 0, "first opener is end 0");
	VT_CHECK(!sv_wire_link_up(a), "link down with one end");
	VT_CHECK_EQ(sv_wire_open("mem:ends", &b, &eb, mb), 0, "open b");
	VT_CHECK_EQ(eb, 1, "second opener is end 1");
	VT_CHECK(sv_wire_link_up(a) && sv_wire_link_up(b), "link up");
	c = (struct sv_wire *)&ec;
	VT_CHECK_EQ(sv_wire_open("mem:ends", &c, &ec, mc), EBUSY, "third");
	VT_CHECK(c == NULL, "no wire on failure");

	VT_CHECK(memcmp(ma, mb, 6) != 0, "MACs differ");
	VT_CHECK(ma[0] == 0x02 && mb[0] == 0x02, "locally administered");
	VT_CHECK(ma[5] == 0 && mb[5] == 1, "end in the last byte");
	VT_CHECK(memcmp(ma + 1, mb + 1, 4) == 0, "same link, same hash");
	VT_CHECK_EQ(sv_wire_open("mem:ends2", &d, NULL, md), 0, "other link");
	VT_CHECK(memcmp(ma + 1, md + 1, 4) != 0, "other link, other MAC");
	sv_wire_close(d);

	VT_CHECK_EQ(sv_wire_mtu(a), 1500, "default MTU");
	VT_CHECK_EQ(sv_wire_set_mtu(a, 9000), 0, "MTU 9000");
	VT_CHECK_EQ(sv_wire_mtu(a), 9000, "MTU set");
	VT_CHECK_EQ(sv_wire_set_mtu(a, 9979), EINVAL, "MTU too big");
	VT_CHECK_EQ(sv_wire_set_mtu(a, 67), EINVAL, "MTU too small");
	VT_CHECK_EQ(sv_wire_mtu(a), 9000, "MTU kept");
	VT_CHECK_EQ(sv_wire_mtu(b), 1500, "MTU is per end");

	/* Closing end 0 frees it for the next opener. */
	sv_wire_close(a);
	VT_CHECK(!sv_wire_link_up(b), "link down after close");
	VT_CHECK_EQ(sv_wire_open("mem:ends", &a, &ea, mc), 0, "reopen");
	VT_CHECK_EQ(ea, 0, "got end 0 back");
	VT_CHECK(memcmp(ma, mc, 6) == 0, "same MAC again");
	VT_CHECK_EQ(sv_wire_mtu(a), 1500, "fresh end, default MTU");
	VT_CHECK(sv_wire_link_up(b), "link up again");
	sv_wire_close(a);
	sv_wire_close(b);
	/* Both closed: the link is gone, a new one starts at end 0. */
	VT_CHECK_EQ(sv_wire_open("mem:ends", &b, &eb, mb), 0, "new link");
	VT_CHECK_EQ(eb, 0, "end 0 of a new link");
	VT_CHECK(!sv_wire_link_up(b), "alone again");
	sv_wire_close(b);
	sv_wire_close(NULL);
	return VT_OK;
}

static int
test_mem_spec_errors(void)
{
	char longname[80];
	struct sv_wire *w;

	memset(longname, 'x', sizeof(longname));
	memcpy(longname, "mem:", 4);
	longname[4 + 64] = '\0';
	VT_CHECK_EQ(sv_wire_open("mem:", &w, NULL, NULL), EINVAL, "empty");
	VT_CHECK_EQ(sv_wire_open(longname, &w, NULL, NULL), EINVAL, "long");
	VT_CHECK_EQ(sv_wire_open("eth0", &w, NULL, NULL), EINVAL, "prefix");
	VT_CHECK_EQ(sv_wire_open(NULL, &w, NULL, NULL), EINVAL, "NULL");
	VT_CHECK_EQ(sv_wire_open("if:", &w, NULL, NULL), ENODEV, "if: empty");
	VT_CHECK_EQ(sv_wire_open("if:sv-no-such-if", &w, NULL, NULL), ENODEV,
		    "unknown interface");
	VT_CHECK_EQ(sv_wire_open("if:an-interface-name-too-long", &w, NULL,
				 NULL),
		    ENODEV, "long interface name");
	longname[4 + 63] = '\0';
	VT_CHECK_EQ(sv_wire_open(longname, &w, NULL, NULL), 0, "63 chars");
	sv_wire_close(w);
	return VT_OK;
}

/* Frames sent one at a time arrive intact and in order, each way. */
static int
test_mem_frames(void)
{
	static uint8_t buf[200][1600];
	uint32_t len[200];
	struct sv_wire_stats st;
	struct sv_wire *w[2];
	uint8_t mac[2][6];
	struct vt_coll *c = vt_coll_new(false);
	unsigned int i, d;
	int rc = VT_FAIL;

	VT_CHECK(c != NULL, "alloc");
	VT_CHECK_EQ(sv_wire_open("mem:frames", &w[0], NULL, mac[0]), 0, "a");
	VT_CHECK_EQ(sv_wire_open("mem:frames", &w[1], NULL, mac[1]), 0, "b");
	for (d = 0; d < 2; d++) {
		unsigned int nf = d == 0 ? 200 : 77;

		VT_CHECK_EQ(sv_wire_rx(w[1 - d], 64, vt_coll_cb, c), 0,
			    "empty");
		for (i = 0; i < nf; i++) {
			len[i] = vt_build(buf[i], mac[1 - d], mac[d], NULL, 0,
					  i + 1000 * d,
					  14 + (i * 37 + d) % 1501);
			VT_CHECK_EQ(vt_send3(w[d], buf[i], len[i]), 1, "tx %u",
				    i);
		}
		vt_coll_reset(c);
		VT_CHECK_EQ(vt_coll_wait(w[1 - d], c, nf, 1000), nf,
			    "rx count");
		for (i = 0; i < nf; i++)
			VT_CHECK(c->len[i] == len[i] &&
					 memcmp(c->f[i], buf[i], len[i]) == 0,
				 "frame %u (dir %u) intact and in order", i, d);
		VT_CHECK_EQ(sv_wire_rx(w[1 - d], 64, vt_coll_cb, c), 0,
			    "nothing more");
		VT_CHECK_EQ(sv_wire_rx(w[d], 64, vt_coll_cb, c), 0,
			    "nothing back to the sender");
		sv_wire_get_stats(w[d], &st);
		VT_CHECK_EQ(st.tx_frames, nf, "tx_frames");
		VT_CHECK_EQ(st.tx_errors, 0, "tx_errors");
		sv_wire_get_stats(w[1 - d], &st);
		VT_CHECK_EQ(st.rx_frames, nf, "rx_frames");
	}
	rc = VT_OK;
	sv_wire_close(w[0]);
	sv_wire_close(w[1]);
	vt_coll_free(c);
	return rc;
}

/* One call, many frames; rx honours max. */
static int
test_mem_batch(void)
{
	enum {
		N = 300
	};
	static uint8_t buf[N][256];
	uint8_t *frames[N];
	uint32_t len[N];
	struct sv_wire *a, *b;
	uint8_t ma[6], mb[6];
	struct vt_coll *c = vt_coll_new(false);
	unsigned int i, got, calls = 0;

	VT_CHECK(c != NULL, "alloc");
	VT_CHECK_EQ(sv_wire_open("mem:batch", &a, NULL, ma), 0, "a");
	VT_CHECK_EQ(sv_wire_open("mem:batch", &b, NULL, mb), 0, "b");
	for (i = 0; i < N; i++) {
		frames[i] = buf[i];
		len[i] = vt_build(buf[i], mb, ma, NULL, 0, i, 60 + i % 190);
	}
	VT_CHECK_EQ(vt_send_batch(a, frames, len, N), N, "batch accepted");
	while (calls < 1000) {
		got = sv_wire_rx(b, 7, vt_coll_cb, c);
		calls++;
		VT_CHECK(got <= 7, "rx returned %u > max", got);
		if (got == 0)
			break;
		VT_CHECK(got == 7 || c->n == N, "short pull before the end");
	}
	VT_CHECK_EQ(c->n, N, "all arrived");
	VT_CHECK_EQ(calls, (N + 6) / 7 + 1, "pulls of 7");
	for (i = 0; i < N; i++)
		VT_CHECK(c->len[i] == len[i] &&
				 memcmp(c->f[i], buf[i], len[i]) == 0,
			 "frame %u", i);
	VT_CHECK_EQ(sv_wire_rx(b, 0, vt_coll_cb, c), 0, "max 0");
	sv_wire_close(a);
	sv_wire_close(b);
	vt_coll_free(c);
	return VT_OK;
}

/* A full ring drops (and counts) what does not fit; nothing is lost from
 * what was accepted, and the link works again once drained. */
static int
test_mem_ring_full(void)
{
	enum {
		N = 5000,
		B = 100
	};
	static uint8_t buf[N][64];
	uint8_t *frames[N];
	uint32_t len[N];
	struct sv_wire_stats st;
	struct sv_wire *a, *b;
	uint8_t ma[6], mb[6];
	struct vt_coll *c = vt_coll_new(false);
	unsigned int i, acc = 0;

	VT_CHECK(c != NULL, "alloc");
	VT_CHECK_EQ(sv_wire_open("mem:full", &a, NULL, ma), 0, "a");
	VT_CHECK_EQ(sv_wire_open("mem:full", &b, NULL, mb), 0, "b");
	for (i = 0; i < N; i++) {
		frames[i] = buf[i];
		len[i] = vt_build(buf[i], mb, ma, NULL, 0, i, 64);
	}
	for (i = 0; i < N; i += B)
		acc += vt_send_batch(a, frames + i, len + i, B);
	VT_CHECK(acc >= 1024 && acc < N, "ring is bounded: %u accepted", acc);
	sv_wire_get_stats(a, &st);
	VT_CHECK_EQ(st.tx_frames, acc, "tx_frames");
	VT_CHECK_EQ(st.tx_errors, N - acc, "drops counted as tx_errors");
	VT_CHECK_EQ(vt_coll_wait(b, c, N, 100), acc,
		    "what was accepted arrives");
	for (i = 0; i < acc; i++)
		VT_CHECK(c->len[i] == 64 && memcmp(c->f[i], buf[i], 64) == 0,
			 "frame %u: the first ones are kept", i);
	vt_coll_reset(c);
	VT_CHECK_EQ(vt_send3(a, buf[7], 64), 1, "room again");
	VT_CHECK_EQ(vt_coll_wait(b, c, 1, 100), 1, "and it arrives");
	VT_CHECK(memcmp(c->f[0], buf[7], 64) == 0, "intact");
	sv_wire_close(a);
	sv_wire_close(b);
	vt_coll_free(c);
	return VT_OK;
}

/* Frame size limits follow the sender's MTU; the peer must be there. */
static int
test_mem_limits(void)
{
	static uint8_t buf[10000];
	struct sv_wire_stats st;
	struct sv_wire *a, *b;
	uint8_t ma[6], mb[6];
	struct vt_coll *c = vt_coll_new(false);
	uint32_t len;

	VT_CHECK(c != NULL, "alloc");
	VT_CHECK_EQ(sv_wire_open("mem:limits", &a, NULL, ma), 0, "a");
	VT_CHECK_EQ(sv_wire_open("mem:limits", &b, NULL, mb), 0, "b");
	len = vt_build(buf, mb, ma, NULL, 0, 1, 1500 + 14 + 8 + 1);
	VT_CHECK_EQ(vt_send3(a, buf, len), 0, "over MTU 1500");
	VT_CHECK_EQ(vt_send3(a, buf, 13), 0, "runt");
	len = vt_build(buf, mb, ma, NULL, 0, 2, 1500 + 14);
	VT_CHECK_EQ(vt_send3(a, buf, len), 1, "MTU 1500 frame");
	VT_CHECK_EQ(sv_wire_set_mtu(a, 9979), EINVAL, "over the largest");
	VT_CHECK_EQ(sv_wire_set_mtu(a, 9978), 0, "jumbo, the largest");
	len = vt_build(buf, mb, ma, NULL, 0, 3, 9978 + 14);
	VT_CHECK_EQ(vt_send3(a, buf, len), 1, "MTU 9978 frame");
	VT_CHECK_EQ(vt_coll_wait(b, c, 2, 100), 2, "both arrive");
	VT_CHECK(c->len[1] == len && memcmp(c->f[1], buf, len) == 0,
		 "jumbo intact");
	sv_wire_get_stats(a, &st);
	VT_CHECK_EQ(st.tx_errors, 2, "oversize and runt counted");

	/* Peer gone: link down, frames dropped; its successor does not get
	 * what was queued for the previous holder. */
	len = vt_build(buf, mb, ma, NULL, 0, 4, 100);
	VT_CHECK_EQ(vt_send3(a, buf, len), 1, "queued for b");
	sv_wire_close(b);
	VT_CHECK_EQ(vt_send3(a, buf, len), 0, "no peer");
	sv_wire_get_stats(a, &st);
	VT_CHECK_EQ(st.tx_errors, 3, "counted");
	VT_CHECK_EQ(sv_wire_open("mem:limits", &b, NULL, mb), 0, "b again");
	vt_coll_reset(c);
	VT_CHECK_EQ(sv_wire_rx(b, 64, vt_coll_cb, c), 0, "stale frame gone");
	len = vt_build(buf, mb, ma, NULL, 0, 5, 100);
	VT_CHECK_EQ(vt_send3(a, buf, len), 1, "new frame");
	VT_CHECK_EQ(vt_coll_wait(b, c, 1, 100), 1, "arrives");
	VT_CHECK_EQ(frame_seq(c->f[0], c->len[0]), 5, "the new one");
	sv_wire_close(a);
	sv_wire_close(b);
	vt_coll_free(c);
	return VT_OK;
}

struct sender {
	struct sv_wire *w;
	uint8_t id;
	unsigned int total;
	unsigned int accepted;
	atomic_bool done;
};

static void *
sender_main(void *arg)
{
	struct sender *s = arg;
	uint8_t buf[16][80];
	uint8_t *frames[16];
	uint32_t len[16];
	uint8_t dst[6] = { 2, 0, 0, 0, 0, 1 };
	uint8_t src[6] = { 2, 0, 0, 0, 0, 0 };
	unsigned int seq, i;

	src[4] = s->id;
	for (seq = 0; seq < s->total; seq += 16) {
		for (i = 0; i < 16; i++) {
			frames[i] = buf[i];
			len[i] = vt_build(buf[i], dst, src, NULL, 0, seq + i,
					  60 + (seq + i) % 20);
		}
		s->accepted += vt_send_batch(s->w, frames, len, 16);
	}
	atomic_store(&s->done, true);
	return NULL;
}

struct order {
	uint32_t next[2];
	unsigned int count[2];
	unsigned int bad;
};

static void
order_cb(void *arg, const uint8_t *f, uint32_t len)
{
	struct order *o = arg;
	uint32_t seq = frame_seq(f, len);
	unsigned int id = f[10];

	if (id > 1 || seq == UINT32_MAX || seq < o->next[id] ||
	    len != 60 + seq % 20 ||
	    f[len - 1] != (uint8_t)(seq * 7 + len - 1)) {
		o->bad++;
		return;
	}
	o->next[id] = seq + 1;
	o->count[id]++;
}

/* Two threads send at once; each one's frames stay in order and whatever
 * was accepted arrives exactly once. */
static int
test_mem_threads(void)
{
	struct sender s[2];
	struct order o;
	struct sv_wire_stats st;
	struct sv_wire *a, *b;
	pthread_t t[2];
	int64_t end;
	unsigned int i, idle = 0;

	VT_CHECK_EQ(sv_wire_open("mem:threads", &a, NULL, NULL), 0, "a");
	VT_CHECK_EQ(sv_wire_open("mem:threads", &b, NULL, NULL), 0, "b");
	memset(&o, 0, sizeof(o));
	for (i = 0; i < 2; i++) {
		s[i].w = a;
		s[i].id = i;
		s[i].total = 40000;
		s[i].accepted = 0;
		atomic_init(&s[i].done, false);
		VT_CHECK_EQ(pthread_create(&t[i], NULL, sender_main, &s[i]), 0,
			    "thread");
	}
	end = vt_now_ms() + 10000;
	while (vt_now_ms() < end) {
		if (sv_wire_rx(b, 32, order_cb, &o) != 0)
			continue;
		if (atomic_load(&s[0].done) && atomic_load(&s[1].done) &&
		    ++idle > 2)
			break;
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	while (sv_wire_rx(b, 32, order_cb, &o) != 0 && idle++ < 100000)
		;
	VT_CHECK_EQ(o.bad, 0, "frames out of order, corrupt or doubled");
	/* How the ring is shared depends on scheduling; what is accepted
	 * is not. */
	VT_CHECK(s[0].accepted + s[1].accepted >= 4096, "frames got through");
	for (i = 0; i < 2; i++)
		VT_CHECK_EQ(o.count[i], s[i].accepted,
			    "sender %u: accepted "
			    "frames all arrive",
			    i);
	sv_wire_get_stats(a, &st);
	VT_CHECK_EQ(st.tx_frames, s[0].accepted + s[1].accepted, "tx_frames");
	VT_CHECK_EQ(st.tx_errors, 80000 - st.tx_frames, "tx_errors");
	sv_wire_close(a);
	sv_wire_close(b);
	return VT_OK;
}

/* ------------------------------------------------------------- packet */

static int
pair_open(struct vt_pair *pr, const char *a, const char *b)
{
	char spec[IFNAMSIZ + 4];
	const char *n[2] = { a, b };
	unsigned int i;

	memset(pr, 0, sizeof(*pr));
	for (i = 0; i < 2; i++) {
		uint8_t mac[6];
		int end = -1, mtu = 0;

		snprintf(spec, sizeof(spec), "if:%s", n[i]);
		VT_CHECK_EQ(sv_wire_open(spec, &pr->w[i], &end, pr->mac[i]), 0,
			    "open %s", spec);
		VT_CHECK_EQ(end, 0, "end of an interface wire");
		VT_CHECK(vt_if_mac_mtu(n[i], mac, &mtu) == 0, "ifreq");
		VT_CHECK(memcmp(mac, pr->mac[i], 6) == 0,
			 "the interface's MAC");
		VT_CHECK_EQ(sv_wire_mtu(pr->w[i]), mtu, "the interface's MTU");
		pr->c[i] = vt_coll_new(true);
		VT_CHECK(pr->c[i] != NULL, "alloc");
	}
	VT_CHECK(memcmp(pr->mac[0], pr->mac[1], 6) != 0, "MACs differ");
	for (i = 0; i < 2; i++)
		VT_CHECK(vt_wait_link(pr->w[i], true, 3000), "link %u up", i);
	return VT_OK;
}

/* Room for the largest frame: MTU 9978, two VLAN tags. */
#define PKT_BUF 10000

static int
pkt_frames(const char *an, const char *bn)
{
	static uint8_t buf[256][PKT_BUF];
	static uint8_t *frames[256];
	static uint32_t len[256];
	const uint16_t q[2] = { 0x8100, 0x6064 }; /* PCP 3 VID 100 */
	const uint16_t qinq[4] = { 0x88a8, 0x0123, 0x8100, 0x0456 };
	struct sv_wire_stats st;
	struct vt_pair pr;
	unsigned int i, d;
	int rc;

	rc = pair_open(&pr, an, bn);
	if (rc != VT_OK)
		return rc;
	VT_CHECK_EQ(vt_promiscuity(an), 1,
		    "wire a made its interface promiscuous");
	VT_CHECK_EQ(vt_promiscuity(bn), 1,
		    "wire b made its interface promiscuous");
	for (d = 0; d < 2; d++) {
		for (i = 0; i < 20; i++)
			len[i] = vt_build(buf[i], pr.mac[1 - d], pr.mac[d],
					  NULL, 0, i,
					  60 + (i * 97) % (1514 - 60 + 1));
		len[20] = vt_build(buf[20], pr.mac[1 - d], pr.mac[d], NULL, 0,
				   20, 1514);
		/* A broadcast frame too: the device does its own filtering. */
		len[21] = vt_build(buf[21], vt_bcast, pr.mac[d], NULL, 0, 21,
				   100);
		rc = vt_pair_exchange(&pr, d, buf[0], sizeof(buf[0]), len, 22);
		if (rc != VT_OK)
			goto out;
	}

	/* VLAN tags the kernel strips come back in place. */
	len[0] = vt_build(buf[0], pr.mac[1], pr.mac[0], q, 1, 100, 200);
	len[1] = vt_build(buf[1], pr.mac[1], pr.mac[0], qinq, 2, 101, 300);
	len[2] = vt_build(buf[2], pr.mac[1], pr.mac[0], q, 1, 102, 1518);
	rc = vt_pair_exchange(&pr, 0, buf[0], sizeof(buf[0]), len, 3);
	if (rc != VT_OK)
		goto out;
	VT_CHECK(pr.c[1]->f[0][12] == 0x81 && pr.c[1]->f[0][13] == 0x00 &&
			 pr.c[1]->f[0][14] == 0x60 && pr.c[1]->f[0][15] == 0x64,
		 "802.1Q tag in the frame");
	VT_CHECK(pr.c[1]->f[1][12] == 0x88 && pr.c[1]->f[1][13] == 0xa8,
		 "802.1ad tag in the frame");

	/* Frames leaving a by another path are outgoing on a: the wire
	 * reports only what comes in, as a NIC would. */
	len[0] = vt_build(buf[0], pr.mac[1], pr.mac[0], NULL, 0, 500, 80);
	VT_CHECK(vt_raw_send(an, buf[0], len[0]) == 0,
		 "send through the stack");
	vt_coll_reset(pr.c[0]);
	vt_coll_reset(pr.c[1]);
	VT_CHECK_EQ(vt_coll_wait(pr.w[1], pr.c[1], 1, 2000), 1, "b gets it");
	VT_CHECK(memcmp(pr.c[1]->f[0], buf[0], len[0]) == 0, "intact");
	vt_coll_wait(pr.w[0], pr.c[0], 1, 50);
	VT_CHECK_EQ(pr.c[0]->n, 0, "a does not see its outgoing frame");

	/* Limits: a runt and a frame over the MTU plus header and one tag
	 * (what the veth peer forwards, is_skb_forwardable) are refused. */
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 0, "no errors yet");
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[0], 12), 0, "runt");
	len[3] = vt_build(buf[3], pr.mac[1], pr.mac[0], NULL, 0, 103, 1519);
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "over the MTU");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 2, "counted");

	/* A batch of 256 frames, one call, one kick. */
	for (i = 0; i < 256; i++) {
		frames[i] = buf[i];
		len[i] = vt_build(buf[i], pr.mac[0], pr.mac[1], NULL, 0,
				  1000 + i, 60 + (i * 13) % 1000);
	}
	vt_coll_reset(pr.c[0]);
	VT_CHECK_EQ(vt_send_batch(pr.w[1], frames, len, 256), 256, "batch tx");
	VT_CHECK_EQ(vt_coll_wait(pr.w[0], pr.c[0], 256, 2000), 256,
		    "batch rx (%u other frames)", pr.c[0]->other);
	for (i = 0; i < 256; i++)
		VT_CHECK(pr.c[0]->len[i] == len[i] &&
				 memcmp(pr.c[0]->f[i], buf[i], len[i]) == 0,
			 "batch frame %u byte-exact", i);
	sv_wire_get_stats(pr.w[1], &st);
	VT_CHECK_EQ(st.tx_frames, 22 + 256, "tx_frames of b");
	VT_CHECK_EQ(st.tx_errors, 0, "tx_errors of b");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_frames, 22 + 3, "tx_frames of a");
	VT_CHECK(st.rx_frames >= 22 + 256, "rx_frames of a");
	VT_CHECK_EQ(st.rx_kernel_drops, 0, "no kernel drops");
	rc = VT_OK;
out:
	vt_pair_close(&pr);
	if (rc == VT_OK)
		VT_CHECK_EQ(vt_promiscuity(an), 0,
			    "closing undoes vt_promiscuity");
	return rc;
}

/* Jumbo MTU (ring rebuild), link state, tx with the interface down. */
static int
pkt_mtu_link(const char *an, const char *bn)
{
	static uint8_t buf[4][PKT_BUF];
	static uint32_t len[4];
	const uint16_t q[2] = { 0x8100, 0x0007 };
	struct sv_wire_stats st;
	struct vt_pair pr;
	uint8_t mac[6];
	int rc, mtu = 0;

	rc = pair_open(&pr, an, bn);
	if (rc != VT_OK)
		return rc;
	/* The largest, an mlx5 netdev's: frames fill the rings' frames. */
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[0], 9979), EINVAL, "over 9978");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[0], 9978), 0, "MTU 9978 on a");
	VT_CHECK_EQ(sv_wire_set_mtu(pr.w[1], 9978), 0, "MTU 9978 on b");
	VT_CHECK_EQ(sv_wire_mtu(pr.w[0]), 9978, "reads back");
	VT_CHECK(vt_if_mac_mtu(an, mac, &mtu) == 0 && mtu == 9978,
		 "the interface's MTU changed");
	VT_CHECK(vt_wait_link(pr.w[0], true, 3000), "link up");
	VT_CHECK(vt_wait_link(pr.w[1], true, 3000), "link up");
	len[0] = vt_build(buf[0], pr.mac[1], pr.mac[0], NULL, 0, 1, 9978 + 14);
	len[1] = vt_build(buf[1], pr.mac[1], pr.mac[0], q, 1, 2, 9978 + 18);
	len[2] = vt_build(buf[2], pr.mac[1], pr.mac[0], NULL, 0, 3, 64);
	rc = vt_pair_exchange(&pr, 0, buf[0], sizeof(buf[0]), len, 3);
	if (rc != VT_OK)
		goto out;
	rc = vt_pair_exchange(&pr, 1, buf[0], sizeof(buf[0]), len, 1);
	if (rc != VT_OK)
		goto out;

	/* Peer down: no carrier on our side either. */
	VT_CHECK_EQ(vt_sh("ip link set %s down", bn), 0, "b down");
	VT_CHECK(vt_wait_link(pr.w[1], false, 3000), "b is down");
	VT_CHECK(vt_wait_link(pr.w[0], false, 3000), "a has no carrier");
	VT_CHECK_EQ(vt_sh("ip link set %s up", bn), 0, "b up");
	VT_CHECK(vt_wait_link(pr.w[0], true, 3000), "a up again");
	VT_CHECK(vt_wait_link(pr.w[1], true, 3000), "b up again");

	/* Our interface down: frames are refused and counted, and none of
	 * them is left in the ring to go out later. */
	VT_CHECK_EQ(vt_sh("ip link set %s down", an), 0, "a down");
	len[3] = vt_build(buf[3], pr.mac[1], pr.mac[0], NULL, 0, 66, 100);
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "tx while down");
	VT_CHECK_EQ(vt_send3(pr.w[0], buf[3], len[3]), 0, "tx while down");
	sv_wire_get_stats(pr.w[0], &st);
	VT_CHECK_EQ(st.tx_errors, 2, "counted");
	VT_CHECK_EQ(vt_sh("ip link set %s up", an), 0, "a up");
	VT_CHECK(vt_wait_link(pr.w[0], true, 3000), "a up again");
	rc = vt_pair_exchange(&pr, 0, buf[0], sizeof(buf[0]), len, 1);
	if (rc != VT_OK)
		goto out;
	vt_coll_wait(pr.w[1], pr.c[1], 2, 100);
	VT_CHECK_EQ(pr.c[1]->n, 1, "no stale frame went out");
	rc = VT_OK;
out:
	vt_pair_close(&pr);
	return rc;
}

/* Kernel drops when the receiver does not keep up; errors at open. */
static int
pkt_drops_errors(const char *an, const char *bn)
{
	enum {
		N = 6000,
		B = 200
	};
	static uint8_t buf[B][64];
	uint8_t *frames[B];
	uint32_t len[B];
	char spec[IFNAMSIZ + 8];
	struct sv_wire_stats st;
	struct sv_wire *w;
	struct vt_pair pr;
	unsigned int i, sent = 0, got = 0, polls = 0, n;
	pid_t pid;
	int rc, status;

	rc = pair_open(&pr, an, bn);
	if (rc != VT_OK)
		return rc;
	for (i = 0; i < B; i++) {
		frames[i] = buf[i];
		len[i] = vt_build(buf[i], pr.mac[1], pr.mac[0], NULL, 0, i, 64);
	}
	for (i = 0; i < N; i += B)
		sent += vt_send_batch(pr.w[0], frames, len, B);
	VT_CHECK_EQ(sent, N, "all sent");
	pr.c[1]->filter = true;
	do {
		n = sv_wire_rx(pr.w[1], 256, vt_coll_cb, pr.c[1]);
		got += n;
		vt_coll_reset(pr.c[1]);
	} while (n != 0 && polls++ < 1000);
	sv_wire_get_stats(pr.w[1], &st);
	VT_CHECK(st.rx_kernel_drops > 0, "the kernel's drops are reported");
	VT_CHECK(got >= 1000 && got + st.rx_kernel_drops <= N,
		 "got %u, %llu dropped", got,
		 (unsigned long long)st.rx_kernel_drops);
	VT_CHECK_EQ(st.rx_frames, got, "rx_frames");

	snprintf(spec, sizeof(spec), "if:%s-x", an);
	VT_CHECK_EQ(sv_wire_open(spec, &w, NULL, NULL), ENODEV, "unknown if");
	/* Without CAP_NET_RAW: EPERM. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	VT_CHECK(pid >= 0, "fork");
	if (pid == 0) {
		snprintf(spec, sizeof(spec), "if:%s", an);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		_exit(sv_wire_open(spec, &w, NULL, NULL) == EPERM ? 0 : 1);
	}
	VT_CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	VT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "EPERM without privileges (status %d)", status);
	vt_pair_close(&pr);
	return VT_OK;
}

/* ------------------------------------------------------------ offloads */

/* An Internet checksum of our own (RFC 1071), the oracle for the
 * offloads' results: folded, not complemented. */
static uint16_t
csum16(const uint8_t *p, size_t n, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Pseudo-header sum of an IPv4/IPv6 frame's L4 (l3: IP offset). */
static uint32_t
pseudo(const uint8_t *f, uint32_t l3, bool v6, uint8_t proto, uint32_t l4len)
{
	uint32_t sum = proto + l4len;

	return csum16(f + l3 + (v6 ? 8 : 12), v6 ? 32 : 8, sum);
}

/* Is the frame's TCP/UDP checksum right (and the IPv4 header's)? */
static bool
l4_ok(const uint8_t *f, uint32_t len, bool v6, uint8_t proto)
{
	uint32_t l3 = 14, l4, l4len;

	if (v6) {
		l4 = l3 + 40;
		l4len = rd16(f + l3 + 4);
	} else {
		if (csum16(f + l3, 20, 0) != 0xffff)
			return false;
		l4 = l3 + 20;
		l4len = rd16(f + l3 + 2) - 20;
	}
	if (l4 + l4len > len)
		return false;
	return csum16(f + l4, l4len, pseudo(f, l3, v6, proto, l4len)) == 0xffff;
}

/*
 * Ethernet / IPv4 or IPv6 / TCP or UDP with payload bytes (pattern from
 * seed); checksums left as a sender's kernel leaves them for offload: the
 * L4 one holds the pseudo-header sum. Returns the frame length.
 */
static uint32_t
l4_frame(uint8_t *f, bool v6, bool tcp, uint32_t payload, uint8_t seed,
	 uint8_t tcp_flags)
{
	uint32_t l3 = 14, l4 = l3 + (v6 ? 40 : 20), hl = tcp ? 20 : 8, i;
	uint32_t l4len = hl + payload;

	memset(f, 0, l4 + l4len);
	memset(f, 0x02, 12);
	f[5] = 1;
	wr16(f + 12, v6 ? 0x86dd : 0x0800);
	if (v6) {
		f[l3] = 0x60;
		wr16(f + l3 + 4, (uint16_t)l4len);
		f[l3 + 6] = tcp ? 6 : 17;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0x20;
		f[l3 + 23] = 1;
		f[l3 + 24] = 0x20;
		f[l3 + 39] = 2;
	} else {
		f[l3] = 0x45;
		wr16(f + l3 + 2, (uint16_t)(20 + l4len));
		wr16(f + l3 + 4, 0x1000);
		wr16(f + l3 + 6, 0x4000); /* DF */
		f[l3 + 8] = 64;
		f[l3 + 9] = tcp ? 6 : 17;
		f[l3 + 12] = 192;
		f[l3 + 15] = 1;
		f[l3 + 16] = 198;
		f[l3 + 19] = 2;
		wr16(f + l3 + 10, (uint16_t)~csum16(f + l3, 20, 0));
	}
	wr16(f + l4, 40000);
	wr16(f + l4 + 2, 5001);
	if (tcp) {
		wr16(f + l4 + 4, 0x1234); /* sequence 0x12345678 */
		wr16(f + l4 + 6, 0x5678);
		f[l4 + 12] = 5 << 4;
		f[l4 + 13] = tcp_flags;
		wr16(f + l4 + 14, 512);
	} else {
		wr16(f + l4 + 4, (uint16_t)l4len);
	}
	for (i = 0; i < payload; i++)
		f[l4 + hl + i] = (uint8_t)(seed + i * 13);
	/* What CHECKSUM_PARTIAL leaves: the pseudo-header sum. */
	wr16(f + l4 + (tcp ? 16 : 6),
	     csum16(NULL, 0, pseudo(f, l3, v6, tcp ? 6 : 17, l4len)));
	return l4 + l4len;
}

struct segs {
	unsigned int n;
	uint32_t len[64];
	uint8_t f[64][2048];
};

static void
segs_cb(void *arg, const uint8_t *frame, uint32_t len)
{
	struct segs *s = arg;

	if (s->n < 64 && len <= sizeof(s->f[0])) {
		memcpy(s->f[s->n], frame, len);
		s->len[s->n] = len;
	}
	s->n++;
}

/* Check segments of a super-frame f (payload bytes of mss at most). */
static int
check_segments(const struct segs *s, const uint8_t *f, bool v6, bool tcp,
	       uint32_t payload, uint32_t mss)
{
	uint32_t l4 = 14 + (v6 ? 40 : 20), hl = tcp ? 20 : 8, off = 0, i;
	unsigned int want = (payload + mss - 1) / mss;

	VT_CHECK_EQ(s->n, want, "%u segments", want);
	for (i = 0; i < s->n; i++) {
		const uint8_t *g = s->f[i];
		uint32_t chunk = payload - off < mss ? payload - off : mss;

		VT_CHECK_EQ(s->len[i], l4 + hl + chunk, "segment %u length", i);
		VT_CHECK(memcmp(g, f, 14) == 0, "segment %u Ethernet", i);
		VT_CHECK(memcmp(g + l4 + hl, f + l4 + hl + off, chunk) == 0,
			 "segment %u payload", i);
		VT_CHECK(l4_ok(g, s->len[i], v6, tcp ? 6 : 17),
			 "segment %u checksums", i);
		if (v6)
			VT_CHECK_EQ(rd16(g + 14 + 4), hl + chunk,
				    "segment %u payload length", i);
		else
			VT_CHECK_EQ(rd16(g + 14 + 4), 0x1000 + i,
				    "segment %u IP id", i);
		if (tcp) {
			uint32_t seq = (uint32_t)rd16(g + l4 + 4) << 16 |
				       rd16(g + l4 + 6);

			VT_CHECK_EQ(seq, 0x12345678u + off, "segment %u seq",
				    i);
			VT_CHECK_EQ(g[l4 + 13] & 0x09, i + 1 == s->n ? 0x09 : 0,
				    "segment %u FIN/PSH", i);
			VT_CHECK_EQ(g[l4 + 13] & 0x10, 0x10, "segment %u ACK",
				    i);
		} else {
			VT_CHECK_EQ(rd16(g + l4 + 4), hl + chunk,
				    "segment %u UDP length", i);
		}
		off += chunk;
	}
	VT_CHECK_EQ(off, payload, "all the payload");
	return VT_OK;
}

/* Checksum fill and segmentation as functions (no wire). */
static int
test_offload_functions(void)
{
	static uint8_t f[70000];
	static struct segs s;
	struct sv_l4loc loc;
	unsigned int v6, tcp;
	uint32_t len;
	int rc;

	for (v6 = 0; v6 < 2; v6++) {
		for (tcp = 0; tcp < 2; tcp++) {
			len = l4_frame(f, v6, tcp, 777, 3, 0x18);
			VT_CHECK(!l4_ok(f, len, v6, tcp ? 6 : 17),
				 "partial checksum is not valid yet");
			VT_CHECK(sv_csum_fill(f, len, false), "filled");
			VT_CHECK(l4_ok(f, len, v6, tcp ? 6 : 17),
				 "v6 %u tcp %u: checksum right", v6, tcp);
			len = l4_frame(f, v6, tcp, 5000, 9, 0x19);
			memset(&s, 0, sizeof(s));
			VT_CHECK_EQ(sv_gso_cut(f, len, tcp, 1448, s.f[63], 2048,
					       segs_cb, &s),
				    4, "cut into 4");
			rc = check_segments(&s, f, v6, tcp, 5000, 1448);
			if (rc != VT_OK)
				return rc;
		}
	}
	/* A fragment carries no L4 checksum to fill; IPv4 options move L4;
	 * a non-IP frame is left alone. */
	len = l4_frame(f, false, true, 100, 1, 0x10);
	wr16(f + 14 + 6, 0x2000);
	VT_CHECK(sv_l4_locate(f, len, &loc) && loc.v4 && loc.l4 == 0,
		 "fragment: no L4");
	VT_CHECK(!sv_csum_fill(f, len, false), "fragment not filled");
	wr16(f + 12, 0x0806);
	VT_CHECK(!sv_l4_locate(f, len, &loc), "ARP: not IP");
	/* A frame the segmenter cannot cut: not TCP when asked TCP. */
	len = l4_frame(f, false, false, 3000, 1, 0);
	memset(&s, 0, sizeof(s));
	VT_CHECK_EQ(sv_gso_cut(f, len, true, 1448, s.f[63], 2048, segs_cb, &s),
		    0, "UDP is not TCP");
	return VT_OK;
}

/* Send from ifname with a virtio-net header: what a local sender's kernel
 * hands a device that offloads (a veth peer's TCP stack). */
static int
vnet_send(const char *ifname, const struct virtio_net_hdr *vh, const uint8_t *f,
	  uint32_t len)
{
	static uint8_t buf[70000];
	struct sockaddr_ll sll;
	int fd = socket(AF_PACKET, SOCK_RAW, 0), one = 1;
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) !=
	    0) {
		close(fd);
		return -1;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	memcpy(buf, vh, sizeof(*vh));
	memcpy(buf + sizeof(*vh), f, len);
	n = sendto(fd, buf, sizeof(*vh) + len, 0, (struct sockaddr *)&sll,
		   sizeof(sll));
	close(fd);
	return n == (ssize_t)(sizeof(*vh) + len) ? 0 : -1;
}

/* Frames the peer's kernel leaves to offload arrive as on a cable:
 * checksums done, a 5 KiB TCP segment cut into MSS-sized frames. */
static int
pkt_offloads(const char *an, const char *bn)
{
	static uint8_t f[70000];
	static struct segs s;
	struct virtio_net_hdr vh;
	struct sv_wire_stats st;
	struct sv_wire *w;
	char spec[IFNAMSIZ + 4];
	uint32_t len;
	int i, rc = VT_OK;

	snprintf(spec, sizeof(spec), "if:%s", an);
	VT_CHECK_EQ(sv_wire_open(spec, &w, NULL, NULL), 0, "open");
	VT_CHECK(vt_wait_link(w, true, 3000), "link up");
	/* A small TCP segment, checksum left to the device. */
	len = l4_frame(f, false, true, 300, 5, 0x18);
	memset(&vh, 0, sizeof(vh));
	vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh.csum_start = 14 + 20;
	vh.csum_offset = 16;
	VT_CHECK_EQ(vnet_send(bn, &vh, f, len), 0, "send partial");
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 200 && s.n < 1; i++) {
		sv_wire_rx(w, 32, segs_cb, &s);
		usleep(1000);
	}
	VT_CHECK_EQ(s.n, 1, "one frame");
	VT_CHECK_EQ(s.len[0], len, "its length");
	VT_CHECK(l4_ok(s.f[0], s.len[0], false, 6), "checksum completed");
	VT_CHECK(memcmp(s.f[0] + 54, f + 54, 300) == 0, "payload");
	/* A 5000-byte TCP super-frame (GSO), bigger than a ring frame. */
	len = l4_frame(f, false, true, 5000, 7, 0x19);
	memset(&vh, 0, sizeof(vh));
	vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh.gso_size = 1448;
	vh.hdr_len = 54;
	vh.csum_start = 14 + 20;
	vh.csum_offset = 16;
	VT_CHECK_EQ(vnet_send(bn, &vh, f, len), 0, "send super-frame");
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 200 && s.n < 4; i++) {
		sv_wire_rx(w, 32, segs_cb, &s);
		usleep(1000);
	}
	rc = check_segments(&s, f, false, true, 5000, 1448);
	sv_wire_get_stats(w, &st);
	if (rc == VT_OK) {
		VT_CHECK_EQ(st.rx_csum_completed, 1, "rx_csum_completed");
		VT_CHECK_EQ(st.rx_gso_frames, 1, "rx_gso_frames");
		VT_CHECK_EQ(st.rx_frames, 5, "rx_frames: 1 + 4 segments");
		VT_CHECK_EQ(st.rx_kernel_drops, 0, "no drops");
	}
	sv_wire_close(w);
	return rc;
}

static int
test_pkt_offloads(void)
{
	return vt_run_on_veth(pkt_offloads, 30);
}

static int
test_pkt_frames(void)
{
	return vt_run_on_veth(pkt_frames, 30);
}

static int
test_pkt_mtu_link(void)
{
	return vt_run_on_veth(pkt_mtu_link, 30);
}

static int
test_pkt_drops_errors(void)
{
	return vt_run_on_veth(pkt_drops_errors, 30);
}

static const struct vt_case cases[] = {
	VT_CASE(test_mem_ends),
	VT_CASE(test_mem_spec_errors),
	VT_CASE(test_mem_frames),
	VT_CASE(test_mem_batch),
	VT_CASE(test_mem_ring_full),
	VT_CASE(test_mem_limits),
	VT_CASE(test_mem_threads),
	VT_CASE(test_pkt_frames),
	VT_CASE(test_pkt_mtu_link),
	VT_CASE(test_pkt_drops_errors),
	VT_CASE(test_offload_functions),
	VT_CASE(test_pkt_offloads),
	{ 0 },
};

int
main(int argc, char **argv)
{
	vt_marker_init();
	return vt_main(argc, argv, cases);
}
