/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Devices, files and contexts. The configuration comes from the
 * environment devtools/mlx5-model sets:
 *   MLX5MODEL_DEVICES  "<ibdev>|<wire>|<netdev>[;...]", device N being the
 *                      N-th entry (uverbsN); wire is a softverbs wire
 *                      ("if:<ifname>", "xdp:<ifname>", "mem:<link>")
 *   MLX5MODEL_SYSFS    the sysfs tree libibverbs reads (SYSFS_PATH)
 *   MLX5MODEL_TRACE    log commands and refusals to stderr
 *   MLX5MODEL_FLEX_PARSER  the firmware's FLEX_PARSER_PROFILE_ENABLE (0, or
 *                      1: the parser of MPLS over GRE and over UDP)
 *   MLX5MODEL_MODIFY_ACTIONS  the flow tables' max_modify_header_actions
 *                      (1 to 255; unset: mm_cx5's)
 * A device comes up (its softverbs device made, its engine started) at
 * the first open of its uverbs file.
 *
 * Here too: the DEVICE methods (GET_CONTEXT, QUERY_PORT, GIDs, async
 * event files, INVOKE_WRITE, QUERY_DEVICE and its extended form), the
 * mlx5 UAR objects and mmap of the uverbs file, and the netdev of an
 * in-memory link, which the model answers interface requests for.
 */

#define _GNU_SOURCE /* memfd_create() */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "mm_internal.h"
#include "softverbs.h"
#include "sv_internal.h"

static struct mm_dev mm_devs[MM_MAX_DEVS];
static int mm_ndev;
static char mm_sysfs[512];
static pthread_once_t mm_config_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mm_up_lock = PTHREAD_MUTEX_INITIALIZER;

static void
mm_config_parse(void)
{
	const char *env = getenv("MLX5MODEL_DEVICES");
	const char *flex = getenv("MLX5MODEL_FLEX_PARSER");
	const char *mods = getenv("MLX5MODEL_MODIFY_ACTIONS");
	unsigned long nmod = mods != NULL ? strtoul(mods, NULL, 10) : 0;
	char *s, *save = NULL, *ent;

	mm_trace_on = getenv("MLX5MODEL_TRACE") != NULL;
	env = env != NULL ? env : "";
	snprintf(mm_sysfs, sizeof(mm_sysfs), "%s",
		 getenv("MLX5MODEL_SYSFS") ? getenv("MLX5MODEL_SYSFS") : "");
	s = strdup(env);
	if (s == NULL)
		return;
	for (ent = strtok_r(s, ";", &save);
	     ent != NULL && mm_ndev < MM_MAX_DEVS;
	     ent = strtok_r(NULL, ";", &save)) {
		struct mm_dev *d = &mm_devs[mm_ndev];
		char *p1 = strchr(ent, '|'), *p2;

		if (p1 == NULL || (p2 = strchr(p1 + 1, '|')) == NULL)
			continue;
		*p1 = *p2 = '\0';
		d->index = mm_ndev;
		snprintf(d->ibdev, sizeof(d->ibdev), "%s", ent);
		snprintf(d->wire, sizeof(d->wire), "%s", p1 + 1);
		snprintf(d->netdev, sizeof(d->netdev), "%s", p2 + 1);
		d->netdev_modelled = strncmp(d->wire, "mem:", 4) == 0;
		/* The firmware's parser profile 1 finds MPLS over GRE and
		 * UDP: the tunnel offload bits of the Ethernet capability
		 * page, and softverbs matches the labels. */
		d->caps_fw = mm_cx5;
		d->flex_parser = flex != NULL && strcmp(flex, "1") == 0;
		d->caps_fw.tunnel_stateless_mpls_over_gre = d->flex_parser;
		d->caps_fw.tunnel_stateless_mpls_over_udp = d->flex_parser;
		/* The capability is 8 bits wide. */
		if (nmod >= 1 && nmod <= 255)
			d->caps_fw.max_modify_header_actions = (uint8_t)nmod;
		d->caps = &d->caps_fw;
		d->clock_fd = -1;
		pthread_mutex_init(&d->lock, NULL);
		mm_ndev++;
	}
	free(s);
}

void
mm_config_load(void)
{
	pthread_once(&mm_config_once, mm_config_parse);
}

int
mm_ndevs(void)
{
	mm_config_load();
	return mm_ndev;
}

struct mm_dev *
mm_dev_by_index(int index)
{
	mm_config_load();
	return index >= 0 && index < mm_ndev ? &mm_devs[index] : NULL;
}

struct mm_dev *
mm_dev_by_netdev(const char *ifname)
{
	int i;

	mm_config_load();
	for (i = 0; i < mm_ndev; i++)
		if (strcmp(mm_devs[i].netdev, ifname) == 0)
			return &mm_devs[i];
	return NULL;
}

int
mm_dev_ifindex(struct mm_dev *dev)
{
	int idx;

	if (dev->netdev_modelled)
		return MM_IFINDEX_BASE + dev->index;
	/* A Linux interface keeps its index while it exists. */
	idx = atomic_load(&dev->ifindex);
	if (idx == 0) {
		idx = (int)if_nametoindex(dev->netdev);
		atomic_store(&dev->ifindex, idx);
	}
	return idx;
}

struct mm_dev *
mm_dev_by_ifindex(int ifindex)
{
	int i;

	mm_config_load();
	for (i = 0; i < mm_ndev && ifindex > 0; i++)
		if (mm_dev_ifindex(&mm_devs[i]) == ifindex)
			return &mm_devs[i];
	return NULL;
}

void
mm_dev_guid(const struct mm_dev *dev, uint8_t g[8])
{
	const uint8_t *m = dev->mac;

	/* EUI-64 of the port MAC, as a RoCE device's node GUID. */
	g[0] = m[0] ^ 2;
	g[1] = m[1];
	g[2] = m[2];
	g[3] = 0xff;
	g[4] = 0xfe;
	g[5] = m[3];
	g[6] = m[4];
	g[7] = m[5];
}

/* Keep the sysfs address of the port's netdev what the wire says. */
static void
mm_dev_sysfs_mac(const struct mm_dev *dev)
{
	char path[1024], tmp[1100];
	FILE *f;

	if (mm_sysfs[0] == '\0')
		return;
	snprintf(path, sizeof(path),
		 "%s/class/infiniband/%s/device/net/%s/address", mm_sysfs,
		 dev->ibdev, dev->netdev);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (f == NULL)
		return;
	fprintf(f, "%02x:%02x:%02x:%02x:%02x:%02x\n", dev->mac[0], dev->mac[1],
		dev->mac[2], dev->mac[3], dev->mac[4], dev->mac[5]);
	fclose(f);
	if (rename(tmp, path) != 0)
		unlink(tmp);
}

uint64_t
mm_dev_clock(const struct mm_dev *dev)
{
	struct timespec ts;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	/* kHz: ticks per millisecond. */
	return ns / 1000000u * dev->caps->device_frequency_khz +
	       ns % 1000000u * dev->caps->device_frequency_khz / 1000000u;
}

uint64_t
mm_dev_clock_publish(struct mm_dev *dev)
{
	uint64_t t = mm_dev_clock(dev);

	/* One store: internal_timer_h then _l, each big endian: the
	 * counter big endian (a little-endian machine's store). */
	if (dev->clock_page != NULL)
		__atomic_store_n(dev->clock_page, htobe64(t), __ATOMIC_RELEASE);
	return t;
}

/* The core clock page: a memfd page every context maps read-only. */
static int
mm_dev_clock_setup(struct mm_dev *dev)
{
	void *p;

	dev->clock_fd = memfd_create("mlx5model-clock", MFD_CLOEXEC);
	if (dev->clock_fd < 0)
		return -errno;
	if (ftruncate(dev->clock_fd, MM_PAGE) != 0)
		return -errno;
	p = mm_real_mmap(NULL, MM_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 dev->clock_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	dev->clock_page = p;
	mm_dev_clock_publish(dev);
	return 0;
}

static int
mm_dev_up_one(struct mm_dev *dev)
{
	/* The steering core holds the firmware's largest RQ table. */
	struct sv_device_opts o = {
		.profile = SV_PROFILE_MLX5,
		.log_ind_tbl = mm_cx5.log_max_rqt_size,
		.flex_parser = dev->flex_parser,
		.modify_actions = dev->caps->max_modify_header_actions,
	};
	struct ibv_device **list;
	int n, i, rc;

	if (dev->up)
		return 0;
	rc = softverbs_device_add(dev->wire, &o, dev->svname,
				  sizeof(dev->svname));
	if (rc != 0) {
		fprintf(stderr, "mlx5model: %s: cannot open %s: %s\n",
			dev->ibdev, dev->wire, strerror(rc));
		return -rc;
	}
	list = sv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), dev->svname) == 0)
			dev->svdev = list[i];
	/* The list holds no reference: the device stays until removed. */
	sv_free_device_list(list);
	if (dev->svdev == NULL)
		return -ENODEV;
	dev->kctx = sv_open(dev->svdev, true);
	if (dev->kctx == NULL)
		return -errno;
	softverbs_port_mac(dev->kctx, 1, dev->mac);
	mm_dev_sysfs_mac(dev);
	rc = mm_dev_clock_setup(dev);
	if (rc == 0)
		rc = mm_engine_start(dev);
	if (rc != 0)
		return rc;
	dev->up = true;
	mm_trace("%s up on %s (%s)", dev->ibdev, dev->wire, dev->svname);
	return 0;
}

int
mm_dev_up(struct mm_dev *dev)
{
	int i, rc = 0;

	pthread_mutex_lock(&mm_up_lock);
	/* The devices of an in-memory link come up together, in their
	 * order: each end is up when the other is (a cable with both NICs
	 * powered), and takes the same end, so the same MAC, whichever a
	 * process opens first. */
	if (strncmp(dev->wire, "mem:", 4) == 0) {
		for (i = 0; i < mm_ndev && rc == 0; i++)
			if (strcmp(mm_devs[i].wire, dev->wire) == 0)
				rc = mm_dev_up_one(&mm_devs[i]);
	} else {
		rc = mm_dev_up_one(dev);
	}
	pthread_mutex_unlock(&mm_up_lock);
	return rc;
}

/* ---- the netdev of an in-memory link ---- */

int
mm_netdev_mtu(struct mm_dev *dev, unsigned int *mtu, unsigned int *max)
{
	int rc;

	rc = mm_dev_up(dev);
	if (rc != 0)
		return rc;
	rc = softverbs_port_mtu(dev->kctx, 1, mtu, max);
	if (rc != 0)
		return -rc;
	if (*max > dev->caps->netdev_max_mtu)
		*max = dev->caps->netdev_max_mtu;
	return 0;
}

int
mm_netdev_ioctl(struct mm_dev *dev, unsigned long req, void *arg)
{
	struct ifreq *ifr = arg;
	struct sv_port_link link;
	unsigned int mtu, max;
	int rc;

	if (!dev->netdev_modelled) {
		/* A Linux interface stands for the mlx5e netdev: the kernel
		 * answers, within the port's MTU range (dev_validate_mtu():
		 * -EINVAL outside [min_mtu, max_mtu]). */
		if (req != SIOCSIFMTU)
			return 1;
		if (ifr->ifr_mtu < 68 ||
		    ifr->ifr_mtu > (int)dev->caps->netdev_max_mtu)
			return -EINVAL;
		return 1;
	}
	rc = mm_dev_up(dev);
	if (rc != 0)
		return rc;
	switch (req) {
	case SIOCGIFMTU:
		rc = mm_netdev_mtu(dev, &mtu, &max);
		if (rc != 0)
			return rc;
		ifr->ifr_mtu = (int)mtu;
		return 0;
	case SIOCSIFMTU:
		return -softverbs_port_set_mtu(dev->kctx, 1,
					       (unsigned int)ifr->ifr_mtu);
	case SIOCGIFFLAGS:
		rc = softverbs_port_link(dev->kctx, 1, &link);
		if (rc != 0)
			return -rc;
		ifr->ifr_flags = IFF_UP | IFF_BROADCAST | IFF_MULTICAST |
				 (link.up ? IFF_RUNNING : 0);
		return 0;
	case SIOCGIFHWADDR:
		memset(&ifr->ifr_hwaddr, 0, sizeof(ifr->ifr_hwaddr));
		ifr->ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
		memcpy(ifr->ifr_hwaddr.sa_data, dev->mac, 6);
		return 0;
	case SIOCGIFINDEX:
		ifr->ifr_ifindex = mm_dev_ifindex(dev);
		return 0;
	case SIOCETHTOOL: {
		struct ethtool_cmd *ec = (void *)ifr->ifr_data;

		if (ec == NULL || ec->cmd != ETHTOOL_GSET)
			return -EOPNOTSUPP;
		/* An in-memory link has no speed. */
		memset(ec, 0, sizeof(*ec));
		ec->cmd = ETHTOOL_GSET;
		ec->speed = (uint16_t)SPEED_UNKNOWN;
		ec->speed_hi = (uint16_t)((uint32_t)SPEED_UNKNOWN >> 16);
		ec->duplex = DUPLEX_FULL;
		ec->autoneg = AUTONEG_DISABLE;
		return 0;
	}
	default:
		return -EOPNOTSUPP;
	}
}

/* ---- event files: completion channels, async events ---- */

/*
 * An event file, as the kernel's ib_uverbs_event_queue: a list of
 * kernel-format events (struct ib_uverbs_comp_event_desc,
 * ib_uverbs_async_event_desc) that read() takes one at a time. The
 * application's descriptor is an eventfd that polls readable while the
 * list holds events; read() of it is the model's (mm_preload.c), and
 * blocks unless the descriptor is non-blocking. Completion events count
 * in their CQ when read (comp_events_reported) and go with it when it is
 * destroyed unread, as ib_uverbs_release_ucq() removes them.
 */
struct mm_ev {
	struct mm_ev *next;
	const void *owner; /* the CQ of a completion event */
	uint32_t *counter; /* counted when read */
	uint8_t len;
	uint8_t data[16];
};

struct mm_evfile {
	int fd; /* the application's eventfd; -1 once closed */
	uint16_t type;
	struct mm_uobj *u;
	pthread_mutex_t lock;
	struct mm_ev *head, **tail;
};

static void
mm_evfile_signal(struct mm_evfile *e, bool on)
{
	uint64_t v = 1;
	ssize_t n;

	if (e->fd < 0)
		return;
	if (on)
		n = mm_real_write(e->fd, &v, sizeof(v));
	else
		n = mm_real_read(e->fd, &v, sizeof(v));
	(void)n;
}

void
mm_evfile_post(struct mm_evfile *e, const void *ev, size_t len,
	       const void *owner, uint32_t *counter)
{
	struct mm_ev *x;

	if (e == NULL || len > sizeof(x->data))
		return;
	x = calloc(1, sizeof(*x));
	if (x == NULL)
		return;
	memcpy(x->data, ev, len);
	x->len = (uint8_t)len;
	x->owner = owner;
	x->counter = counter;
	pthread_mutex_lock(&e->lock);
	if (e->fd < 0) {
		pthread_mutex_unlock(&e->lock);
		free(x);
		return;
	}
	*e->tail = x;
	e->tail = &x->next;
	if (e->head == x)
		mm_evfile_signal(e, true);
	pthread_mutex_unlock(&e->lock);
}

void
mm_evfile_forget(struct mm_evfile *e, const void *owner)
{
	struct mm_ev **pp, *x;
	bool was;

	if (e == NULL)
		return;
	pthread_mutex_lock(&e->lock);
	was = e->head != NULL;
	for (pp = &e->head; (x = *pp) != NULL;) {
		if (x->owner == owner) {
			*pp = x->next;
			free(x);
		} else {
			pp = &x->next;
		}
	}
	e->tail = &e->head;
	for (x = e->head; x != NULL; x = x->next)
		e->tail = &x->next;
	if (was && e->head == NULL)
		mm_evfile_signal(e, false);
	pthread_mutex_unlock(&e->lock);
}

/* ib_uverbs_event_read(): one event per read, -EINVAL for a buffer too
 * small for it, -EAGAIN when empty and non-blocking. */
ssize_t
mm_evfile_read(int fd, void *buf, size_t count)
{
	struct mm_evfile *e = mm_fd_get(fd, MM_FD_EVENT);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct mm_ev *x;
	size_t len;

	if (e == NULL)
		return -EBADF;
	for (;;) {
		pthread_mutex_lock(&e->lock);
		x = e->head;
		if (x != NULL)
			break;
		pthread_mutex_unlock(&e->lock);
		if (fcntl(fd, F_GETFL) & O_NONBLOCK)
			return -EAGAIN;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -errno;
	}
	len = x->len;
	if (count < len) {
		pthread_mutex_unlock(&e->lock);
		return -EINVAL;
	}
	e->head = x->next;
	if (e->head == NULL) {
		e->tail = &e->head;
		mm_evfile_signal(e, false);
	}
	if (x->counter != NULL)
		++*x->counter;
	pthread_mutex_unlock(&e->lock);
	memcpy(buf, x->data, len);
	free(x);
	return (ssize_t)len;
}

/* The application closed its descriptor: nothing more is posted. */
void
mm_evfile_app_close(int fd)
{
	struct mm_evfile *e = mm_fd_get(fd, MM_FD_EVENT);

	if (e == NULL)
		return;
	mm_fd_clear(fd);
	pthread_mutex_lock(&e->lock);
	e->fd = -1;
	pthread_mutex_unlock(&e->lock);
}

static int
mm_evfile_destroy(struct mm_uobj *u)
{
	struct mm_evfile *e = u->priv;
	struct mm_ev *x;

	if (u->file->async_obj == u)
		u->file->async_obj = NULL;
	pthread_mutex_lock(&e->lock);
	if (e->fd >= 0) {
		mm_fd_clear(e->fd);
		mm_real_close(e->fd);
		e->fd = -1;
	}
	while ((x = e->head) != NULL) {
		e->head = x->next;
		free(x);
	}
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_destroy(&e->lock);
	free(e);
	u->priv = NULL;
	return 0;
}

struct mm_uobj *
mm_event_fd_uobj(struct mm_file *f, int fd, uint16_t type)
{
	struct mm_evfile *e = mm_fd_get(fd, MM_FD_EVENT);

	if (e == NULL || e->u == NULL || e->u->file != f ||
	    (type != MM_OBJ_ANY && e->type != type))
		return NULL;
	return e->u;
}

/* An event file object: the uobj made by the dispatcher (u) gets its
 * queue and descriptor; returns the descriptor. */
int
mm_evfile_make(struct mm_uobj *u, uint16_t type)
{
	struct mm_evfile *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return -ENOMEM;
	e->fd = eventfd(0, EFD_CLOEXEC);
	if (e->fd < 0) {
		free(e);
		return -EMFILE;
	}
	e->type = type;
	e->u = u;
	e->tail = &e->head;
	pthread_mutex_init(&e->lock, NULL);
	u->priv = e;
	u->destroy = mm_evfile_destroy;
	mm_fd_set(e->fd, MM_FD_EVENT, e);
	return e->fd;
}

void
mm_async_event(struct mm_file *f, uint64_t element, uint32_t type)
{
	struct ib_uverbs_async_event_desc ev = {
		.element = element,
		.event_type = type,
	};

	if (f->async_obj == NULL || f->async_obj->priv == NULL)
		return;
	mm_evfile_post(f->async_obj->priv, &ev, sizeof(ev), NULL, NULL);
}

void
mm_dev_async_event(struct mm_dev *dev, uint64_t element, uint32_t type)
{
	struct mm_file *f;

	pthread_mutex_lock(&dev->lock);
	for (f = dev->files; f != NULL; f = f->next)
		mm_async_event(f, element, type);
	pthread_mutex_unlock(&dev->lock);
}

const char *
mm_sysfs_root(void)
{
	return mm_sysfs;
}

/* ---- files ---- */

struct mm_file *
mm_file_open(struct mm_dev *dev, int flags)
{
	struct mm_file *f;
	int fd, rc;

	rc = mm_dev_up(dev);
	if (rc != 0) {
		errno = -rc;
		return NULL;
	}
	/* A descriptor of our own: /dev/null stands in for the device. */
	fd = mm_real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC), 0);
	if (fd < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		mm_real_close(fd);
		errno = ENOMEM;
		return NULL;
	}
	f->fd = fd;
	f->dev = dev;
	f->async_rd = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_lock(&dev->lock);
	dev->nfiles++;
	f->next = dev->files;
	dev->files = f;
	pthread_mutex_unlock(&dev->lock);
	mm_fd_set(fd, MM_FD_CMD, f);
	mm_trace("open %s: fd %d", dev->ibdev, fd);
	return f;
}

void
mm_file_close(struct mm_file *f)
{
	struct mm_mmap_entry *m, *next;
	struct mm_file **pp;

	mm_fd_clear(f->fd);
	pthread_mutex_lock(&f->dev->lock);
	for (pp = &f->dev->files; *pp != NULL; pp = &(*pp)->next)
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	f->dev->nfiles--;
	pthread_mutex_unlock(&f->dev->lock);
	pthread_mutex_lock(&f->lock);
	mm_file_release(f);
	if (f->sv != NULL && sv_close_device(f->sv) != 0)
		mm_trace("%s: context still holds objects", f->dev->ibdev);
	for (m = f->mmaps; m != NULL; m = next) {
		next = m->next;
		free(m);
	}
	pthread_mutex_unlock(&f->lock);
	mm_real_close(f->fd);
	mm_trace("close %s: fd %d", f->dev->ibdev, f->fd);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* ---- core request and response (uverbs_request / uverbs_response) ---- */

int
mm_request(struct mm_bundle *b, void *req, size_t len)
{
	const uint8_t *p = b->core_in;
	size_t i, n = b->core_inlen < len ? b->core_inlen : len;

	memcpy(req, b->core_in, n);
	if (n < len)
		memset((uint8_t *)req + n, 0, len - n);
	for (i = len; i < b->core_inlen; i++)
		if (p[i] != 0)
			return MM_REFUSE(EOPNOTSUPP,
					 "request longer than known, not zero");
	return 0;
}

int
mm_response(struct mm_bundle *b, const void *resp, size_t len)
{
	struct ib_uverbs_attr *out = mm_attr(b, UVERBS_ATTR_CORE_OUT);
	size_t n = b->core_outlen < len ? b->core_outlen : len;

	if (b->core_out == NULL)
		return 0;
	memcpy(b->core_out, resp, n);
	if (len < b->core_outlen)
		memset((uint8_t *)b->core_out + len, 0, b->core_outlen - len);
	if (out != NULL)
		out->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return 0;
}

/* ---- GET_CONTEXT: mlx5_ib_alloc_ucontext() ---- */

static int
mm_alloc_ucontext(struct mm_bundle *b)
{
	struct mm_file *f = b->file;
	const struct mm_caps *c = f->dev->caps;
	struct mlx5_ib_alloc_ucontext_req_v2 req;
	struct mlx5_ib_alloc_ucontext_resp resp;
	size_t min_req_v2 =
		offsetof(struct mlx5_ib_alloc_ucontext_req_v2, max_cqe_version);

	/* ib_alloc_ucontext(): one context per file. */
	if (f->has_ctx)
		return MM_REFUSE(EINVAL, "the file has a context");
	if (b->uhw_inlen != sizeof(struct mlx5_ib_alloc_ucontext_req) &&
	    b->uhw_inlen < min_req_v2)
		return MM_REFUSE(EINVAL,
				 "mlx5_ib_alloc_ucontext: request size");
	mm_uhw_in(b, &req, sizeof(req));
	if (req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX)
		return MM_REFUSE(EOPNOTSUPP, "mlx5_ib_alloc_ucontext: flags");
	if (req.comp_mask || req.reserved0 || req.reserved1 || req.reserved2)
		return MM_REFUSE(EOPNOTSUPP,
				 "mlx5_ib_alloc_ucontext: reserved fields");
	/* Rounded up to a multiple of MLX5_NON_FP_BFREGS_PER_UAR (2). */
	req.total_num_bfregs = (req.total_num_bfregs + 1) & ~1u;
	if (req.num_low_latency_bfregs > req.total_num_bfregs - 1)
		return MM_REFUSE(EINVAL,
				 "mlx5_ib_alloc_ucontext: low latency bfregs");
	/* mlx5_ib_devx_create(): no DevX user context without
	 * log_max_uctx. */
	if ((req.flags & MLX5_IB_ALLOC_UCTX_DEVX) && c->log_max_uctx == 0)
		return MM_REFUSE(EINVAL, "mlx5_ib_devx_create: no DevX");
	/* Without MLX5_LIB_CAP_DYN_UAR the kernel would hand out the
	 * context's UARs now (allocate_uars()); libmlx5 44 always asks for
	 * dynamic UARs, the only scheme modelled. */
	if (!(req.lib_caps & MLX5_LIB_CAP_DYN_UAR))
		return MM_REFUSE(
			EOPNOTSUPP,
			"static UARs (no MLX5_LIB_CAP_DYN_UAR) not modelled");
	f->sv = sv_open(f->dev->svdev, req.flags & MLX5_IB_ALLOC_UCTX_DEVX);
	if (f->sv == NULL)
		return -errno;
	f->devx = req.flags & MLX5_IB_ALLOC_UCTX_DEVX;
	if (f->devx)
		f->devx_uid = (uint16_t)(f->fd + 1);
	f->cqe_version = req.max_cqe_version < c->cqe_version ?
				 req.max_cqe_version :
				 c->cqe_version;
	f->lib_caps = req.lib_caps;
	/* mlx5_ib_alloc_transport_domain(): the context's own. */
	f->tdn = mm_devx_number();
	f->next_pdn = 1;
	f->next_uar_index = 0;
	/* set_ucontext_resp() */
	memset(&resp, 0, sizeof(resp));
	resp.qp_tab_size = 1u << c->log_max_qp;
	resp.bf_reg_size = 1u << c->log_bf_reg_size; /* wc_support */
	resp.cache_line_size = 64;
	resp.max_sq_desc_sz = c->max_wqe_sz_sq;
	resp.max_rq_desc_sz = c->max_wqe_sz_rq;
	resp.max_send_wqebb = 1u << c->log_max_qp_sz;
	resp.max_recv_wr = 1u << c->log_max_qp_sz;
	resp.max_srq_recv_wr = 1u << c->log_max_srq_sz;
	resp.cqe_version = f->cqe_version;
	/* No uar_4k on 4 KiB pages (mlx5_core sets it for larger pages). */
	resp.log_uar_size = 12;
	resp.num_uars_per_page = 1;
	resp.tot_bfregs = 0; /* lib_uar_dyn */
	resp.num_ports = 1;
	resp.cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE |
			     MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	/* An Ethernet port: the minimum inline mode, off by one. */
	resp.eth_min_inline = (uint8_t)(c->min_inline + 1);
	resp.comp_mask = MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_CORE_CLOCK_OFFSET |
			 MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_MKEY_UPDATE_TAG;
	/* offsetof(struct mlx5_init_seg, internal_timer_h) % PAGE_SIZE */
	resp.hca_core_clock_offset = 0x1000;
	resp.hca_core_clock_offset %= MM_PAGE;
	resp.response_length = b->uhw_outlen < sizeof(resp) ?
				       (uint32_t)b->uhw_outlen :
				       (uint32_t)sizeof(resp);
	f->has_ctx = true;
	mm_uhw_out(b, &resp, resp.response_length);
	return 0;
}

static int
mm_m_get_context(struct mm_bundle *b)
{
	uint32_t ncomp = 1;
	uint64_t core = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;

	mm_attr_copy_out(b, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &ncomp,
			 sizeof(ncomp));
	mm_attr_copy_out(b, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &core,
			 sizeof(core));
	return mm_alloc_ucontext(b);
}

/* The async event file of the context (UVERBS_METHOD_ASYNC_EVENT_ALLOC,
 * or made by the write GET_CONTEXT). */
static int
mm_async_file(struct mm_file *f, struct mm_uobj *u)
{
	int fd = mm_evfile_make(u, UVERBS_OBJECT_ASYNC_EVENT);

	if (fd < 0)
		return fd;
	/* The first one is the context's default async file. */
	if (f->async_rd < 0) {
		f->async_rd = fd;
		f->async_obj = u;
	}
	return fd;
}

static int
mm_m_async_alloc(struct mm_bundle *b)
{
	struct mm_uobj *u =
		mm_attr_new(b, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
	struct ib_uverbs_attr *a =
		mm_attr(b, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
	int fd = mm_async_file(b->file, u);

	if (fd < 0)
		return fd;
	a->data_s64 = fd;
	return 0;
}

static int
mm_w_get_context(struct mm_bundle *b)
{
	struct ib_uverbs_get_context_resp resp;
	struct ib_uverbs_get_context cmd;
	struct mm_uobj *u;
	int rc, fd;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	rc = mm_alloc_ucontext(b);
	if (rc != 0)
		return rc;
	/* ib_uverbs_get_context(): the async event file with it. */
	u = mm_uobj_new(b->file, UVERBS_OBJECT_ASYNC_EVENT);
	if (u == NULL)
		return -ENOMEM;
	fd = mm_async_file(b->file, u);
	if (fd < 0) {
		mm_uobj_free(u);
		return fd;
	}
	memset(&resp, 0, sizeof(resp));
	resp.async_fd = (uint32_t)fd;
	resp.num_comp_vectors = 1;
	return mm_response(b, &resp, sizeof(resp));
}

static int
mm_m_query_context(struct mm_bundle *b)
{
	return MM_REFUSE(EOPNOTSUPP, "importing a context is not modelled");
}

/* ---- queries ---- */

static int
mm_w_query_device(struct mm_bundle *b)
{
	struct ib_uverbs_ex_query_device_resp r;
	struct ib_uverbs_query_device cmd;
	int rc;

	rc = mm_need_ctx(b);
	if (rc == 0)
		rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	mm_query_device(b->file->dev, &r);
	return mm_response(b, &r.base, sizeof(r.base));
}

static int
mm_w_ex_query_device(struct mm_bundle *b)
{
	struct ib_uverbs_ex_query_device_resp r;
	struct mlx5_ib_query_device_resp dr;
	struct ib_uverbs_ex_query_device cmd;
	size_t n;
	int rc;

	rc = mm_need_ctx(b);
	if (rc == 0)
		rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (cmd.comp_mask || cmd.reserved)
		return MM_REFUSE(EINVAL,
				 "ib_uverbs_ex_query_device: comp_mask");
	/* mlx5_ib_query_device(): the driver's part first. */
	if (b->uhw_outlen &&
	    b->uhw_outlen < sizeof(dr.comp_mask) + sizeof(dr.response_length))
		return MM_REFUSE(EINVAL, "mlx5_ib_query_device: udata size");
	if (!mm_uhw_cleared(b, 0))
		return MM_REFUSE(EINVAL, "mlx5_ib_query_device: udata in");
	mm_query_device(b->file->dev, &r);
	if (b->uhw_outlen) {
		n = mm_query_device_mlx5(b->file->dev, b->uhw_outlen, &dr);
		mm_uhw_out(b, &dr, n);
	}
	r.response_length = (uint32_t)(b->core_outlen < sizeof(r) ?
					       b->core_outlen :
					       sizeof(r));
	return mm_response(b, &r, sizeof(r));
}

/* iboe_get_mtu(): the largest IB MTU under the netdev MTU less the RoCE
 * headers (GRH, UDP, BTH, XRC, AtomicETH, ICRC: 96 bytes). */
static uint8_t
mm_iboe_mtu(unsigned int mtu)
{
	int m = (int)mtu - 96;

	if (m >= 4096)
		return IBV_MTU_4096;
	if (m >= 2048)
		return IBV_MTU_2048;
	if (m >= 1024)
		return IBV_MTU_1024;
	if (m >= 512)
		return IBV_MTU_512;
	if (m >= 256)
		return IBV_MTU_256;
	return 0;
}

/* mlx5_query_port_roce() through ib_uverbs' copy_port_attr_to_resp(). */
static int
mm_query_port(struct mm_file *f, uint32_t port,
	      struct ib_uverbs_query_port_resp_ex *r)
{
	struct mm_dev *dev = f->dev;
	struct ibv_port_attr pa;
	unsigned int mtu = 1500, max_mtu;
	int rc;

	/* rdma_is_port_valid() */
	if (port != 1)
		return MM_REFUSE(EINVAL, "no such port");
	rc = sv_query_port(dev->kctx, 1, &pa);
	if (rc != 0)
		return -rc;
	softverbs_port_mtu(dev->kctx, 1, &mtu, &max_mtu);
	memset(r, 0, sizeof(*r));
	r->legacy_resp.state = pa.state;
	r->legacy_resp.max_mtu = IBV_MTU_4096;
	r->legacy_resp.active_mtu = mm_iboe_mtu(mtu);
	r->legacy_resp.gid_tbl_len = 256; /* roce_address_table_size */
	r->legacy_resp.port_cap_flags = IB_UVERBS_PCF_CM_SUP |
					IB_UVERBS_PCF_IP_BASED_GIDS;
	r->legacy_resp.max_msg_sz = 1u << dev->caps->log_max_msg;
	r->legacy_resp.pkey_tbl_len = 1;
	r->legacy_resp.active_width = pa.active_width;
	r->legacy_resp.active_speed = pa.active_speed;
	r->legacy_resp.phys_state = pa.phys_state;
	r->legacy_resp.link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

static int
mm_m_query_port(struct mm_bundle *b)
{
	struct ib_uverbs_query_port_resp_ex r;
	uint64_t port;
	int rc;

	rc = mm_attr_const(b, UVERBS_ATTR_QUERY_PORT_PORT_NUM, &port);
	if (rc == 0)
		rc = mm_need_ctx(b);
	if (rc == 0)
		rc = mm_query_port(b->file, (uint32_t)port, &r);
	if (rc != 0)
		return rc;
	return mm_attr_copy_out(b, UVERBS_ATTR_QUERY_PORT_RESP, &r, sizeof(r));
}

static int
mm_w_query_port(struct mm_bundle *b)
{
	struct ib_uverbs_query_port_resp_ex r;
	struct ib_uverbs_query_port cmd;
	int rc;

	rc = mm_need_ctx(b);
	if (rc == 0)
		rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc == 0)
		rc = mm_query_port(b->file, cmd.port_num, &r);
	if (rc != 0)
		return rc;
	return mm_response(b, &r.legacy_resp, sizeof(r.legacy_resp));
}

/* The GID table of a RoCE port with no IP address: the link-local GID
 * from the MAC, as RoCE v1 (index 0) and RoCE v2 (index 1). */
#define MM_NGIDS 2
static int
mm_gid_entry(struct mm_file *f, uint32_t port, uint32_t index,
	     struct ib_uverbs_gid_entry *e)
{
	uint8_t guid[8];

	if (port != 1)
		return MM_REFUSE(EINVAL, "no such port");
	/* rdma_get_gid_attr(): -EINVAL past the table, -ENODATA for an
	 * empty entry. */
	if (index >= 256)
		return -EINVAL;
	if (index >= MM_NGIDS)
		return -ENODATA;
	memset(e, 0, sizeof(*e));
	mm_dev_guid(f->dev, guid);
	((uint8_t *)e->gid)[0] = 0xfe;
	((uint8_t *)e->gid)[1] = 0x80;
	memcpy((uint8_t *)e->gid + 8, guid, 8);
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = index == 0 ? IB_UVERBS_GID_TYPE_ROCE_V1 :
				   IB_UVERBS_GID_TYPE_ROCE_V2;
	e->netdev_ifindex =
		f->dev->netdev_modelled ? 0 : if_nametoindex(f->dev->netdev);
	return 0;
}

static int
mm_m_query_gid_entry(struct mm_bundle *b)
{
	struct ib_uverbs_gid_entry e;
	uint64_t flags, port, index;
	int rc;

	rc = mm_attr_flags(b, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0, &flags);
	if (rc == 0)
		rc = mm_attr_const(b, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, &port);
	if (rc == 0)
		rc = mm_attr_const(b, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX,
				   &index);
	if (rc == 0)
		rc = mm_need_ctx(b);
	if (rc == 0)
		rc = mm_gid_entry(b->file, (uint32_t)port, (uint32_t)index, &e);
	if (rc != 0)
		return rc;
	return mm_attr_copy_out(b, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, &e,
				sizeof(e));
}

static int
mm_m_query_gid_table(struct mm_bundle *b)
{
	struct ib_uverbs_gid_entry e[MM_NGIDS];
	struct ib_uverbs_attr *a;
	uint64_t flags, esize, n, i;
	uint8_t *out;
	int rc;

	rc = mm_attr_flags(b, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0, &flags);
	if (rc == 0)
		rc = mm_attr_const(b, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
				   &esize);
	if (rc != 0)
		return rc;
	if (esize == 0)
		return -EINVAL;
	a = mm_attr(b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES);
	n = a->len / esize;
	if (n == 0)
		return -EINVAL;
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	if (n > MM_NGIDS)
		n = MM_NGIDS;
	out = (uint8_t *)(uintptr_t)a->data;
	for (i = 0; i < n; i++) {
		mm_gid_entry(b->file, 1, (uint32_t)i, &e[i]);
		memset(out + i * esize, 0, esize);
		memcpy(out + i * esize, &e[i],
		       esize < sizeof(e[i]) ? esize : sizeof(e[i]));
	}
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return mm_attr_copy_out(b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
				&n, sizeof(n));
}

static int
mm_m_invoke_write(struct mm_bundle *b)
{
	uint64_t cmd;
	const void *in;
	size_t len;
	int rc;

	rc = mm_attr_const(b, UVERBS_ATTR_WRITE_CMD, &cmd);
	if (rc != 0)
		return rc;
	in = mm_attr_in_ptr(b, UVERBS_ATTR_CORE_IN, &len);
	b->core_in = in;
	b->core_inlen = in != NULL ? len : 0;
	if (mm_attr_present(b, UVERBS_ATTR_CORE_OUT)) {
		struct ib_uverbs_attr *o = mm_attr(b, UVERBS_ATTR_CORE_OUT);

		b->core_out = (void *)(uintptr_t)o->data;
		b->core_outlen = o->len;
	}
	return mm_uverbs_invoke_write(b, (uint32_t)cmd);
}

/* ---- UARs and mmap ---- */

/* The mmap offset of the n-th entry of a file: start_pgoff from
 * MLX5_IB_MMAP_OFFSET_START << 16, as mlx5_entry_to_mmap_offset()
 * encodes it. */
static uint64_t
mm_entry_offset(uint32_t n)
{
	uint64_t pgoff = (9ull << 16) + n;
	uint64_t cmd = (pgoff >> 16) & 0xffff, index = pgoff & 0xffff;

	return (((index >> 8) << 16) | (cmd << 8) | (index & 0xff)) * MM_PAGE;
}

static int
mm_uar_destroy(struct mm_uobj *u)
{
	struct mm_mmap_entry *e = u->priv, **pp;

	for (pp = &u->file->mmaps; *pp != NULL; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	free(e);
	u->priv = NULL;
	return 0;
}

static int
mm_m_uar_alloc(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	struct mm_file *f = b->file;
	struct mm_mmap_entry *e;
	uint64_t type, off;
	uint32_t len = MM_PAGE;
	int rc;

	rc = mm_attr_const(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, &type);
	if (rc != 0)
		return rc;
	if (type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF &&
	    type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		return MM_REFUSE(EOPNOTSUPP, "UAR_OBJ_ALLOC: type");
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	e->uar = true;
	e->uar_index = f->next_uar_index++;
	e->len = MM_PAGE;
	e->pgoff = mm_entry_offset(e->uar_index) / MM_PAGE;
	e->next = f->mmaps;
	f->mmaps = e;
	u->priv = e;
	u->destroy = mm_uar_destroy;
	off = e->pgoff * MM_PAGE;
	mm_attr_copy_out(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET, &off,
			 sizeof(off));
	mm_attr_copy_out(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID, &e->uar_index,
			 sizeof(e->uar_index));
	return mm_attr_copy_out(b, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH, &len,
				sizeof(len));
}

static int
mm_m_uar_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(
		mm_attr_obj(b, MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE));
}

/*
 * mmap of the uverbs file (mlx5_ib_mmap()): a UAR object's page, or the
 * core clock page. UAR writes (doorbells, BlueFlame copies) land in
 * memory of the model's own: the engine reads the doorbell records and
 * the rings, which carry everything the writes announce.
 */
void *
mm_mmap(struct mm_file *f, void *addr, size_t len, int prot, int flags,
	off_t off)
{
	uint64_t pgoff = (uint64_t)off / MM_PAGE;
	unsigned int cmd = (pgoff >> 8) & 0xff;
	struct mm_mmap_entry *e;
	void *p;

	(void)flags;
	if (cmd == MLX5_IB_MMAP_CORE_CLOCK) {
		if (len != MM_PAGE) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		if (prot & PROT_WRITE) {
			errno = EPERM;
			return MAP_FAILED;
		}
		/* The free-running timer (internal_timer_h/_l): the
		 * device's page, which the engine keeps current. */
		return mm_real_mmap(addr, len, PROT_READ, MAP_SHARED,
				    f->dev->clock_fd, 0);
	}
	if (cmd == MLX5_IB_MMAP_REGULAR_PAGE || cmd == MLX5_IB_MMAP_NC_PAGE ||
	    cmd == MLX5_IB_MMAP_WC_PAGE || cmd == MLX5_IB_MMAP_ALLOC_WC) {
		/* uar_mmap(): a context with dynamic UARs has none. */
		mm_trace("mmap of legacy UAR command %u refused", cmd);
		errno = EINVAL;
		return MAP_FAILED;
	}
	pthread_mutex_lock(&f->lock);
	for (e = f->mmaps; e != NULL; e = e->next)
		if (e->pgoff == pgoff)
			break;
	pthread_mutex_unlock(&f->lock);
	/* rdma_user_mmap_entry_get(): no entry, or a size that is not the
	 * entry's. */
	if (e == NULL || len != e->len) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	p = mm_real_mmap(addr, len, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		e->page = p;
	return p;
}

/* ---- method tables ---- */

static const struct mm_attr_spec mm_a_get_context[] = {
	{ .id = UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
	  .type = MM_AT_PTR_OUT,
	  MM_TYPE(uint32_t) },
	{ .id = UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT,
	  .type = MM_AT_PTR_OUT,
	  MM_TYPE(uint64_t) },
	MM_UHW,
};

static const struct mm_attr_spec mm_a_query_context[] = {
	{ .id = UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
	  .type = MM_AT_PTR_OUT,
	  MM_TYPE(uint32_t) },
	{ .id = UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
	  .type = MM_AT_PTR_OUT,
	  MM_TYPE(uint64_t) },
	{ .id = MLX5_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_STRUCT(struct mlx5_ib_alloc_ucontext_resp, dump_fill_mkey) },
};

static const struct mm_attr_spec mm_a_invoke_write[] = {
	MM_CONST(UVERBS_ATTR_WRITE_CMD, 1),
	{ .id = UVERBS_ATTR_CORE_IN,
	  .type = MM_AT_PTR_IN,
	  .min_len = sizeof(uint32_t) },
	{ .id = UVERBS_ATTR_CORE_OUT, .type = MM_AT_PTR_OUT },
	MM_UHW,
};

static const struct mm_attr_spec mm_a_query_port[] = {
	MM_CONST(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1),
	{ .id = UVERBS_ATTR_QUERY_PORT_RESP,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_STRUCT(struct ib_uverbs_query_port_resp_ex, reserved) },
};

static const struct mm_attr_spec mm_a_query_gid_table[] = {
	MM_CONST(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 1),
	MM_FLAGS(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0),
	{ .id = UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1 },
	{ .id = UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint64_t) },
};

static const struct mm_attr_spec mm_a_query_gid_entry[] = {
	MM_CONST(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, 1),
	MM_CONST(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, 1),
	MM_FLAGS(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 1),
	{ .id = UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_STRUCT(struct ib_uverbs_gid_entry, netdev_ifindex) },
};

static const struct mm_attr_spec mm_a_async_alloc[] = {
	{ .id = UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE,
	  .type = MM_AT_FD,
	  .mandatory = 1,
	  .access = MM_ACC_NEW,
	  .obj = UVERBS_OBJECT_ASYNC_EVENT },
};

static const struct mm_attr_spec mm_a_uar_alloc[] = {
	{ .id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE,
	  .type = MM_AT_IDR,
	  .mandatory = 1,
	  .access = MM_ACC_NEW,
	  .obj = MLX5_IB_OBJECT_UAR },
	MM_CONST(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE, 1),
	{ .id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint64_t) },
	{ .id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	{ .id = MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
};

static const struct mm_attr_spec mm_a_uar_destroy[] = {
	{ .id = MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE,
	  .type = MM_AT_IDR,
	  .mandatory = 1,
	  .access = MM_ACC_DESTROY,
	  .obj = MLX5_IB_OBJECT_UAR },
};

#define MM_METHOD(o, m, a, u, h)                                         \
	{                                                                \
		.obj = (o), .id = (m), .name = #m, .attrs = (a),         \
		.nattrs = MM_ARRAY_SIZE(a), .udata = (u), .handler = (h) \
	}

static const struct mm_method mm_device_m[] = {
	MM_METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT,
		  mm_a_get_context, true, mm_m_get_context),
	MM_METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
		  mm_a_query_context, false, mm_m_query_context),
	MM_METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE,
		  mm_a_invoke_write, true, mm_m_invoke_write),
	MM_METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT,
		  mm_a_query_port, false, mm_m_query_port),
	MM_METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE,
		  mm_a_query_gid_table, false, mm_m_query_gid_table),
	MM_METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY,
		  mm_a_query_gid_entry, false, mm_m_query_gid_entry),
	MM_METHOD(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC,
		  mm_a_async_alloc, false, mm_m_async_alloc),
	MM_METHOD(MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_ALLOC,
		  mm_a_uar_alloc, false, mm_m_uar_alloc),
	MM_METHOD(MLX5_IB_OBJECT_UAR, MLX5_IB_METHOD_UAR_OBJ_DESTROY,
		  mm_a_uar_destroy, false, mm_m_uar_destroy),
};

const struct mm_method_table mm_device_methods = {
	mm_device_m,
	MM_ARRAY_SIZE(mm_device_m),
};

#define MM_WRITE(c, req, resp, r, u, h)                             \
	{                                                           \
		.cmd = (c), .name = #c, .req_size = sizeof(req),    \
		.resp_size = (resp), .has_resp = (r), .udata = (u), \
		.handler = (h)                                      \
	}

static const struct mm_write_method mm_device_w[] = {
	MM_WRITE(IB_USER_VERBS_CMD_GET_CONTEXT, struct ib_uverbs_get_context,
		 sizeof(struct ib_uverbs_get_context_resp), true, true,
		 mm_w_get_context),
	MM_WRITE(IB_USER_VERBS_CMD_QUERY_DEVICE, struct ib_uverbs_query_device,
		 sizeof(struct ib_uverbs_query_device_resp), true, false,
		 mm_w_query_device),
	MM_WRITE(IB_USER_VERBS_CMD_QUERY_PORT, struct ib_uverbs_query_port,
		 sizeof(struct ib_uverbs_query_port_resp), true, false,
		 mm_w_query_port),
	MM_WRITE(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			 IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		 struct ib_uverbs_ex_query_device,
		 offsetof(struct ib_uverbs_ex_query_device_resp, comp_mask) +
			 sizeof(uint32_t) * 2,
		 true, true, mm_w_ex_query_device),
};

const struct mm_write_table mm_device_writes = {
	mm_device_w,
	MM_ARRAY_SIZE(mm_device_w),
};
