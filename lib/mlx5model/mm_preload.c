/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The libc calls libibverbs and libmlx5 make on the device, interposed by
 * preloading: open / openat of /dev/infiniband/uverbsN, stat and fstat of
 * it (a character device 231:192+N, as the kernel's), ioctl
 * (RDMA_VERBS_IOCTL), write (legacy commands), mmap (UARs), close, and
 * the RDMA netlink socket, which the model does not answer: libibverbs
 * then finds the devices in sysfs (SYSFS_PATH, written by
 * devtools/mlx5-model); and for the ports' netdevs, interface requests
 * (SIOC*) and route netlink sockets (mm_rtnl.c). Every other call goes
 * to the C library unchanged.
 *
 * The descriptor of an open device is a real one (of /dev/null), so that
 * the numbers are the process's own and nothing else is handed it.
 */

/* The plain and the 64-bit names are both defined here: no redirection
 * of one to the other. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <rdma/rdma_user_ioctl.h>

#include "mm_internal.h"

#define MM_EXPORT __attribute__((visibility("default")))

/* glibc's fortified open() entry points (no prototype in its headers). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

/* ---- the C library's own functions ---- */

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_stat)(const char *, struct stat *);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_ioctl)(int, unsigned long, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_read)(int, void *, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_close)(int);
static int (*real_socket)(int, int, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
				socklen_t *);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static unsigned int (*real_if_nametoindex)(const char *);
static char *(*real_if_indextoname)(unsigned int, char[IF_NAMESIZE]);

static void *
mm_next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL) {
		fprintf(stderr, "mlx5model: no %s in the C library\n", name);
		abort();
	}
	return p;
}

#define MM_REAL(var, name)                                \
	do {                                              \
		if (mm_unlikely(var == NULL))             \
			*(void **)(&var) = mm_next(name); \
	} while (0)

int
mm_real_open(const char *path, int flags, mode_t mode)
{
	MM_REAL(real_open, "open");
	return real_open(path, flags, mode);
}

int
mm_real_close(int fd)
{
	MM_REAL(real_close, "close");
	return real_close(fd);
}

int
mm_real_ioctl(int fd, unsigned long req, void *arg)
{
	MM_REAL(real_ioctl, "ioctl");
	return real_ioctl(fd, req, arg);
}

void *
mm_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	MM_REAL(real_mmap, "mmap");
	return real_mmap(addr, len, prot, flags, fd, off);
}

ssize_t
mm_real_write(int fd, const void *buf, size_t n)
{
	MM_REAL(real_write, "write");
	return real_write(fd, buf, n);
}

_Static_assert(sizeof(struct stat) == sizeof(struct stat64),
	       "stat64 is stat on this ABI");

ssize_t
mm_real_read(int fd, void *buf, size_t n)
{
	MM_REAL(real_read, "read");
	return real_read(fd, buf, n);
}

/* ---- the model's descriptors ---- */

#define MM_FD_MAX 65536
struct mm_fd_slot {
	_Atomic(void *) obj;
	_Atomic(int) kind;
};
static struct mm_fd_slot mm_fds[MM_FD_MAX];

void
mm_fd_set(int fd, enum mm_fd_kind kind, void *obj)
{
	if (fd < 0 || fd >= MM_FD_MAX)
		return;
	atomic_store(&mm_fds[fd].obj, obj);
	atomic_store(&mm_fds[fd].kind, (int)kind);
}

void *
mm_fd_get(int fd, enum mm_fd_kind kind)
{
	if (fd < 0 || fd >= MM_FD_MAX ||
	    atomic_load_explicit(&mm_fds[fd].kind, memory_order_acquire) !=
		    (int)kind)
		return NULL;
	return atomic_load(&mm_fds[fd].obj);
}

void
mm_fd_clear(int fd)
{
	if (fd < 0 || fd >= MM_FD_MAX)
		return;
	atomic_store(&mm_fds[fd].kind, MM_FD_NONE);
	atomic_store(&mm_fds[fd].obj, NULL);
}

/* "/dev/infiniband/uverbsN": the device, or NULL. */
static struct mm_dev *
mm_path_dev(const char *path)
{
	static const char pfx[] = "/dev/infiniband/uverbs";
	char *end;
	long n;

	if (path == NULL || strncmp(path, pfx, sizeof(pfx) - 1) != 0)
		return NULL;
	path += sizeof(pfx) - 1;
	if (*path < '0' || *path > '9')
		return NULL;
	n = strtol(path, &end, 10);
	if (*end != '\0' || n < 0 || n >= MM_MAX_DEVS)
		return NULL;
	mm_config_load();
	return mm_dev_by_index((int)n);
}

/* The uverbs character device as stat() shows it. */
static void
mm_cdev_stat(const struct mm_dev *dev, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = makedev(MM_UVERBS_MAJOR,
			      MM_UVERBS_BASE_MINOR + (unsigned)dev->index);
	st->st_nlink = 1;
	st->st_blksize = MM_PAGE;
}

static int
mm_open_dev(struct mm_dev *dev, int flags)
{
	struct mm_file *f;

	f = mm_file_open(dev, flags);
	if (f == NULL)
		return -1;
	return f->fd;
}

/* ---- interposed functions ---- */

MM_EXPORT int
open(const char *path, int flags, ...)
{
	struct mm_dev *dev = mm_path_dev(path);
	mode_t mode = 0;
	va_list ap;

	if (dev != NULL)
		return mm_open_dev(dev, flags);
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	MM_REAL(real_open, "open");
	return real_open(path, flags, mode);
}

MM_EXPORT int
open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open(path, flags | O_LARGEFILE, mode);
}

MM_EXPORT int
__open_2(const char *path, int flags)
{
	return open(path, flags);
}

MM_EXPORT int
__open64_2(const char *path, int flags)
{
	return open(path, flags | O_LARGEFILE);
}

MM_EXPORT int
openat(int dirfd, const char *path, int flags, ...)
{
	struct mm_dev *dev = mm_path_dev(path);
	mode_t mode = 0;
	va_list ap;

	if (dev != NULL)
		return mm_open_dev(dev, flags);
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	MM_REAL(real_openat, "openat");
	return real_openat(dirfd, path, flags, mode);
}

MM_EXPORT int
openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return openat(dirfd, path, flags | O_LARGEFILE, mode);
}

MM_EXPORT int
stat(const char *path, struct stat *st)
{
	struct mm_dev *dev = mm_path_dev(path);

	if (dev != NULL) {
		mm_cdev_stat(dev, st);
		return 0;
	}
	MM_REAL(real_stat, "stat");
	return real_stat(path, st);
}

MM_EXPORT int
stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)(void *)st);
}

MM_EXPORT int
fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct mm_dev *dev = mm_path_dev(path);

	if (dev != NULL) {
		mm_cdev_stat(dev, st);
		return 0;
	}
	MM_REAL(real_fstatat, "fstatat");
	return real_fstatat(dirfd, path, st, flags);
}

MM_EXPORT int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)(void *)st, flags);
}

MM_EXPORT int
fstat(int fd, struct stat *st)
{
	struct mm_file *f = mm_fd_get(fd, MM_FD_CMD);

	if (f != NULL) {
		mm_cdev_stat(f->dev, st);
		return 0;
	}
	MM_REAL(real_fstat, "fstat");
	return real_fstat(fd, st);
}

MM_EXPORT int
fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)(void *)st);
}

MM_EXPORT int
ioctl(int fd, unsigned long req, ...)
{
	struct mm_file *f;
	struct mm_dev *dev;
	void *arg;
	va_list ap;
	int rc;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	f = mm_fd_get(fd, MM_FD_CMD);
	if (f != NULL) {
		/* ib_uverbs_ioctl(): anything else is -ENOIOCTLCMD, which
		 * the syscall returns as ENOTTY. */
		if (req != RDMA_VERBS_IOCTL) {
			errno = ENOTTY;
			return -1;
		}
		rc = mm_uverbs_ioctl(f, arg);
		if (rc < 0) {
			errno = -rc;
			return -1;
		}
		return rc;
	}
	/* Interface requests about the netdev of a modelled port. */
	if (mm_unlikely(req == SIOCGIFMTU || req == SIOCSIFMTU ||
			req == SIOCETHTOOL || req == SIOCGIFFLAGS ||
			req == SIOCGIFHWADDR || req == SIOCGIFINDEX) &&
	    arg != NULL) {
		const struct ifreq *ifr = arg;
		char name[IFNAMSIZ + 1];

		memcpy(name, ifr->ifr_name, IFNAMSIZ);
		name[IFNAMSIZ] = '\0';
		dev = mm_dev_by_netdev(name);
		rc = dev != NULL ? mm_netdev_ioctl(dev, req, arg) : 1;
		if (rc < 0) {
			errno = -rc;
			return -1;
		}
		if (rc == 0)
			return 0;
	}
	MM_REAL(real_ioctl, "ioctl");
	return real_ioctl(fd, req, arg);
}

MM_EXPORT ssize_t
write(int fd, const void *buf, size_t n)
{
	struct mm_file *f = mm_fd_get(fd, MM_FD_CMD);
	ssize_t rc;

	if (f != NULL) {
		rc = mm_uverbs_write(f, buf, n);
		if (rc < 0) {
			errno = (int)-rc;
			return -1;
		}
		return rc;
	}
	MM_REAL(real_write, "write");
	return real_write(fd, buf, n);
}

MM_EXPORT ssize_t
read(int fd, void *buf, size_t n)
{
	ssize_t rc;

	if (mm_unlikely(mm_fd_get(fd, MM_FD_EVENT) != NULL)) {
		rc = mm_evfile_read(fd, buf, n);
		if (rc < 0) {
			errno = (int)-rc;
			return -1;
		}
		return rc;
	}
	MM_REAL(real_read, "read");
	return real_read(fd, buf, n);
}

MM_EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct mm_file *f = mm_fd_get(fd, MM_FD_CMD);

	if (f != NULL)
		return mm_mmap(f, addr, len, prot, flags, off);
	MM_REAL(real_mmap, "mmap");
	return real_mmap(addr, len, prot, flags, fd, off);
}

MM_EXPORT void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	return mmap(addr, len, prot, flags, fd, (off_t)off);
}

MM_EXPORT int
close(int fd)
{
	struct mm_file *f = mm_fd_get(fd, MM_FD_CMD);

	if (f != NULL) {
		/* The last reference of the file: the kernel's release
		 * destroys what the context still holds. */
		mm_file_close(f);
		return 0;
	}
	/* An event file's end: the model keeps its own end until the
	 * object goes. */
	if (mm_fd_get(fd, MM_FD_EVENT) != NULL)
		mm_evfile_app_close(fd);
	mm_rtnl_close(fd);
	MM_REAL(real_close, "close");
	return real_close(fd);
}

MM_EXPORT int
socket(int domain, int type, int protocol)
{
	int fd;

	/* The model has no RDMA netlink: libibverbs reads sysfs instead
	 * (ibverbs_get_device_list() falls back when find_sysfs_devs_nl()
	 * fails), as it does on a kernel without it. */
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		mm_config_load();
		if (mm_ndevs() > 0) {
			errno = EPROTONOSUPPORT;
			return -1;
		}
	}
	MM_REAL(real_socket, "socket");
	fd = real_socket(domain, type, protocol);
	if (fd >= 0 && domain == AF_NETLINK && protocol == NETLINK_ROUTE &&
	    mm_ndevs() > 0)
		mm_rtnl_open(fd);
	return fd;
}

/* The C library asks the kernel by its own calls, which the model does
 * not see: the in-memory links' netdevs are named here. */
MM_EXPORT unsigned int
if_nametoindex(const char *name)
{
	struct mm_dev *dev = name != NULL ? mm_dev_by_netdev(name) : NULL;

	if (dev != NULL && dev->netdev_modelled)
		return (unsigned int)mm_dev_ifindex(dev);
	MM_REAL(real_if_nametoindex, "if_nametoindex");
	return real_if_nametoindex(name);
}

MM_EXPORT char *
if_indextoname(unsigned int ifindex, char name[IF_NAMESIZE])
{
	struct mm_dev *dev = mm_dev_by_ifindex((int)ifindex);

	if (dev != NULL && dev->netdev_modelled) {
		memcpy(name, dev->netdev, strlen(dev->netdev) + 1);
		return name;
	}
	MM_REAL(real_if_indextoname, "if_indextoname");
	return real_if_indextoname(ifindex, name);
}

/* ---- route netlink sockets: the ports' netdevs (mm_rtnl.c) ---- */

MM_EXPORT ssize_t
sendto(int fd, const void *buf, size_t len, int flags,
       const struct sockaddr *to, socklen_t tolen)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);

	if (mm_unlikely(r != NULL) && mm_rtnl_request(r, buf, len))
		return (ssize_t)len;
	MM_REAL(real_sendto, "sendto");
	return real_sendto(fd, buf, len, flags, to, tolen);
}

MM_EXPORT ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);

	if (mm_unlikely(r != NULL) && mm_rtnl_request(r, buf, len))
		return (ssize_t)len;
	MM_REAL(real_send, "send");
	return real_send(fd, buf, len, flags);
}

MM_EXPORT ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);

	/* A request in one piece, as netlink users send it. */
	if (mm_unlikely(r != NULL) && msg != NULL && msg->msg_iovlen == 1 &&
	    mm_rtnl_request(r, msg->msg_iov[0].iov_base,
			    msg->msg_iov[0].iov_len))
		return (ssize_t)msg->msg_iov[0].iov_len;
	MM_REAL(real_sendmsg, "sendmsg");
	return real_sendmsg(fd, msg, flags);
}

/* The kernel as the sender of the model's answer. */
static void
mm_rtnl_from(struct sockaddr *from, socklen_t *fromlen)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (from == NULL || fromlen == NULL)
		return;
	memcpy(from, &nl, *fromlen < sizeof(nl) ? *fromlen : sizeof(nl));
	*fromlen = sizeof(nl);
}

MM_EXPORT ssize_t
recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from,
	 socklen_t *fromlen)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);
	ssize_t n;

	if (mm_unlikely(r != NULL)) {
		n = mm_rtnl_answer(r, buf, len, flags);
		if (n >= 0) {
			mm_rtnl_from(from, fromlen);
			return n;
		}
	}
	MM_REAL(real_recvfrom, "recvfrom");
	n = real_recvfrom(fd, buf, len, flags, from, fromlen);
	if (mm_unlikely(r != NULL) && n > 0)
		mm_rtnl_received(buf, (size_t)n < len ? (size_t)n : len);
	return n;
}

MM_EXPORT ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);
	ssize_t n;

	if (mm_unlikely(r != NULL)) {
		n = mm_rtnl_answer(r, buf, len, flags);
		if (n >= 0)
			return n;
	}
	MM_REAL(real_recv, "recv");
	n = real_recv(fd, buf, len, flags);
	if (mm_unlikely(r != NULL) && n > 0)
		mm_rtnl_received(buf, (size_t)n < len ? (size_t)n : len);
	return n;
}

MM_EXPORT ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct mm_rtnl *r = mm_fd_get(fd, MM_FD_RTNL);
	struct iovec *iov;
	ssize_t n;

	/* Into one buffer, as netlink users receive. */
	if (mm_unlikely(r != NULL) && msg != NULL && msg->msg_iovlen == 1) {
		iov = &msg->msg_iov[0];
		n = mm_rtnl_answer(r, iov->iov_base, iov->iov_len, flags);
		if (n >= 0) {
			mm_rtnl_from(msg->msg_name, &msg->msg_namelen);
			msg->msg_controllen = 0;
			msg->msg_flags = (size_t)n > iov->iov_len ? MSG_TRUNC :
								    0;
			return n;
		}
		MM_REAL(real_recvmsg, "recvmsg");
		n = real_recvmsg(fd, msg, flags);
		if (n > 0)
			mm_rtnl_received(iov->iov_base,
					 (size_t)n < iov->iov_len ?
						 (size_t)n :
						 iov->iov_len);
		return n;
	}
	MM_REAL(real_recvmsg, "recvmsg");
	return real_recvmsg(fd, msg, flags);
}
