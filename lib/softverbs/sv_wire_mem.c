/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The wire dispatcher (sv_wire_open() picks a backend by the spec prefix)
 * and the in-memory link backend ("mem:<link>").
 *
 * An in-memory link is a cable with two ends, found by name in a
 * process-wide registry. Each direction is a bounded ring of SV_MEM_SLOTS
 * frame slots; a slot keeps its copy buffer once allocated, so the steady
 * state allocates nothing. Senders of one direction serialise on the ring's
 * tx_lock; the single consumer (the receiving end) takes frames without a
 * lock, and gives slots back by publishing its consumer index.
 *
 * A device without a thread sleeps on descriptors (sv_wire_rx_fd(),
 * sv_wire_link_fd()): once the receiving end asks for one, each ring has
 * an eventfd that is readable while frames wait. Senders signal it when
 * they publish into a ring nobody was told about (signaled clear), the
 * receiver clears it when it finds the ring empty and looks once more, so
 * that the steady state costs one flag test per batch and nothing at all
 * before the fd is asked for. Each end also has a queue of the link states
 * it went through (open, close, administrative down/up of either end) and
 * an eventfd readable while that queue holds something.
 */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/eventfd.h>

#include "sv_wire.h"

struct sv_wire {
	const struct sv_wire_ops *ops;
	void *priv;
};

#define SV_MEM_SLOTS 4096u /* frames per direction */
#define SV_MEM_NAME_MAX 63
#define SV_MEM_MTU 1500u
#define SV_MEM_MTU_MAX 9978u /* an mlx5 netdev's largest */
#define SV_ETH_HLEN 14u
#define SV_MEM_BUF_ALIGN 2048u /* slot buffers grow in these */
#define SV_MEM_LINKQ 16u       /* link states kept per end */

struct sv_mem_slot {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;
};

/* Frames from one end to the other. */
struct sv_mem_ring {
	pthread_spinlock_t tx_lock; /* short: one batch of copies */
	bool carrier;	  /* both ends open and up: frames get across */
	atomic_uint prod; /* written under tx_lock */
	atomic_uint cons; /* written by the receiving end */
	/* Readiness for the receiving end (sv_wire_rx_fd()). */
	atomic_bool notify;  /* efd asked for (written under tx_lock) */
	atomic_int signaled; /* efd written since the ring was found empty */
	int efd;	     /* -1 until asked for (tx_lock) */
	struct sv_mem_slot slot[SV_MEM_SLOTS];
};

struct sv_mem_link;

struct sv_mem_end {
	struct sv_mem_link *link;
	int end;
	atomic_uint mtu;
	atomic_uint_fast64_t rx_frames;
	atomic_uint_fast64_t tx_frames;
	atomic_uint_fast64_t tx_errors;
	/* Link states not yet polled, and their eventfd (sv_mem_lock). */
	bool lq[SV_MEM_LINKQ];
	unsigned int lq_head, lq_n;
	int link_efd; /* -1 until asked for */
};

struct sv_mem_link {
	struct sv_mem_link *next; /* registry list */
	char name[SV_MEM_NAME_MAX + 1];
	struct sv_mem_end *ends[2]; /* under sv_mem_lock */
	atomic_uint open_mask;	    /* bit e: end e open */
	atomic_uint up_mask;	    /* bit e: end e administratively up */
	struct sv_mem_ring ring[2]; /* ring[e]: sent by end e */
};

static pthread_mutex_t sv_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sv_mem_link *sv_mem_links;

/* FNV-1a: a stable MAC for a link name across runs. */
static uint32_t
sv_mem_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0') {
		h ^= (uint8_t)*s++;
		h *= 16777619u;
	}
	return h;
}

static void
sv_mem_link_free(struct sv_mem_link *l)
{
	unsigned int d, i;

	for (d = 0; d < 2; d++) {
		for (i = 0; i < SV_MEM_SLOTS; i++)
			free(l->ring[d].slot[i].buf);
		pthread_spin_destroy(&l->ring[d].tx_lock);
	}
	free(l);
}

static struct sv_mem_link *
sv_mem_link_new(const char *name)
{
	struct sv_mem_link *l;
	unsigned int d;

	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return NULL;
	strcpy(l->name, name);
	for (d = 0; d < 2; d++) {
		pthread_spin_init(&l->ring[d].tx_lock, PTHREAD_PROCESS_PRIVATE);
		atomic_init(&l->ring[d].prod, 0);
		atomic_init(&l->ring[d].cons, 0);
		atomic_init(&l->ring[d].notify, false);
		atomic_init(&l->ring[d].signaled, 0);
		l->ring[d].efd = -1;
	}
	atomic_init(&l->open_mask, 0);
	atomic_init(&l->up_mask, 0);
	return l;
}

static bool
sv_mem_carrier(const struct sv_mem_link *l)
{
	return atomic_load(&l->open_mask) == 3 && atomic_load(&l->up_mask) == 3;
}

/* Tell the receiving end of r that frames wait, once per empty ring. */
static void
sv_mem_signal(struct sv_mem_ring *r)
{
	uint64_t one = 1;

	if (atomic_exchange(&r->signaled, 1) == 0 &&
	    write(r->efd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow with one write per reset. */
	}
}

/* The receiver found r empty: clear its fd, unless a frame came that its
 * sender did not signal (it saw signaled still set). */
static void
sv_mem_quiet(struct sv_mem_ring *r)
{
	uint64_t v;

	if (atomic_load_explicit(&r->signaled, memory_order_relaxed) == 0)
		return;
	atomic_store(&r->signaled, 0);
	if (read(r->efd, &v, sizeof(v)) < 0) {
		/* Already clear. */
	}
	if (atomic_load(&r->prod) !=
	    atomic_load_explicit(&r->cons, memory_order_relaxed))
		sv_mem_signal(r);
}

/* The link may have changed (sv_mem_lock held): frames stop or go on, and
 * every open end queues the state for sv_wire_link_poll(). */
static void
sv_mem_link_changed(struct sv_mem_link *l)
{
	bool up = sv_mem_carrier(l);
	uint64_t one = 1;
	unsigned int d;

	for (d = 0; d < 2; d++) {
		pthread_spin_lock(&l->ring[d].tx_lock);
		l->ring[d].carrier = up;
		pthread_spin_unlock(&l->ring[d].tx_lock);
	}
	for (d = 0; d < 2; d++) {
		struct sv_mem_end *e = l->ends[d];

		if (e == NULL)
			continue;
		if (e->lq_n == SV_MEM_LINKQ) { /* full: the oldest goes */
			e->lq_head = (e->lq_head + 1) % SV_MEM_LINKQ;
			e->lq_n--;
		}
		e->lq[(e->lq_head + e->lq_n) % SV_MEM_LINKQ] = up;
		e->lq_n++;
		if (e->link_efd >= 0 &&
		    write(e->link_efd, &one, sizeof(one)) < 0) {
			/* Readable already. */
		}
	}
}

static int
sv_mem_open(const char *name, void **priv, int *endp, uint8_t mac[6])
{
	struct sv_mem_link *l;
	struct sv_mem_end *e;
	struct sv_mem_ring *in;
	uint32_t h;
	int end;

	if (name[0] == '\0' || strlen(name) > SV_MEM_NAME_MAX)
		return EINVAL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return ENOMEM;
	pthread_mutex_lock(&sv_mem_lock);
	for (l = sv_mem_links; l != NULL; l = l->next)
		if (strcmp(l->name, name) == 0)
			break;
	if (l == NULL) {
		l = sv_mem_link_new(name);
		if (l == NULL) {
			pthread_mutex_unlock(&sv_mem_lock);
			free(e);
			return ENOMEM;
		}
		l->next = sv_mem_links;
		sv_mem_links = l;
	}
	if (l->ends[0] == NULL) {
		end = 0;
	} else if (l->ends[1] == NULL) {
		end = 1;
	} else {
		pthread_mutex_unlock(&sv_mem_lock);
		free(e);
		return EBUSY;
	}
	e->link = l;
	e->end = end;
	atomic_init(&e->mtu, SV_MEM_MTU);
	atomic_init(&e->rx_frames, 0);
	atomic_init(&e->tx_frames, 0);
	atomic_init(&e->tx_errors, 0);
	e->link_efd = -1;
	/* Frames left for a previous holder of this end are not ours. */
	in = &l->ring[1 - end];
	pthread_spin_lock(&in->tx_lock);
	atomic_store_explicit(&in->cons,
			      atomic_load_explicit(&in->prod,
						   memory_order_relaxed),
			      memory_order_release);
	pthread_spin_unlock(&in->tx_lock);
	l->ends[end] = e;
	atomic_fetch_or(&l->up_mask, 1u << end);
	atomic_fetch_or(&l->open_mask, 1u << end);
	sv_mem_link_changed(l);
	pthread_mutex_unlock(&sv_mem_lock);

	h = sv_mem_hash(name);
	mac[0] = 0x02; /* locally administered, unicast */
	mac[1] = h >> 24;
	mac[2] = h >> 16;
	mac[3] = h >> 8;
	mac[4] = h;
	mac[5] = end;
	*endp = end;
	*priv = e;
	return 0;
}

static void
sv_mem_close(void *priv)
{
	struct sv_mem_end *e = priv;
	struct sv_mem_link *l = e->link, **pl;
	struct sv_mem_ring *in = &l->ring[1 - e->end];

	pthread_mutex_lock(&sv_mem_lock);
	pthread_spin_lock(&in->tx_lock);
	if (in->efd >= 0) {
		atomic_store(&in->notify, false);
		close(in->efd);
		in->efd = -1;
		atomic_store(&in->signaled, 0);
	}
	pthread_spin_unlock(&in->tx_lock);
	atomic_fetch_and(&l->open_mask, ~(1u << e->end));
	atomic_fetch_and(&l->up_mask, ~(1u << e->end));
	l->ends[e->end] = NULL;
	if (e->link_efd >= 0)
		close(e->link_efd);
	sv_mem_link_changed(l);
	if (l->ends[0] == NULL && l->ends[1] == NULL) {
		for (pl = &sv_mem_links; *pl != NULL; pl = &(*pl)->next) {
			if (*pl == l) {
				*pl = l->next;
				break;
			}
		}
		sv_mem_link_free(l);
	}
	pthread_mutex_unlock(&sv_mem_lock);
	free(e);
}

static unsigned int
sv_mem_rx(void *priv, unsigned int max, sv_wire_rx_cb cb, void *arg)
{
	struct sv_mem_end *e = priv;
	struct sv_mem_ring *r = &e->link->ring[1 - e->end];
	unsigned int prod, cons, n = 0;

	cons = atomic_load_explicit(&r->cons, memory_order_relaxed);
	prod = atomic_load_explicit(&r->prod, memory_order_acquire);
	while (n < max && cons != prod) {
		struct sv_mem_slot *s = &r->slot[cons % SV_MEM_SLOTS];

		/* The next frame was copied in a while ago. */
		if (cons + 1 != prod)
			__builtin_prefetch(
				r->slot[(cons + 1) % SV_MEM_SLOTS].buf);
		cb(arg, s->buf, s->len);
		cons++;
		n++;
		/* Hand the slot back as soon as the callback is done. */
		atomic_store_explicit(&r->cons, cons, memory_order_release);
	}
	if (n != 0)
		atomic_fetch_add_explicit(&e->rx_frames, n,
					  memory_order_relaxed);
	if (n < max && atomic_load_explicit(&r->notify, memory_order_acquire))
		sv_mem_quiet(r);
	return n;
}

static unsigned int
sv_mem_tx(void *priv, const struct iovec *iov, const unsigned int *first,
	  unsigned int n)
{
	struct sv_mem_end *e = priv;
	struct sv_mem_ring *r = &e->link->ring[e->end];
	uint32_t max_len = SV_WIRE_FRAME_MAX(
		atomic_load_explicit(&e->mtu, memory_order_relaxed));
	unsigned int i, j, prod, cons, sent = 0;

	pthread_spin_lock(&r->tx_lock);
	if (!r->carrier)
		goto out; /* no one at the other end, or an end down */
	prod = atomic_load_explicit(&r->prod, memory_order_relaxed);
	cons = atomic_load_explicit(&r->cons, memory_order_acquire);
	for (i = 0; i < n; i++) {
		bool one = first[i + 1] == first[i] + 1;
		struct sv_mem_slot *s;
		size_t len = 0;
		uint8_t *p;

		if (__builtin_expect(one, 1)) {
			len = iov[first[i]].iov_len;
		} else {
			for (j = first[i]; j < first[i + 1]; j++)
				len += iov[j].iov_len;
		}
		if (len < SV_ETH_HLEN || len > max_len)
			continue;
		if (prod - cons == SV_MEM_SLOTS) {
			cons = atomic_load_explicit(&r->cons,
						    memory_order_acquire);
			if (prod - cons == SV_MEM_SLOTS)
				continue; /* full: dropped */
		}
		s = &r->slot[prod % SV_MEM_SLOTS];
		if (s->cap < len) {
			uint32_t cap = (len + SV_MEM_BUF_ALIGN - 1) &
				       ~(SV_MEM_BUF_ALIGN - 1);

			p = realloc(s->buf, cap);
			if (p == NULL)
				continue;
			s->buf = p;
			s->cap = cap;
		}
		/* The next slot's buffer is written next, a ring after its
		 * last use. */
		__builtin_prefetch(r->slot[(prod + 1) % SV_MEM_SLOTS].buf, 1);
		p = s->buf;
		if (__builtin_expect(one, 1)) {
			memcpy(p, iov[first[i]].iov_base, len);
		} else {
			for (j = first[i]; j < first[i + 1]; j++) {
				memcpy(p, iov[j].iov_base, iov[j].iov_len);
				p += iov[j].iov_len;
			}
		}
		s->len = len;
		prod++;
		sent++;
	}
	/* The one "kick": the receiver sees the whole batch at once. */
	atomic_store_explicit(&r->prod, prod, memory_order_release);
	/* A receiver that may sleep on its fd: ordered after the kick
	 * against its clear-then-look (sv_mem_quiet()). */
	if (sent != 0 &&
	    atomic_load_explicit(&r->notify, memory_order_relaxed)) {
		atomic_thread_fence(memory_order_seq_cst);
		sv_mem_signal(r);
	}
out:
	pthread_spin_unlock(&r->tx_lock);
	if (sent != 0)
		atomic_fetch_add_explicit(&e->tx_frames, sent,
					  memory_order_relaxed);
	if (sent != n)
		atomic_fetch_add_explicit(&e->tx_errors, n - sent,
					  memory_order_relaxed);
	return sent;
}

static unsigned int
sv_mem_mtu(void *priv)
{
	struct sv_mem_end *e = priv;

	return atomic_load_explicit(&e->mtu, memory_order_relaxed);
}

static unsigned int
sv_mem_max_mtu(void *priv)
{
	(void)priv;
	return SV_MEM_MTU_MAX;
}

static int
sv_mem_set_mtu(void *priv, unsigned int mtu)
{
	struct sv_mem_end *e = priv;

	atomic_store_explicit(&e->mtu, mtu, memory_order_relaxed);
	return 0;
}

static bool
sv_mem_link_up(void *priv)
{
	struct sv_mem_end *e = priv;

	return sv_mem_carrier(e->link);
}

/* A cable in memory has no speed of its own. */
static void
sv_mem_link_info(void *priv, struct sv_wire_link *link)
{
	(void)priv;
	link->speed_mbps = 0;
	link->full_duplex = true;
	link->autoneg = false;
}

static void
sv_mem_get_stats(void *priv, struct sv_wire_stats *stats)
{
	struct sv_mem_end *e = priv;

	memset(stats, 0, sizeof(*stats));
	stats->rx_frames =
		atomic_load_explicit(&e->rx_frames, memory_order_relaxed);
	stats->tx_frames =
		atomic_load_explicit(&e->tx_frames, memory_order_relaxed);
	stats->tx_errors =
		atomic_load_explicit(&e->tx_errors, memory_order_relaxed);
}

static int
sv_mem_rx_fd(void *priv)
{
	struct sv_mem_end *e = priv;
	struct sv_mem_ring *r = &e->link->ring[1 - e->end];
	int fd;

	pthread_spin_lock(&r->tx_lock);
	if (r->efd < 0) {
		fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			pthread_spin_unlock(&r->tx_lock);
			return fd;
		}
		r->efd = fd;
		atomic_store(&r->notify, true);
		/* Frames already waiting make it readable at once. */
		if (atomic_load(&r->prod) != atomic_load(&r->cons))
			sv_mem_signal(r);
	}
	fd = r->efd;
	pthread_spin_unlock(&r->tx_lock);
	return fd;
}

static int
sv_mem_link_fd(void *priv)
{
	struct sv_mem_end *e = priv;
	uint64_t one = 1;
	int fd;

	pthread_mutex_lock(&sv_mem_lock);
	if (e->link_efd < 0) {
		fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			pthread_mutex_unlock(&sv_mem_lock);
			return fd;
		}
		e->link_efd = fd;
		if (e->lq_n != 0 && write(fd, &one, sizeof(one)) < 0) {
			/* A new eventfd takes one write. */
		}
	}
	fd = e->link_efd;
	pthread_mutex_unlock(&sv_mem_lock);
	return fd;
}

static unsigned int
sv_mem_link_poll(void *priv, bool *states, unsigned int max)
{
	struct sv_mem_end *e = priv;
	unsigned int n = 0;
	uint64_t v;

	pthread_mutex_lock(&sv_mem_lock);
	/* More than asked for: the latest ones. */
	while (e->lq_n > max) {
		e->lq_head = (e->lq_head + 1) % SV_MEM_LINKQ;
		e->lq_n--;
	}
	while (e->lq_n > 0) {
		states[n++] = e->lq[e->lq_head];
		e->lq_head = (e->lq_head + 1) % SV_MEM_LINKQ;
		e->lq_n--;
	}
	if (e->link_efd >= 0 && read(e->link_efd, &v, sizeof(v)) < 0) {
		/* Nothing was signalled. */
	}
	pthread_mutex_unlock(&sv_mem_lock);
	return n;
}

static int
sv_mem_set_link(void *priv, bool up)
{
	struct sv_mem_end *e = priv;
	struct sv_mem_link *l = e->link;

	pthread_mutex_lock(&sv_mem_lock);
	if (up)
		atomic_fetch_or(&l->up_mask, 1u << e->end);
	else
		atomic_fetch_and(&l->up_mask, ~(1u << e->end));
	sv_mem_link_changed(l);
	pthread_mutex_unlock(&sv_mem_lock);
	return 0;
}

static const struct sv_wire_ops sv_wire_mem_ops = {
	.open = sv_mem_open,
	.close = sv_mem_close,
	.rx = sv_mem_rx,
	.tx = sv_mem_tx,
	.mtu = sv_mem_mtu,
	.max_mtu = sv_mem_max_mtu,
	.set_mtu = sv_mem_set_mtu,
	.link_up = sv_mem_link_up,
	.link_info = sv_mem_link_info,
	.get_stats = sv_mem_get_stats,
	.rx_fd = sv_mem_rx_fd,
	.link_fd = sv_mem_link_fd,
	.link_poll = sv_mem_link_poll,
	.set_link = sv_mem_set_link,
};

int
sv_wire_open(const char *spec, struct sv_wire **wire, int *end, uint8_t mac[6])
{
	const struct sv_wire_ops *ops;
	struct sv_wire *w;
	uint8_t m[6];
	int e = 0, rc;

	if (spec == NULL || wire == NULL)
		return EINVAL;
	*wire = NULL;
	if (strncmp(spec, "mem:", 4) == 0) {
		ops = &sv_wire_mem_ops;
		spec += 4;
	} else if (strncmp(spec, "if:", 3) == 0) {
		ops = &sv_wire_packet_ops;
		spec += 3;
	} else if (strncmp(spec, "xdp:", 4) == 0) {
		ops = &sv_wire_xdp_ops;
		spec += 4;
	} else {
		return EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return ENOMEM;
	w->ops = ops;
	rc = ops->open(spec, &w->priv, &e, m);
	if (rc != 0) {
		free(w);
		return rc;
	}
	if (end != NULL)
		*end = e;
	if (mac != NULL)
		memcpy(mac, m, sizeof(m));
	*wire = w;
	return 0;
}

void
sv_wire_close(struct sv_wire *wire)
{
	if (wire == NULL)
		return;
	wire->ops->close(wire->priv);
	free(wire);
}

unsigned int
sv_wire_rx(struct sv_wire *wire, unsigned int max, sv_wire_rx_cb cb, void *arg)
{
	return wire->ops->rx(wire->priv, max, cb, arg);
}

unsigned int
sv_wire_tx(struct sv_wire *wire, const struct iovec *iov,
	   const unsigned int *first, unsigned int n)
{
	if (n == 0)
		return 0;
	return wire->ops->tx(wire->priv, iov, first, n);
}

unsigned int
sv_wire_mtu(const struct sv_wire *wire)
{
	return wire->ops->mtu(wire->priv);
}

unsigned int
sv_wire_max_mtu(const struct sv_wire *wire)
{
	return wire->ops->max_mtu(wire->priv);
}

int
sv_wire_set_mtu(struct sv_wire *wire, unsigned int mtu)
{
	if (mtu < SV_WIRE_MTU_MIN || mtu > wire->ops->max_mtu(wire->priv))
		return EINVAL;
	return wire->ops->set_mtu(wire->priv, mtu);
}

bool
sv_wire_link_up(const struct sv_wire *wire)
{
	return wire->ops->link_up(wire->priv);
}

void
sv_wire_link_info(const struct sv_wire *wire, struct sv_wire_link *link)
{
	wire->ops->link_info(wire->priv, link);
}

void
sv_wire_get_stats(const struct sv_wire *wire, struct sv_wire_stats *stats)
{
	wire->ops->get_stats(wire->priv, stats);
}

int
sv_wire_rx_fd(struct sv_wire *wire)
{
	if (wire->ops->rx_fd == NULL)
		return -ENOTSUP;
	return wire->ops->rx_fd(wire->priv);
}

int
sv_wire_link_fd(struct sv_wire *wire)
{
	if (wire->ops->link_fd == NULL)
		return -ENOTSUP;
	return wire->ops->link_fd(wire->priv);
}

unsigned int
sv_wire_link_poll(struct sv_wire *wire, bool *states, unsigned int max)
{
	if (wire->ops->link_poll == NULL || max == 0)
		return 0;
	return wire->ops->link_poll(wire->priv, states, max);
}

int
sv_wire_set_link(struct sv_wire *wire, bool up)
{
	if (wire->ops->set_link == NULL)
		return ENOTSUP;
	return wire->ops->set_link(wire->priv, up);
}
