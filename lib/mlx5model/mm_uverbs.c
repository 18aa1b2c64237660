/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The uverbs command paths of the kernel (Linux 6.1
 * drivers/infiniband/core/uverbs_ioctl.c, uverbs_main.c, rdma_core.c):
 * RDMA_VERBS_IOCTL with its method and attribute tables and checks,
 * write() with the legacy and extended headers, and the objects of a
 * file with their handles. The methods themselves live in the other
 * files' tables.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/ib_user_ioctl_verbs.h>

#include "mm_internal.h"

int mm_trace_on;

void
mm_trace(const char *fmt, ...)
{
	va_list ap;

	if (!mm_trace_on)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "mlx5model: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

/* ---- objects ---- */

struct mm_uobj *
mm_uobj_new(struct mm_file *f, uint16_t type)
{
	struct mm_uobj *u;
	uint32_t id;

	/* xa_alloc(): the lowest free id. */
	for (id = 0; id < f->capobjs; id++)
		if (f->objs[id] == NULL)
			break;
	if (id == f->capobjs) {
		uint32_t cap = f->capobjs ? f->capobjs * 2 : 64;
		struct mm_uobj **n = realloc(f->objs, cap * sizeof(*n));

		if (n == NULL)
			return NULL;
		memset(n + f->capobjs, 0, (cap - f->capobjs) * sizeof(*n));
		f->objs = n;
		f->capobjs = cap;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL)
		return NULL;
	u->type = type;
	u->id = id;
	u->file = f;
	f->objs[id] = u;
	f->nobjs++;
	return u;
}

void
mm_uobj_free(struct mm_uobj *u)
{
	struct mm_file *f;

	if (u == NULL)
		return;
	f = u->file;
	if (u->id < f->capobjs && f->objs[u->id] == u) {
		f->objs[u->id] = NULL;
		f->nobjs--;
	}
	free(u);
}

int
mm_need_ctx(struct mm_bundle *b)
{
	/* ib_uverbs_get_ucontext(): -EINVAL before GET_CONTEXT. */
	return b->file->has_ctx ? 0 : MM_REFUSE(EINVAL, "no ucontext");
}

int
mm_uobj_get(struct mm_file *f, uint16_t type, uint64_t id, struct mm_uobj **out)
{
	struct mm_uobj *u;

	/* lookup_get_idr_uobject(): -EINVAL out of range, -ENOENT none;
	 * rdma_lookup_get_uobject(): -EINVAL for another type. */
	if (id > UINT32_MAX)
		return -EINVAL;
	if (id >= f->capobjs || (u = f->objs[id]) == NULL || u->priv == NULL)
		return -ENOENT;
	if (type != MM_OBJ_ANY && u->type != type)
		return -EINVAL;
	*out = u;
	return 0;
}

int
mm_uobj_destroy(struct mm_uobj *u)
{
	int rc = 0;

	/* ib_destroy_usecnt(): an object others use stays. */
	if (u->usecnt > 0)
		return MM_REFUSE(EBUSY, "object in use (ib_destroy_usecnt)");
	if (u->destroy != NULL && u->priv != NULL)
		rc = u->destroy(u);
	if (rc != 0)
		return rc;
	mm_uobj_free(u);
	return 0;
}

void
mm_file_release(struct mm_file *f)
{
	bool progress = true;
	uint32_t i;

	/* uverbs_destroy_ufile_hw(): destroy what can go, then again,
	 * until nothing is left: an object in use goes after its users. */
	while (f->nobjs > 0 && progress) {
		progress = false;
		for (i = f->capobjs; i-- > 0;) {
			struct mm_uobj *u = f->objs[i];

			if (u == NULL)
				continue;
			if (u->priv == NULL) {
				mm_uobj_free(u);
				progress = true;
				continue;
			}
			if (mm_uobj_destroy(u) == 0)
				progress = true;
		}
	}
	free(f->objs);
	f->objs = NULL;
	f->capobjs = 0;
	f->nobjs = 0;
}

/* ---- attribute access ---- */

static int
mm_spec_index(const struct mm_method *m, uint16_t id)
{
	unsigned int i;

	for (i = 0; i < m->nattrs; i++)
		if (m->attrs[i].id == id)
			return (int)i;
	return -1;
}

struct ib_uverbs_attr *
mm_attr(struct mm_bundle *b, uint16_t id)
{
	int i;

	if (b->method == NULL)
		return NULL;
	i = mm_spec_index(b->method, id);
	return i < 0 ? NULL : b->attr[i];
}

bool
mm_attr_present(struct mm_bundle *b, uint16_t id)
{
	return mm_attr(b, id) != NULL;
}

struct mm_uobj *
mm_attr_obj(struct mm_bundle *b, uint16_t id)
{
	int i;

	if (b->method == NULL)
		return NULL;
	i = mm_spec_index(b->method, id);
	return i < 0 ? NULL : b->obj[i];
}

struct mm_uobj *
mm_attr_new(struct mm_bundle *b, uint16_t id)
{
	return mm_attr_obj(b, id);
}

const void *
mm_attr_in_ptr(struct mm_bundle *b, uint16_t id, size_t *len)
{
	struct ib_uverbs_attr *a = mm_attr(b, id);

	if (a == NULL)
		return NULL;
	*len = a->len;
	/* uverbs_attr_ptr_is_inline(): up to 8 bytes live in data. */
	if (a->len <= sizeof(a->data))
		return &a->data;
	return (const void *)(uintptr_t)a->data;
}

int
mm_attr_copy_in(struct mm_bundle *b, uint16_t id, void *dst, size_t len)
{
	const void *p;
	size_t n;

	p = mm_attr_in_ptr(b, id, &n);
	if (p == NULL)
		return -ENOENT;
	/* uverbs_copy_from(): the attribute must be exactly the size. */
	if (n != len)
		return -EINVAL;
	memcpy(dst, p, len);
	return 0;
}

int
mm_attr_const(struct mm_bundle *b, uint16_t id, uint64_t *v)
{
	const void *p;
	size_t n;

	p = mm_attr_in_ptr(b, id, &n);
	if (p == NULL)
		return -ENOENT;
	if (n > sizeof(*v))
		return -EINVAL;
	*v = 0;
	/* Little endian: the low n bytes. */
	memcpy(v, p, n);
	return 0;
}

uint64_t
mm_attr_const_default(struct mm_bundle *b, uint16_t id, uint64_t d)
{
	uint64_t v;

	return mm_attr_const(b, id, &v) == 0 ? v : d;
}

int
mm_attr_flags(struct mm_bundle *b, uint16_t id, uint64_t allowed, uint64_t *v)
{
	int rc = mm_attr_const(b, id, v);

	if (rc == -ENOENT) {
		*v = 0;
		return 0;
	}
	if (rc != 0)
		return rc;
	/* uverbs_get_flags64(): "if (flags & ~allowed_bits) -EINVAL". */
	if (*v & ~allowed)
		return MM_REFUSE(EINVAL, "flags outside the allowed bits");
	return 0;
}

int
mm_attr_enum(struct mm_bundle *b, uint16_t id)
{
	struct ib_uverbs_attr *a = mm_attr(b, id);

	return a == NULL ? -ENOENT : a->attr_data.enum_data.elem_id;
}

int
mm_attr_objs(struct mm_bundle *b, uint16_t id, struct mm_uobj ***objs,
	     unsigned int *n)
{
	struct ib_uverbs_attr *a = mm_attr(b, id);
	const uint32_t *ids;
	struct mm_uobj **v;
	unsigned int i, cnt;
	int rc;

	if (a == NULL)
		return -ENOENT;
	cnt = a->len / sizeof(uint32_t);
	ids = a->len <= sizeof(a->data) ? (const uint32_t *)(void *)&a->data :
					  (const uint32_t *)(uintptr_t)a->data;
	v = calloc(cnt ? cnt : 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	for (i = 0; i < cnt; i++) {
		int si = mm_spec_index(b->method, id);

		rc = mm_uobj_get(b->file, b->method->attrs[si].obj, ids[i],
				 &v[i]);
		if (rc != 0) {
			free(v);
			return rc;
		}
	}
	*objs = v;
	*n = cnt;
	return 0;
}

int
mm_attr_copy_out(struct mm_bundle *b, uint16_t id, const void *src, size_t len)
{
	struct ib_uverbs_attr *a = mm_attr(b, id);
	size_t n;

	if (a == NULL)
		return -ENOENT;
	/* uverbs_copy_to(): min(attribute length, size), then the valid
	 * output flag (uverbs_set_output()). */
	n = a->len < len ? a->len : len;
	memcpy((void *)(uintptr_t)a->data, src, n);
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return 0;
}

int
mm_uhw_out(struct mm_bundle *b, const void *src, size_t len)
{
	size_t n = b->uhw_outlen < len ? b->uhw_outlen : len;

	if (n > 0)
		memcpy(b->uhw_out, src, n);
	return 0;
}

void
mm_uhw_in(struct mm_bundle *b, void *dst, size_t len)
{
	size_t n = b->uhw_inlen < len ? b->uhw_inlen : len;

	memset(dst, 0, len);
	if (n > 0)
		memcpy(dst, b->uhw_in, n);
}

bool
mm_uhw_cleared(struct mm_bundle *b, size_t off)
{
	const uint8_t *p = b->uhw_in;
	size_t i;

	for (i = off; i < b->uhw_inlen; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* ---- the ioctl path ---- */

static const struct mm_method_table *const mm_tables[] = {
	&mm_device_methods,
	&mm_verbs_methods,
	&mm_flow_methods,
	&mm_devx_methods,
};

static const struct mm_method *
mm_find_method(uint16_t obj, uint16_t id)
{
	unsigned int t, i;

	for (t = 0; t < MM_ARRAY_SIZE(mm_tables); t++)
		for (i = 0; i < mm_tables[t]->n; i++)
			if (mm_tables[t]->methods[i].obj == obj &&
			    mm_tables[t]->methods[i].id == id)
				return &mm_tables[t]->methods[i];
	return NULL;
}

static bool
mm_attr_cleared(const struct ib_uverbs_attr *a, size_t from)
{
	const uint8_t *p = a->len <= sizeof(a->data) ?
				   (const uint8_t *)&a->data :
				   (const uint8_t *)(uintptr_t)a->data;
	size_t i;

	for (i = from; i < a->len; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* uverbs_process_attr() */
static int
mm_process_attr(struct mm_bundle *b, int si, struct ib_uverbs_attr *a)
{
	const struct mm_attr_spec *s = &b->method->attrs[si];
	struct mm_uobj *u = NULL;
	int rc;

	switch (s->type) {
	case MM_AT_ENUM_IN:
		if (a->attr_data.enum_data.elem_id >= s->enum_n)
			return MM_REFUSE(EOPNOTSUPP, "enum element");
		if (a->attr_data.enum_data.reserved)
			return -EINVAL;
		/* fallthrough */
	case MM_AT_PTR_IN:
	case MM_AT_CONST_IN:
		if (s->max_len && a->len > s->max_len && s->zero_trailing &&
		    !mm_attr_cleared(a, s->max_len))
			return MM_REFUSE(EOPNOTSUPP, "non-zero trailing bytes");
		/* fallthrough */
	case MM_AT_PTR_OUT:
		if (a->len < s->min_len ||
		    (!s->zero_trailing && s->max_len && a->len > s->max_len))
			return MM_REFUSE(EINVAL, "attribute length");
		if (s->type != MM_AT_ENUM_IN && a->attr_data.reserved)
			return -EINVAL;
		break;
	case MM_AT_IDR:
	case MM_AT_FD:
		if (a->attr_data.reserved || a->len != 0)
			return -EINVAL;
		if (s->access == MM_ACC_NEW) {
			/* rdma_alloc_begin_uobject(): a context first. */
			rc = mm_need_ctx(b);
			if (rc != 0)
				return rc;
			u = mm_uobj_new(b->file, s->obj);
			if (u == NULL)
				return -ENOMEM;
			/* Copy the allocated id to user space (an fd number
			 * is written by the method). */
			if (s->type == MM_AT_IDR)
				a->data = u->id;
		} else if (s->type == MM_AT_FD) {
			u = mm_event_fd_uobj(b->file, (int)a->data_s64, s->obj);
			if (u == NULL)
				return MM_REFUSE(EBADF, "no such descriptor");
		} else {
			rc = mm_uobj_get(b->file, s->obj, a->data, &u);
			if (rc != 0)
				return rc;
		}
		b->obj[si] = u;
		break;
	case MM_AT_RAW_FD:
		if (a->attr_data.reserved || a->len != 0 ||
		    a->data_s64 < INT32_MIN || a->data_s64 > INT32_MAX)
			return -EINVAL;
		break;
	case MM_AT_IDRS_ARRAY:
		/* uverbs_process_idrs_array() */
		if (a->attr_data.reserved || a->len % sizeof(uint32_t) ||
		    a->len / sizeof(uint32_t) < s->arr_min ||
		    a->len / sizeof(uint32_t) > s->arr_max)
			return MM_REFUSE(EINVAL, "IDR array length");
		break;
	default:
		return -EOPNOTSUPP;
	}
	b->attr[si] = a;
	return 0;
}

/* bundle_destroy(): new objects of a failed method go. */
static void
mm_bundle_finish(struct mm_bundle *b, int rc)
{
	unsigned int i;

	if (rc == 0 || b->method == NULL)
		return;
	for (i = 0; i < b->method->nattrs; i++) {
		const struct mm_attr_spec *s = &b->method->attrs[i];
		struct mm_uobj *u = b->obj[i];

		if (u == NULL || s->access != MM_ACC_NEW)
			continue;
		/* rdma_alloc_abort_uobject(): a hardware object the method
		 * made before failing is destroyed. */
		if (u->priv != NULL && u->destroy != NULL)
			u->destroy(u);
		mm_uobj_free(u);
	}
}

int
mm_uverbs_ioctl(struct mm_file *f, struct ib_uverbs_ioctl_hdr *hdr)
{
	struct mm_bundle b;
	unsigned int i;
	int rc, si;

	/* ib_uverbs_ioctl() */
	if (hdr == NULL)
		return -EFAULT;
	if (hdr->length !=
	    sizeof(*hdr) + hdr->num_attrs * sizeof(hdr->attrs[0]))
		return MM_REFUSE(EINVAL, "ioctl header length");
	if (hdr->reserved1 || hdr->reserved2)
		return -EPROTONOSUPPORT;
	/* ib_uverbs_cmd_verbs() */
	if (hdr->driver_id != RDMA_DRIVER_MLX5)
		return MM_REFUSE(EINVAL, "driver id");
	memset(&b, 0, sizeof(b));
	b.file = f;
	b.uattrs = hdr->attrs;
	b.nuattrs = hdr->num_attrs;
	b.method = mm_find_method(hdr->object_id, hdr->method_id);
	if (b.method == NULL) {
		mm_trace("ioctl object %#x method %#x: not modelled",
			 hdr->object_id, hdr->method_id);
		return -EPROTONOSUPPORT;
	}
	if (b.method->nattrs > MM_MAX_ATTRS)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	rc = 0;
	for (i = 0; i < hdr->num_attrs && rc == 0; i++) {
		struct ib_uverbs_attr *a = &hdr->attrs[i];

		/* uverbs_set_attr() */
		si = mm_spec_index(b.method, a->attr_id);
		if (si < 0) {
			if (a->flags & UVERBS_ATTR_F_MANDATORY)
				rc = MM_REFUSE(EPROTONOSUPPORT,
					       "unknown mandatory attribute");
			continue;
		}
		if (b.attr[si] != NULL) {
			rc = MM_REFUSE(EINVAL, "duplicate attribute");
			break;
		}
		rc = mm_process_attr(&b, si, a);
	}
	/* User space did not provide all the mandatory attributes. */
	for (i = 0; rc == 0 && i < b.method->nattrs; i++)
		if (b.method->attrs[i].mandatory && b.attr[i] == NULL)
			rc = MM_REFUSE(EINVAL, "missing mandatory attribute");
	if (rc == 0 && b.method->udata) {
		struct ib_uverbs_attr *in = mm_attr(&b, UVERBS_ATTR_UHW_IN);
		struct ib_uverbs_attr *out = mm_attr(&b, UVERBS_ATTR_UHW_OUT);

		if (in != NULL) {
			b.uhw_in = in->len <= sizeof(in->data) ?
					   (const void *)&in->data :
					   (const void *)(uintptr_t)in->data;
			b.uhw_inlen = in->len;
		}
		if (out != NULL) {
			b.uhw_out = (void *)(uintptr_t)out->data;
			b.uhw_outlen = out->len;
		}
	}
	/* A DESTROY attribute destroys its object before the handler. */
	for (i = 0; rc == 0 && i < b.method->nattrs; i++) {
		if (b.method->attrs[i].access != MM_ACC_DESTROY ||
		    b.obj[i] == NULL)
			continue;
		rc = b.obj[i]->usecnt > 0 ?
			     MM_REFUSE(EBUSY, "destroy of an object in use") :
			     0;
	}
	if (rc == 0) {
		mm_trace("ioctl %s", b.method->name);
		rc = b.method->handler(&b);
	} else {
		mm_trace("ioctl %s: %d before the method", b.method->name, rc);
	}
	if (rc == 0 && b.method->udata) {
		struct ib_uverbs_attr *out = mm_attr(&b, UVERBS_ATTR_UHW_OUT);

		if (out != NULL)
			out->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	}
	/* EPROTONOSUPPORT only for what the framework cannot invoke. */
	if (rc == -EPROTONOSUPPORT && b.method != NULL)
		rc = -EINVAL;
	mm_bundle_finish(&b, rc);
	pthread_mutex_unlock(&f->lock);
	if (rc != 0)
		mm_trace("ioctl %s: %s", b.method->name, strerror(-rc));
	return rc;
}

/* ---- write commands ---- */

static const struct mm_write_table *const mm_wtables[] = {
	&mm_device_writes,
	&mm_verbs_writes,
	&mm_flow_writes,
};

static const struct mm_write_method *
mm_find_write(uint32_t cmd)
{
	unsigned int t, i;

	for (t = 0; t < MM_ARRAY_SIZE(mm_wtables); t++)
		for (i = 0; i < mm_wtables[t]->n; i++)
			if (mm_wtables[t]->methods[i].cmd == cmd)
				return &mm_wtables[t]->methods[i];
	return NULL;
}

static int
mm_write_lookup(uint32_t cmd, const struct mm_write_method **m)
{
	/* uapi_get_method() */
	if (cmd & ~(uint32_t)(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			      IB_USER_VERBS_CMD_COMMAND_MASK))
		return -EINVAL;
	*m = mm_find_write(cmd);
	if (*m == NULL) {
		mm_trace("write command %#x: not modelled", cmd);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int
mm_write_run(struct mm_bundle *b, const struct mm_write_method *m)
{
	int rc;

	mm_trace("write %s", m->name);
	b->new_obj = NULL;
	rc = m->handler(b);
	/* uverbs_finalize_object() of the new object: kept on success. */
	if (rc != 0 && b->new_obj != NULL) {
		if (b->new_obj->priv != NULL && b->new_obj->destroy != NULL)
			b->new_obj->destroy(b->new_obj);
		mm_uobj_free(b->new_obj);
	}
	if (rc != 0)
		mm_trace("write %s: %s", m->name, strerror(-rc));
	return rc;
}

int
mm_uverbs_invoke_write(struct mm_bundle *b, uint32_t cmd)
{
	const struct mm_write_method *m;
	int rc;

	/* UVERBS_METHOD_INVOKE_WRITE: the command, then the core buffers
	 * at least the request and response sizes (-ENOSPC). */
	rc = mm_write_lookup(cmd, &m);
	if (rc != 0)
		return rc;
	if (b->core_inlen < m->req_size || b->core_outlen < m->resp_size)
		return -ENOSPC;
	if (!m->udata) {
		b->uhw_in = NULL;
		b->uhw_inlen = 0;
		b->uhw_out = NULL;
		b->uhw_outlen = 0;
	}
	return mm_write_run(b, m);
}

ssize_t
mm_uverbs_write(struct mm_file *f, const void *buf, size_t count)
{
	const struct mm_write_method *m;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_cmd_hdr hdr;
	const uint8_t *p = buf;
	struct mm_bundle b;
	bool is_ex;
	int rc;

	/* ib_uverbs_write() and verify_hdr() */
	if (count < sizeof(hdr))
		return -EINVAL;
	memcpy(&hdr, p, sizeof(hdr));
	rc = mm_write_lookup(hdr.command, &m);
	if (rc != 0)
		return rc;
	is_ex = hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	memset(&b, 0, sizeof(b));
	b.file = f;
	p += sizeof(hdr);
	if (is_ex) {
		if (count < sizeof(hdr) + sizeof(ex))
			return -EINVAL;
		memcpy(&ex, p, sizeof(ex));
		p += sizeof(ex);
		if ((size_t)(hdr.in_words + ex.provider_in_words) * 8 !=
		    count - sizeof(hdr) - sizeof(ex))
			return -EINVAL;
		if (hdr.in_words * 8u < m->req_size)
			return -ENOSPC;
		if (ex.cmd_hdr_reserved)
			return -EINVAL;
		if (ex.response) {
			if (!hdr.out_words && !ex.provider_out_words)
				return -EINVAL;
			if (hdr.out_words * 8u < m->resp_size)
				return -ENOSPC;
		} else if (hdr.out_words || ex.provider_out_words) {
			return -EINVAL;
		}
		b.core_in = p;
		b.core_inlen = hdr.in_words * 8u;
		b.core_out = (void *)(uintptr_t)ex.response;
		b.core_outlen = ex.response ? hdr.out_words * 8u : 0;
		b.uhw_in = p + b.core_inlen;
		b.uhw_inlen = ex.provider_in_words * 8u;
		b.uhw_out = (uint8_t *)(uintptr_t)ex.response + b.core_outlen;
		b.uhw_outlen = ex.response ? ex.provider_out_words * 8u : 0;
	} else {
		size_t in_len, out_len = hdr.out_words * 4u;
		uint64_t response = 0;

		if (hdr.in_words * 4u != count)
			return -EINVAL;
		if (count < m->req_size + sizeof(hdr))
			return -ENOSPC;
		if (out_len < m->resp_size)
			return -ENOSPC;
		in_len = hdr.in_words * 4u - sizeof(hdr);
		if (m->udata) {
			b.uhw_inlen = in_len - m->req_size;
			in_len = m->req_size;
			b.uhw_in = b.uhw_inlen ? p + in_len : NULL;
		}
		if (m->has_resp) {
			memcpy(&response, p, sizeof(response));
			if (m->udata) {
				b.uhw_outlen = out_len - m->resp_size;
				out_len = m->resp_size;
				b.uhw_out =
					b.uhw_outlen ?
						(uint8_t *)(uintptr_t)response +
							out_len :
						NULL;
			}
		}
		b.core_in = p;
		b.core_inlen = in_len;
		b.core_out = (void *)(uintptr_t)response;
		b.core_outlen = response ? out_len : 0;
	}
	pthread_mutex_lock(&f->lock);
	rc = mm_write_run(&b, m);
	pthread_mutex_unlock(&f->lock);
	return rc != 0 ? rc : (ssize_t)count;
}
