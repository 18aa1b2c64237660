/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The kernel's side of the verbs objects a raw Ethernet application
 * makes: PD, MR, completion channels, CQs, receive WQs, RWQ indirection
 * tables, hash QPs and raw packet QPs (Linux 6.1: core/uverbs_cmd.c,
 * uverbs_std_types_{cq,qp,wq,mr}.c; hw/mlx5/{main,mr,cq,qp}.c). Each
 * object stands on a softverbs object of the file's context, which does
 * the device's part and refuses what the device would; the rings libmlx5
 * passes by address (CQ buffer, receive WQEs, send WQEs, doorbell
 * records) are read and written by the engine (mm_engine.c).
 *
 * Not modelled (refused with EOPNOTSUPP): QPs other than raw packet and
 * hash QPs, a receive queue on a raw packet QP, SRQs, striding RQs, CQE
 * compression, resizing CQs, memory windows, MRs whose I/O address is not
 * their own address.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/mlx5-abi.h>

#include "mm_internal.h"

/* ---- user memory ---- */

int
mm_umem_check(uint64_t addr, uint64_t len)
{
	uintptr_t start, end;
	unsigned char v[64];

	if (len == 0)
		return MM_REFUSE(EINVAL, "ib_umem_get: empty range");
	if (addr + len < addr)
		return MM_REFUSE(EINVAL, "ib_umem_get: range wraps");
	start = (uintptr_t)addr & ~(uintptr_t)(MM_PAGE - 1);
	end = ((uintptr_t)(addr + len) + MM_PAGE - 1) &
	      ~(uintptr_t)(MM_PAGE - 1);
	/* pin_user_pages() fails on an unmapped page: -EFAULT. mincore()
	 * tells a mapped range (ENOMEM otherwise), a window at a time. */
	while (start < end) {
		uintptr_t n = (end - start) / MM_PAGE;

		if (n > sizeof(v))
			n = sizeof(v);
		if (mincore((void *)start, n * MM_PAGE, v) != 0)
			return MM_REFUSE(EFAULT, "ib_umem_get: not mapped");
		start += n * MM_PAGE;
	}
	return 0;
}

/* mlx5_ib_db_map_user(): the doorbell record page must be mapped. */
static int
mm_db_check(uint64_t addr)
{
	if (addr & 3)
		return MM_REFUSE(EINVAL, "doorbell record not aligned");
	return mm_umem_check(addr, 8);
}

/* ---- protection domains ---- */

static int
mm_pd_destroy(struct mm_uobj *u)
{
	struct mm_pd *pd = u->priv;
	int rc;

	rc = sv_dealloc_pd(pd->sv);
	if (rc != 0)
		return -rc;
	free(pd);
	u->priv = NULL;
	return 0;
}

static int
mm_pd_create(struct mm_bundle *b, struct mm_uobj *u)
{
	struct mlx5_ib_alloc_pd_resp resp;
	struct mm_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return -ENOMEM;
	pd->sv = sv_alloc_pd(mm_sv(b->file));
	if (pd->sv == NULL) {
		free(pd);
		return -errno;
	}
	pd->pdn = b->file->next_pdn++;
	u->priv = pd;
	u->destroy = mm_pd_destroy;
	/* mlx5_ib_alloc_pd(): the PD number for the driver */
	resp.pdn = pd->pdn;
	mm_uhw_out(b, &resp, sizeof(resp));
	return 0;
}

static int
mm_w_alloc_pd(struct mm_bundle *b)
{
	struct ib_uverbs_alloc_pd_resp resp = { 0 };
	struct ib_uverbs_alloc_pd cmd;
	struct mm_uobj *u;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	u = mm_uobj_new(b->file, UVERBS_OBJECT_PD);
	if (u == NULL)
		return -ENOMEM;
	b->new_obj = u;
	rc = mm_pd_create(b, u);
	if (rc != 0)
		return rc;
	resp.pd_handle = u->id;
	return mm_response(b, &resp, sizeof(resp));
}

static int
mm_w_dealloc_pd(struct mm_bundle *b)
{
	struct ib_uverbs_dealloc_pd cmd;
	struct mm_uobj *u;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc == 0)
		rc = mm_uobj_get(b->file, UVERBS_OBJECT_PD, cmd.pd_handle, &u);
	return rc != 0 ? rc : mm_uobj_destroy(u);
}

static int
mm_m_pd_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(mm_attr_obj(b, UVERBS_ATTR_DESTROY_PD_HANDLE));
}

/* ---- memory regions ---- */

static int
mm_mr_destroy(struct mm_uobj *u)
{
	struct mm_mr *mr = u->priv;
	int rc;

	rc = sv_dereg_mr(mr->sv);
	if (rc != 0)
		return -rc;
	mr->pd->usecnt--;
	free(mr);
	u->priv = NULL;
	return 0;
}

static int
mm_w_reg_mr(struct mm_bundle *b)
{
	struct ib_uverbs_reg_mr_resp resp = { 0 };
	struct ib_uverbs_reg_mr cmd;
	struct mm_uobj *u, *pdu;
	struct mm_mr *mr;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	/* ib_uverbs_reg_mr() */
	if ((cmd.start & (MM_PAGE - 1)) != (cmd.hca_va & (MM_PAGE - 1)))
		return MM_REFUSE(EINVAL, "ib_uverbs_reg_mr: offsets differ");
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	/* ib_check_mr_access() */
	if ((cmd.access_flags & (IB_UVERBS_ACCESS_REMOTE_ATOMIC |
				 IB_UVERBS_ACCESS_REMOTE_WRITE)) &&
	    !(cmd.access_flags & IB_UVERBS_ACCESS_LOCAL_WRITE))
		return MM_REFUSE(EINVAL, "ib_check_mr_access: remote write");
	if (cmd.access_flags &
	    ~(uint32_t)(((IB_UVERBS_ACCESS_HUGETLB << 1) - 1) |
			IB_UVERBS_ACCESS_OPTIONAL_RANGE))
		return MM_REFUSE(EINVAL, "ib_check_mr_access: flags");
	/* The device has no on-demand paging (IBK_ON_DEMAND_PAGING). */
	if (cmd.access_flags & IB_UVERBS_ACCESS_ON_DEMAND)
		return MM_REFUSE(EINVAL, "ib_check_mr_access: no ODP");
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_PD, cmd.pd_handle, &pdu);
	if (rc != 0)
		return rc;
	if (cmd.hca_va != cmd.start)
		return MM_REFUSE(EOPNOTSUPP,
				 "an I/O address other than the address");
	rc = mm_umem_check(cmd.start, cmd.length);
	if (rc != 0)
		return rc;
	u = mm_uobj_new(b->file, UVERBS_OBJECT_MR);
	if (u == NULL)
		return -ENOMEM;
	b->new_obj = u;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return -ENOMEM;
	/* Optional access bits are hints the device may ignore. */
	mr->sv = sv_reg_mr(((struct mm_pd *)pdu->priv)->sv,
			   (void *)(uintptr_t)cmd.start, cmd.length,
			   (int)(cmd.access_flags &
				 ~(uint32_t)IB_UVERBS_ACCESS_OPTIONAL_RANGE));
	if (mr->sv == NULL) {
		rc = -errno;
		free(mr);
		return rc;
	}
	mr->pd = pdu;
	pdu->usecnt++;
	u->priv = mr;
	u->destroy = mm_mr_destroy;
	resp.mr_handle = u->id;
	resp.lkey = mr->sv->lkey;
	resp.rkey = mr->sv->rkey;
	return mm_response(b, &resp, sizeof(resp));
}

static int
mm_w_dereg_mr(struct mm_bundle *b)
{
	struct ib_uverbs_dereg_mr cmd;
	struct mm_uobj *u;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc == 0)
		rc = mm_uobj_get(b->file, UVERBS_OBJECT_MR, cmd.mr_handle, &u);
	return rc != 0 ? rc : mm_uobj_destroy(u);
}

static int
mm_m_mr_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(mm_attr_obj(b, UVERBS_ATTR_DESTROY_MR_HANDLE));
}

/* ---- completion channels ---- */

static int
mm_w_create_comp_channel(struct mm_bundle *b)
{
	struct ib_uverbs_create_comp_channel_resp resp = { 0 };
	struct ib_uverbs_create_comp_channel cmd;
	struct mm_uobj *u;
	int rc, fd;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	u = mm_uobj_new(b->file, UVERBS_OBJECT_COMP_CHANNEL);
	if (u == NULL)
		return -ENOMEM;
	b->new_obj = u;
	fd = mm_evfile_make(u, UVERBS_OBJECT_COMP_CHANNEL);
	if (fd < 0)
		return fd;
	resp.fd = (uint32_t)fd;
	return mm_response(b, &resp, sizeof(resp));
}

/* ---- CQs ---- */

static int
mm_cq_destroy(struct mm_uobj *u)
{
	struct mm_cq *cq = u->priv;
	struct mm_dev *dev = u->file->dev;
	int rc;

	mm_engine_lock(dev);
	rc = sv_destroy_cq(ibv_cq_ex_to_cq(cq->sv));
	if (rc == 0)
		mm_engine_del_cq(dev, cq);
	mm_engine_unlock(dev);
	if (rc != 0)
		return -rc;
	/* ib_uverbs_release_ucq(): its events not read go with it. */
	if (cq->channel != NULL) {
		mm_evfile_forget(cq->channel->priv, cq);
		cq->channel->usecnt--;
	}
	free(cq);
	u->priv = NULL;
	return 0;
}

/* The CQ doorbell register of a UAR page the file mapped. */
static uint64_t *
mm_uar_doorbell(struct mm_file *f, uint32_t index)
{
	struct mm_mmap_entry *e;

	for (e = f->mmaps; e != NULL; e = e->next)
		if (e->uar && e->uar_index == index && e->page != NULL)
			return (uint64_t *)(void *)((uint8_t *)e->page + 0x20);
	return NULL;
}

/* The CQ's own doorbell record and ring: mlx5_ib_create_cq() and
 * create_cq_user(). entries is the size asked for; returns the size
 * made less one (ib_cq.cqe). */
static int
mm_cq_create(struct mm_bundle *b, struct mm_uobj *u, uint32_t entries,
	     uint64_t user_handle, uint32_t comp_vector, uint32_t flags,
	     struct mm_uobj *channel, uint32_t *cqe_out)
{
	struct ibv_cq_init_attr_ex ca = { 0 };
	const struct mm_caps *c = b->file->dev->caps;
	struct mlx5_ib_create_cq_resp resp = { 0 };
	struct mlx5_ib_create_cq ucmd;
	struct mm_cq *cq;
	uint32_t n;
	int rc;

	/* uverbs CQ_CREATE: one completion vector */
	if (comp_vector >= 1)
		return MM_REFUSE(EINVAL, "no such completion vector");
	/* mlx5_ib_create_cq() */
	if (entries > (1u << c->log_max_cq_sz))
		return MM_REFUSE(EINVAL, "mlx5_ib_create_cq: too many entries");
	/* check_cq_create_flags(): IGNORE_OVERRUN and
	 * TIMESTAMP_COMPLETION are known (the CQEs carry the free-running
	 * clock, the format a ConnectX-5's queues take:
	 * get_ts_format()). */
	if (flags & ~(uint32_t)(IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN |
				IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION))
		return MM_REFUSE(EOPNOTSUPP, "check_cq_create_flags");
	for (n = 1; n < entries + 1; n <<= 1)
		;
	if (n > (1u << c->log_max_cq_sz))
		return MM_REFUSE(EINVAL, "mlx5_ib_create_cq: rounded size");
	/* create_cq_user() */
	if (b->uhw_inlen < offsetof(struct mlx5_ib_create_cq, flags))
		return MM_REFUSE(EINVAL, "create_cq_user: udata size");
	mm_uhw_in(b, &ucmd, sizeof(ucmd));
	if (ucmd.flags & ~(uint32_t)(MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD |
				     MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX |
				     MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS))
		return MM_REFUSE(EINVAL, "create_cq_user: flags");
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) || ucmd.reserved0 ||
	    ucmd.reserved1)
		return MM_REFUSE(EINVAL, "create_cq_user: cqe_size");
	rc = mm_umem_check(ucmd.buf_addr, (uint64_t)n * ucmd.cqe_size);
	if (rc == 0)
		rc = mm_db_check(ucmd.db_addr);
	if (rc != 0)
		return rc;
	/* A context with dynamic UARs names the CQ's UAR page. */
	if (!(ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX))
		return MM_REFUSE(EINVAL, "create_cq_user: no UAR page index");
	if (ucmd.cqe_comp_en)
		return MM_REFUSE(EOPNOTSUPP,
				 "create_cq_user: no CQE compression");
	if (ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_CQE_128B_PAD)
		return MM_REFUSE(EOPNOTSUPP, "create_cq_user: no CQE padding");
	if (ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_REAL_TIME_TS)
		return MM_REFUSE(EOPNOTSUPP, "get_cqe_ts_format: no real time");
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return -ENOMEM;
	/* The device's CQ for send completions: as deep as the ring. */
	ca.cqe = n < SV_MAX_CQE ? n : SV_MAX_CQE;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	cq->sv = sv_create_cq_ex(mm_sv(b->file), &ca);
	if (cq->sv == NULL) {
		rc = -errno;
		free(cq);
		return rc;
	}
	cq->f = b->file;
	cq->u = u;
	cq->buf = (uint8_t *)(uintptr_t)ucmd.buf_addr;
	cq->ncqe = n;
	cq->cqe_size = ucmd.cqe_size;
	cq->dbrec = (volatile uint32_t *)(uintptr_t)ucmd.db_addr;
	cq->cqn = u->id + 1;
	cq->arm_last = UINT32_MAX; /* no arming has that value */
	cq->uar_db = mm_uar_doorbell(b->file, ucmd.uar_page_index);
	cq->channel = channel;
	if (channel != NULL)
		channel->usecnt++;
	u->priv = cq;
	u->destroy = mm_cq_destroy;
	u->user_handle = user_handle;
	mm_engine_lock(b->file->dev);
	mm_engine_add_cq(b->file->dev, cq);
	mm_engine_unlock(b->file->dev);
	resp.cqn = cq->cqn;
	mm_uhw_out(b, &resp, sizeof(resp));
	*cqe_out = n - 1;
	return 0;
}

static int
mm_m_cq_create(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, UVERBS_ATTR_CREATE_CQ_HANDLE);
	uint32_t cqe, vector, out;
	uint64_t handle, flags;
	int rc;

	rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, &vector,
			     sizeof(vector));
	if (rc == 0)
		rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_CQ_CQE, &cqe,
				     sizeof(cqe));
	if (rc == 0)
		rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
				     &handle, sizeof(handle));
	if (rc == 0)
		rc = mm_attr_flags(b, UVERBS_ATTR_CREATE_CQ_FLAGS,
				   IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
					   IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN,
				   &flags);
	if (rc == 0)
		rc = mm_cq_create(b, u, cqe, handle, vector, (uint32_t)flags,
				  mm_attr_obj(b,
					      UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL),
				  &out);
	if (rc != 0)
		return rc;
	return mm_attr_copy_out(b, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &out,
				sizeof(out));
}

static int
mm_m_cq_destroy(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_obj(b, UVERBS_ATTR_DESTROY_CQ_HANDLE);
	struct mm_cq *cq = u->priv;
	struct ib_uverbs_destroy_cq_resp resp = {
		.comp_events_reported = cq->comp_events_reported,
		.async_events_reported = cq->async_events_reported,
	};
	int rc;

	rc = mm_uobj_destroy(u);
	if (rc != 0)
		return rc;
	return mm_attr_copy_out(b, UVERBS_ATTR_DESTROY_CQ_RESP, &resp,
				sizeof(resp));
}

/* ---- receive WQs ---- */

static int
mm_wq_destroy(struct mm_uobj *u)
{
	struct mm_wq *wq = u->priv;
	struct mm_dev *dev = u->file->dev;
	int rc;

	mm_engine_lock(dev);
	rc = sv_destroy_wq(wq->sv);
	mm_engine_unlock(dev);
	if (rc != 0)
		return -rc;
	wq->pd->usecnt--;
	wq->cq->usecnt--;
	free(wq);
	u->priv = NULL;
	return 0;
}

/* The WQ flags the device takes (mlx5_ib create_rq()): VLAN stripping
 * with vlan_cap; scatter FCS, delay drop and end padding are not in the
 * modelled device (EOPNOTSUPP). */
static int
mm_wq_flags_ok(const struct mm_caps *c, uint32_t flags)
{
	if (flags & IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING)
		return MM_REFUSE(EOPNOTSUPP, "create_rq: no end padding");
	if ((flags & IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING) && !c->vlan_cap)
		return MM_REFUSE(EOPNOTSUPP, "create_rq: no VLAN offloads");
	if ((flags & IB_UVERBS_WQ_FLAGS_SCATTER_FCS) && !c->scatter_fcs)
		return MM_REFUSE(EOPNOTSUPP, "create_rq: no scatter FCS");
	if (flags & IB_UVERBS_WQ_FLAGS_DELAY_DROP)
		return MM_REFUSE(EOPNOTSUPP, "create_rq: no delay drop");
	return 0;
}

static int
mm_wq_create(struct mm_bundle *b, struct mm_uobj *u, struct mm_uobj *pdu,
	     struct mm_uobj *cqu, uint32_t type, uint32_t *max_wr,
	     uint32_t *max_sge, uint32_t flags, uint64_t user_handle)
{
	const struct mm_caps *c = b->file->dev->caps;
	struct mlx5_ib_create_wq_resp resp = { 0 };
	struct ibv_wq_init_attr wa = { 0 };
	struct mlx5_ib_create_wq ucmd;
	size_t required;
	struct mm_wq *wq;
	uint64_t size;
	int rc;

	/* mlx5_ib_create_wq() */
	if (b->uhw_outlen &&
	    b->uhw_outlen < offsetof(struct mlx5_ib_create_wq_resp, reserved) +
				    sizeof(resp.reserved))
		return MM_REFUSE(EINVAL, "mlx5_ib_create_wq: udata out size");
	if (type != IB_UVERBS_WQT_RQ)
		return MM_REFUSE(EINVAL, "mlx5_ib_create_wq: wq type");
	/* prepare_user_rq() */
	required = offsetof(struct mlx5_ib_create_wq,
			    single_stride_log_num_of_bytes) +
		   sizeof(ucmd.single_stride_log_num_of_bytes);
	if (b->uhw_inlen < required)
		return MM_REFUSE(EINVAL, "prepare_user_rq: udata size");
	if (b->uhw_inlen > sizeof(ucmd) && !mm_uhw_cleared(b, sizeof(ucmd)))
		return MM_REFUSE(EOPNOTSUPP, "prepare_user_rq: udata tail");
	mm_uhw_in(b, &ucmd, sizeof(ucmd));
	if (ucmd.comp_mask & ~(uint32_t)MLX5_IB_CREATE_WQ_STRIDING_RQ)
		return MM_REFUSE(EOPNOTSUPP, "prepare_user_rq: comp_mask");
	if (ucmd.comp_mask & MLX5_IB_CREATE_WQ_STRIDING_RQ)
		return MM_REFUSE(EOPNOTSUPP, "prepare_user_rq: no striding RQ");
	/* set_user_rq_size() */
	if (*max_wr > (1u << c->log_max_qp_sz))
		return MM_REFUSE(EINVAL, "set_user_rq_size: max_wr");
	if (!ucmd.rq_wqe_count || ucmd.rq_wqe_shift > 16 ||
	    (ucmd.rq_wqe_count & (ucmd.rq_wqe_count - 1)))
		return MM_REFUSE(EINVAL, "set_user_rq_size: wqe count");
	size = (uint64_t)ucmd.rq_wqe_count << ucmd.rq_wqe_shift;
	/* create_user_rq() */
	if (!ucmd.buf_addr)
		return MM_REFUSE(EINVAL, "create_user_rq: no buffer");
	rc = mm_umem_check(ucmd.buf_addr, size);
	if (rc == 0)
		rc = mm_db_check(ucmd.db_addr);
	if (rc == 0)
		rc = mm_wq_flags_ok(c, flags);
	if (rc != 0)
		return rc;
	wq = calloc(1, sizeof(*wq));
	if (wq == NULL)
		return -ENOMEM;
	/* The device's WQ: its own ring is not used (one entry). */
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = 1;
	wa.max_sge = 1;
	wa.pd = ((struct mm_pd *)pdu->priv)->sv;
	wa.cq = ibv_cq_ex_to_cq(((struct mm_cq *)cqu->priv)->sv);
	if (flags) {
		wa.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
		wa.create_flags = flags;
	}
	wq->sv = sv_create_wq(mm_sv(b->file), &wa);
	if (wq->sv == NULL) {
		rc = -errno;
		free(wq);
		return rc;
	}
	wq->f = b->file;
	wq->u = u;
	wq->pd = pdu;
	wq->cq = cqu;
	wq->buf = (uint8_t *)(uintptr_t)ucmd.buf_addr;
	wq->wqe_cnt = ucmd.rq_wqe_count;
	wq->wqe_shift = ucmd.rq_wqe_shift;
	wq->dbrec = (volatile uint32_t *)(uintptr_t)ucmd.db_addr;
	wq->user_index = ucmd.user_index;
	wq->sig = ucmd.flags & MLX5_WQ_FLAG_SIGNATURE;
	wq->wqn = wq->sv->wq_num;
	wq->face.deliver = mm_wq_deliver;
	wq->face.priv = wq;
	sv_wq_set_face(wq->sv, &wq->face);
	pdu->usecnt++;
	cqu->usecnt++;
	u->priv = wq;
	u->destroy = mm_wq_destroy;
	u->user_handle = user_handle;
	if (b->uhw_outlen) {
		resp.response_length = sizeof(resp.response_length);
		mm_uhw_out(b, &resp, resp.response_length);
	}
	return 0;
}

static int
mm_m_wq_create(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, UVERBS_ATTR_CREATE_WQ_HANDLE);
	uint32_t max_wr, max_sge, wqn;
	uint64_t flags, handle, type;
	int rc;

	rc = mm_attr_flags(b, UVERBS_ATTR_CREATE_WQ_FLAGS,
			   IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING |
				   IB_UVERBS_WQ_FLAGS_SCATTER_FCS |
				   IB_UVERBS_WQ_FLAGS_DELAY_DROP |
				   IB_UVERBS_WQ_FLAGS_PCI_WRITE_END_PADDING,
			   &flags);
	if (rc == 0)
		rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_WQ_MAX_SGE, &max_sge,
				     sizeof(max_sge));
	if (rc == 0)
		rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_WQ_MAX_WR, &max_wr,
				     sizeof(max_wr));
	if (rc == 0)
		rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_WQ_USER_HANDLE,
				     &handle, sizeof(handle));
	if (rc == 0)
		rc = mm_attr_const(b, UVERBS_ATTR_CREATE_WQ_TYPE, &type);
	if (rc == 0 && type != IB_UVERBS_WQT_RQ)
		rc = MM_REFUSE(EINVAL, "WQ_CREATE: type");
	if (rc == 0)
		rc = mm_wq_create(b, u,
				  mm_attr_obj(b,
					      UVERBS_ATTR_CREATE_WQ_PD_HANDLE),
				  mm_attr_obj(b,
					      UVERBS_ATTR_CREATE_WQ_CQ_HANDLE),
				  (uint32_t)type, &max_wr, &max_sge,
				  (uint32_t)flags, handle);
	if (rc != 0)
		return rc;
	wqn = ((struct mm_wq *)u->priv)->wqn;
	mm_attr_copy_out(b, UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, &max_wr,
			 sizeof(max_wr));
	mm_attr_copy_out(b, UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, &max_sge,
			 sizeof(max_sge));
	return mm_attr_copy_out(b, UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, &wqn,
				sizeof(wqn));
}

static int
mm_w_ex_create_wq(struct mm_bundle *b)
{
	struct ib_uverbs_ex_create_wq_resp resp = { 0 };
	struct ib_uverbs_ex_create_wq cmd;
	struct mm_uobj *u, *pdu, *cqu;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (cmd.comp_mask)
		return MM_REFUSE(EOPNOTSUPP,
				 "ib_uverbs_ex_create_wq: comp_mask");
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_PD, cmd.pd_handle, &pdu);
	if (rc == 0)
		rc = mm_uobj_get(b->file, UVERBS_OBJECT_CQ, cmd.cq_handle,
				 &cqu);
	if (rc != 0)
		return rc;
	u = mm_uobj_new(b->file, UVERBS_OBJECT_WQ);
	if (u == NULL)
		return -ENOMEM;
	b->new_obj = u;
	rc = mm_wq_create(b, u, pdu, cqu, cmd.wq_type, &cmd.max_wr,
			  &cmd.max_sge, cmd.create_flags, cmd.user_handle);
	if (rc != 0)
		return rc;
	resp.wq_handle = u->id;
	resp.max_sge = cmd.max_sge;
	resp.max_wr = cmd.max_wr;
	resp.wqn = ((struct mm_wq *)u->priv)->wqn;
	resp.response_length = (uint32_t)(b->core_outlen < sizeof(resp) ?
						  b->core_outlen :
						  sizeof(resp));
	return mm_response(b, &resp, sizeof(resp));
}

/* ib_uverbs_ex_modify_wq() and mlx5_ib_modify_wq(). */
static int
mm_w_ex_modify_wq(struct mm_bundle *b)
{
	struct ib_uverbs_ex_modify_wq cmd;
	struct ibv_wq_attr wa = { 0 };
	struct mlx5_ib_modify_wq ucmd;
	struct mm_uobj *u;
	struct mm_wq *wq;
	enum ibv_wq_state cur;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (!cmd.attr_mask)
		return MM_REFUSE(EINVAL,
				 "ib_uverbs_ex_modify_wq: no attr_mask");
	if (cmd.attr_mask >
	    (IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS))
		return MM_REFUSE(EINVAL, "ib_uverbs_ex_modify_wq: attr_mask");
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_WQ, cmd.wq_handle, &u);
	if (rc != 0)
		return rc;
	wq = u->priv;
	if ((cmd.attr_mask & IBV_WQ_ATTR_CURR_STATE) &&
	    cmd.curr_wq_state > IBV_WQS_ERR)
		return MM_REFUSE(EINVAL, "ib_uverbs_ex_modify_wq: state");
	if ((cmd.attr_mask & IBV_WQ_ATTR_STATE) && cmd.wq_state > IBV_WQS_ERR)
		return MM_REFUSE(EINVAL, "ib_uverbs_ex_modify_wq: state");
	/* mlx5_ib_modify_wq() */
	if (b->uhw_inlen < offsetof(struct mlx5_ib_modify_wq, reserved) +
				   sizeof(ucmd.reserved))
		return MM_REFUSE(EINVAL, "mlx5_ib_modify_wq: udata size");
	if (b->uhw_inlen > sizeof(ucmd) && !mm_uhw_cleared(b, sizeof(ucmd)))
		return MM_REFUSE(EOPNOTSUPP, "mlx5_ib_modify_wq: udata tail");
	mm_uhw_in(b, &ucmd, sizeof(ucmd));
	if (ucmd.comp_mask || ucmd.reserved)
		return MM_REFUSE(EOPNOTSUPP, "mlx5_ib_modify_wq: comp_mask");
	if (cmd.attr_mask & IBV_WQ_ATTR_FLAGS) {
		if (cmd.flags_mask &
		    ~(uint32_t)IB_UVERBS_WQ_FLAGS_CVLAN_STRIPPING)
			return MM_REFUSE(EOPNOTSUPP,
					 "mlx5_ib_modify_wq: flags_mask");
		rc = mm_wq_flags_ok(b->file->dev->caps,
				    cmd.flags & cmd.flags_mask);
		if (rc != 0)
			return rc;
		wa.attr_mask |= IBV_WQ_ATTR_FLAGS;
		wa.flags = cmd.flags;
		wa.flags_mask = cmd.flags_mask;
	}
	cur = (cmd.attr_mask & IBV_WQ_ATTR_CURR_STATE) ?
		      (enum ibv_wq_state)cmd.curr_wq_state :
		      wq->sv->state;
	if (cmd.attr_mask & IBV_WQ_ATTR_CURR_STATE) {
		wa.attr_mask |= IBV_WQ_ATTR_CURR_STATE;
		wa.curr_wq_state = cur;
	}
	wa.attr_mask |= IBV_WQ_ATTR_STATE;
	wa.wq_state = (cmd.attr_mask & IBV_WQ_ATTR_STATE) ?
			      (enum ibv_wq_state)cmd.wq_state :
			      cur;
	mm_engine_lock(b->file->dev);
	rc = sv_modify_wq(wq->sv, &wa);
	/* An RQ through reset starts its counter over, as libmlx5 does
	 * its own (mlx5_init_rwq_indices()). */
	if (rc == 0 && (wa.wq_state == IBV_WQS_RESET || cur == IBV_WQS_RESET))
		wq->ci = 0;
	mm_engine_unlock(b->file->dev);
	return -rc;
}

static int
mm_w_ex_destroy_wq(struct mm_bundle *b)
{
	struct ib_uverbs_ex_destroy_wq_resp resp = { 0 };
	struct ib_uverbs_ex_destroy_wq cmd;
	struct mm_uobj *u;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (cmd.comp_mask)
		return -EOPNOTSUPP;
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_WQ, cmd.wq_handle, &u);
	if (rc == 0)
		rc = mm_uobj_destroy(u);
	if (rc != 0)
		return rc;
	resp.response_length = (uint32_t)(b->core_outlen < sizeof(resp) ?
						  b->core_outlen :
						  sizeof(resp));
	return mm_response(b, &resp, sizeof(resp));
}

static int
mm_m_wq_destroy(struct mm_bundle *b)
{
	uint32_t events = 0;
	int rc;

	rc = mm_uobj_destroy(mm_attr_obj(b, UVERBS_ATTR_DESTROY_WQ_HANDLE));
	if (rc != 0)
		return rc;
	return mm_attr_copy_out(b, UVERBS_ATTR_DESTROY_WQ_RESP, &events,
				sizeof(events));
}

/* ---- RWQ indirection tables ---- */

static int
mm_ind_destroy(struct mm_uobj *u)
{
	struct mm_ind *ind = u->priv;
	uint32_t i;
	int rc;

	rc = sv_destroy_rwq_ind_table(ind->sv);
	if (rc != 0)
		return -rc;
	for (i = 0; i < ind->n; i++)
		ind->wqs[i]->usecnt--;
	free(ind->wqs);
	free(ind);
	u->priv = NULL;
	return 0;
}

static int
mm_w_ex_create_ind(struct mm_bundle *b)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp = { 0 };
	struct ibv_rwq_ind_table_init_attr ia = { 0 };
	struct ibv_wq *svwqs[1u << IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE];
	const uint32_t *handles;
	struct mm_ind *ind;
	struct mm_uobj *u;
	uint32_t comp_mask, log_size, n, i;
	size_t need;
	int rc;

	/* uverbs_request_start(), then the handles */
	if (b->core_inlen < 8)
		return -EINVAL;
	memcpy(&comp_mask, b->core_in, 4);
	memcpy(&log_size, (const uint8_t *)b->core_in + 4, 4);
	if (comp_mask)
		return MM_REFUSE(EOPNOTSUPP, "create_rwq_ind_table: comp_mask");
	if (log_size > IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE)
		return MM_REFUSE(EINVAL, "create_rwq_ind_table: log size");
	n = 1u << log_size;
	need = 8 + (size_t)n * 4;
	if (b->core_inlen < need)
		return -EINVAL;
	handles = (const uint32_t *)(const void *)((const uint8_t *)b->core_in +
						   8);
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	ind = calloc(1, sizeof(*ind));
	if (ind == NULL)
		return -ENOMEM;
	ind->wqs = calloc(n, sizeof(*ind->wqs));
	if (ind->wqs == NULL) {
		free(ind);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		rc = mm_uobj_get(b->file, UVERBS_OBJECT_WQ, handles[i],
				 &ind->wqs[i]);
		if (rc != 0) {
			free(ind->wqs);
			free(ind);
			return rc;
		}
		svwqs[i] = ((struct mm_wq *)ind->wqs[i]->priv)->sv;
	}
	/* mlx5_ib_create_rwq_ind_table(): its udata response */
	rc = 0;
	if (b->uhw_outlen &&
	    b->uhw_outlen < sizeof(struct mlx5_ib_create_rwq_ind_tbl_resp))
		rc = MM_REFUSE(EINVAL, "create_rwq_ind_table: udata size");
	u = rc == 0 ? mm_uobj_new(b->file, UVERBS_OBJECT_RWQ_IND_TBL) : NULL;
	if (u == NULL) {
		free(ind->wqs);
		free(ind);
		return rc != 0 ? rc : -ENOMEM;
	}
	b->new_obj = u;
	ia.log_ind_tbl_size = log_size;
	ia.ind_tbl = svwqs;
	ind->sv = sv_create_rwq_ind_table(mm_sv(b->file), &ia);
	if (ind->sv == NULL) {
		rc = -errno;
		free(ind->wqs);
		free(ind);
		return rc;
	}
	ind->n = n;
	ind->num = ind->sv->ind_tbl_num;
	for (i = 0; i < n; i++)
		ind->wqs[i]->usecnt++;
	u->priv = ind;
	u->destroy = mm_ind_destroy;
	if (b->uhw_outlen) {
		struct mlx5_ib_create_rwq_ind_tbl_resp dr = {
			.response_length = sizeof(dr.response_length),
		};

		mm_uhw_out(b, &dr, dr.response_length);
	}
	resp.ind_tbl_handle = u->id;
	resp.ind_tbl_num = ind->num;
	resp.response_length = (uint32_t)(b->core_outlen < sizeof(resp) ?
						  b->core_outlen :
						  sizeof(resp));
	return mm_response(b, &resp, sizeof(resp));
}

static int
mm_w_ex_destroy_ind(struct mm_bundle *b)
{
	struct ib_uverbs_ex_destroy_rwq_ind_table cmd;
	struct mm_uobj *u;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (cmd.comp_mask)
		return -EOPNOTSUPP;
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_RWQ_IND_TBL, cmd.ind_tbl_handle,
			 &u);
	return rc != 0 ? rc : mm_uobj_destroy(u);
}

static int
mm_m_ind_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(
		mm_attr_obj(b, UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE));
}

/* ---- QPs ---- */

static int
mm_qp_destroy(struct mm_uobj *u)
{
	struct mm_qp *qp = u->priv;
	struct mm_dev *dev = u->file->dev;
	int rc;

	mm_engine_lock(dev);
	rc = sv_destroy_qp(qp->sv);
	if (rc == 0 && !qp->rss)
		mm_engine_del_qp(dev, qp);
	mm_engine_unlock(dev);
	if (rc != 0)
		return -rc;
	if (qp->scratch_mr != NULL)
		sv_dereg_mr(qp->scratch_mr);
	free(qp->scratch);
	if (qp->linear_mr != NULL)
		sv_dereg_mr(qp->linear_mr);
	free(qp->linear);
	if (qp->tso_mr != NULL)
		sv_dereg_mr(qp->tso_mr);
	free(qp->tso_buf);
	qp->pd->usecnt--;
	if (qp->scq != NULL)
		qp->scq->usecnt--;
	if (qp->rcq != NULL)
		qp->rcq->usecnt--;
	if (qp->ind != NULL)
		qp->ind->usecnt--;
	free(qp);
	u->priv = NULL;
	return 0;
}

/* The QP creation flags of the mlx5 driver data the model knows. */
#define MM_QP_FLAGS_KNOWN                                                      \
	(MLX5_QP_FLAG_SIGNATURE | MLX5_QP_FLAG_SCATTER_CQE |                   \
	 MLX5_QP_FLAG_TUNNEL_OFFLOADS | MLX5_QP_FLAG_BFREG_INDEX |             \
	 MLX5_QP_FLAG_TYPE_DCT | MLX5_QP_FLAG_TYPE_DCI |                       \
	 MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC |                                   \
	 MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC | MLX5_QP_FLAG_ALLOW_SCATTER_CQE |  \
	 MLX5_QP_FLAG_PACKET_BASED_CREDIT_MODE | MLX5_QP_FLAG_UAR_PAGE_INDEX | \
	 MLX5_QP_FLAG_DCI_STREAM)

/* A hash QP: create_rss_raw_qp_tir() on the device's hash QP. */
static int
mm_qp_create_rss(struct mm_bundle *b, struct mm_qp *qp,
		 struct ibv_qp_init_attr_ex *qa)
{
	struct mlx5dv_qp_init_attr dv = { 0 };
	struct mlx5_ib_create_qp_resp resp = { 0 };
	struct mlx5_ib_create_qp_rss ucmd;
	size_t min_inlen;

	/* process_udata_size() for an RSS QP */
	min_inlen = offsetof(struct mlx5_ib_create_qp_rss, flags) +
		    sizeof(ucmd.flags);
	if (b->uhw_inlen < min_inlen)
		return MM_REFUSE(EINVAL, "process_udata_size: RSS udata");
	if (b->uhw_inlen > sizeof(ucmd) && !mm_uhw_cleared(b, sizeof(ucmd)))
		return MM_REFUSE(EOPNOTSUPP,
				 "process_udata_size: RSS udata tail");
	mm_uhw_in(b, &ucmd, sizeof(ucmd));
	/* check_valid_flow(): flags only a TIR takes */
	if (ucmd.flags & ~(uint32_t)(MLX5_QP_FLAG_TUNNEL_OFFLOADS |
				     MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_UC |
				     MLX5_QP_FLAG_TIR_ALLOW_SELF_LB_MC))
		return MM_REFUSE(EOPNOTSUPP, "create_rss_raw_qp_tir: flags");
	if ((ucmd.flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS) &&
	    !(b->file->dev->caps->tunnel_stateless_vxlan ||
	      b->file->dev->caps->tunnel_stateless_gre ||
	      b->file->dev->caps->tunnel_stateless_geneve_rx))
		return MM_REFUSE(EOPNOTSUPP, "no tunnel offloads");
	if (ucmd.comp_mask)
		return MM_REFUSE(EOPNOTSUPP,
				 "create_rss_raw_qp_tir: comp_mask");
	if ((ucmd.rx_hash_fields_mask & MLX5_RX_HASH_INNER) &&
	    !(ucmd.flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS))
		return MM_REFUSE(
			EOPNOTSUPP,
			"create_rss_raw_qp_tir: inner RSS without tunnel offloads");
	if (ucmd.rx_hash_function != MLX5_RX_HASH_FUNC_TOEPLITZ)
		return MM_REFUSE(EOPNOTSUPP,
				 "create_rss_raw_qp_tir: hash function");
	if (ucmd.rx_key_len != 40)
		return MM_REFUSE(EINVAL, "create_rss_raw_qp_tir: key length");
	/* The rest (field combinations) is the device's hash QP's, which
	 * refuses what create_rss_raw_qp_tir() does. MLX5_RX_HASH_* are the
	 * IBV_RX_HASH_* bits. */
	qa->comp_mask |= IBV_QP_INIT_ATTR_RX_HASH;
	qa->rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa->rx_hash_conf.rx_hash_key_len = ucmd.rx_key_len;
	qa->rx_hash_conf.rx_hash_key = ucmd.rx_hash_key;
	qa->rx_hash_conf.rx_hash_fields_mask = ucmd.rx_hash_fields_mask;
	if (ucmd.flags & MLX5_QP_FLAG_TUNNEL_OFFLOADS) {
		dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
		dv.create_flags = MLX5DV_QP_CREATE_TUNNEL_OFFLOADS;
	}
	qp->rss = true;
	qp->sv = sv_mlx5dv_create_qp(mm_sv(b->file), qa, &dv);
	if (qp->sv == NULL)
		return -errno;
	/* the TIR number for a DevX context */
	if (b->file->devx) {
		resp.comp_mask |= MLX5_IB_CREATE_QP_RESP_MASK_TIRN;
		resp.tirn = qp->sv->qp_num;
	}
	mm_uhw_out(b, &resp, sizeof(resp));
	return 0;
}

/* A raw packet QP with a send queue only (create_raw_packet_qp()). */
static int
mm_qp_create_raw(struct mm_bundle *b, struct mm_qp *qp,
		 struct ibv_qp_init_attr_ex *qa, bool sig_all)
{
	const struct mm_caps *c = b->file->dev->caps;
	struct mlx5_ib_create_qp_resp resp = { 0 };
	struct mlx5_ib_create_qp ucmd;
	int rc;

	/* process_udata_size() */
	if (b->uhw_inlen < offsetof(struct mlx5_ib_create_qp, ece_options))
		return MM_REFUSE(EINVAL, "process_udata_size: udata");
	if (b->uhw_inlen > sizeof(ucmd) && !mm_uhw_cleared(b, sizeof(ucmd)))
		return MM_REFUSE(EOPNOTSUPP, "process_udata_size: udata tail");
	mm_uhw_in(b, &ucmd, sizeof(ucmd));
	if (ucmd.flags & ~(uint32_t)MM_QP_FLAGS_KNOWN)
		return MM_REFUSE(EINVAL, "process_create_flags: unknown flag");
	if (ucmd.flags & (MLX5_QP_FLAG_TYPE_DCT | MLX5_QP_FLAG_TYPE_DCI |
			  MLX5_QP_FLAG_DCI_STREAM))
		return MM_REFUSE(EINVAL, "process_create_flags: DC");
	if (ucmd.flags & MLX5_QP_FLAG_SIGNATURE)
		return MM_REFUSE(EOPNOTSUPP, "WQE signatures are not modelled");
	if (ucmd.rq_wqe_count || qa->cap.max_recv_wr)
		return MM_REFUSE(
			EOPNOTSUPP,
			"a receive queue on a raw packet QP is not modelled");
	/* set_user_buf_size() */
	if (!ucmd.sq_wqe_count || (ucmd.sq_wqe_count & (ucmd.sq_wqe_count - 1)))
		return MM_REFUSE(EINVAL, "set_user_buf_size: sq_wqe_count");
	if (ucmd.sq_wqe_count > (1u << c->log_max_qp_sz))
		return MM_REFUSE(EINVAL, "set_user_buf_size: too many WQEs");
	rc = mm_umem_check(ucmd.sq_buf_addr, (uint64_t)ucmd.sq_wqe_count * 64);
	if (rc == 0)
		rc = mm_db_check(ucmd.db_addr);
	if (rc != 0)
		return rc;
	/* The device's send QP: a batch of the engine's at a time, every
	 * WQE signalled and its completion read at once (the engine
	 * signals the application's own requests). */
	qa->cap.max_send_wr = MM_TX_BATCH;
	qa->cap.max_send_sge = MM_TX_SGE;
	qa->cap.max_inline_data = 0;
	qa->cap.max_recv_wr = 0;
	qa->cap.max_recv_sge = 0;
	qa->sq_sig_all = 1;
	qa->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS |
			 IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	qa->create_flags = 0;
	qa->max_tso_header = MM_TSO_HDR_MAX;
	qp->sv = sv_create_qp_ex(mm_sv(b->file), qa);
	if (qp->sv == NULL)
		return -errno;
	qp->sq_buf = (uint8_t *)(uintptr_t)ucmd.sq_buf_addr;
	qp->sq_wqe_cnt = ucmd.sq_wqe_count;
	qp->dbrec = (volatile uint32_t *)(uintptr_t)ucmd.db_addr;
	qp->uidx = ucmd.uidx;
	(void)sig_all;
	/* create_raw_packet_qp(): the send queue's TIS (in the context's
	 * transport domain) and SQ numbers. */
	qp->tisn = mm_devx_number();
	resp.bfreg_index = ucmd.bfreg_index;
	resp.comp_mask = MLX5_IB_CREATE_QP_RESP_MASK_TISN |
			 MLX5_IB_CREATE_QP_RESP_MASK_SQN;
	resp.tisn = qp->tisn;
	resp.sqn = qp->sv->qp_num;
	mm_uhw_out(b, &resp, sizeof(resp));
	return 0;
}

static int
mm_qp_create(struct mm_bundle *b, struct mm_uobj *u, uint32_t type,
	     struct mm_uobj *pdu, struct mm_uobj *scqu, struct mm_uobj *rcqu,
	     struct mm_uobj *indu, struct ib_uverbs_qp_cap *cap, uint32_t flags,
	     uint64_t user_handle)
{
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct mm_qp *qp;
	bool sig_all = flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	int rc;

	if (type != IB_UVERBS_QPT_RAW_PACKET)
		return MM_REFUSE(EOPNOTSUPP,
				 "QPs other than raw packet are not modelled");
	/* check_creation_flags(): raw packet QPs take these */
	flags &= ~(uint32_t)IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	if (flags & ~(uint32_t)(IB_UVERBS_QP_CREATE_SCATTER_FCS |
				IB_UVERBS_QP_CREATE_CVLAN_STRIPPING |
				IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |
				IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING))
		return MM_REFUSE(EINVAL, "check_creation_flags");
	if (flags)
		return MM_REFUSE(EOPNOTSUPP,
				 "QP creation flags are not modelled");
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return -ENOMEM;
	qp->f = b->file;
	qp->u = u;
	qp->pd = pdu;
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.pd = ((struct mm_pd *)pdu->priv)->sv;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.cap.max_send_wr = cap->max_send_wr;
	qa.cap.max_recv_wr = cap->max_recv_wr;
	qa.cap.max_send_sge = cap->max_send_sge;
	qa.cap.max_recv_sge = cap->max_recv_sge;
	qa.cap.max_inline_data = cap->max_inline_data;
	if (indu != NULL) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_IND_TABLE;
		qa.rwq_ind_tbl = ((struct mm_ind *)indu->priv)->sv;
		rc = mm_qp_create_rss(b, qp, &qa);
	} else {
		if (scqu != NULL)
			qa.send_cq = ibv_cq_ex_to_cq(
				((struct mm_cq *)scqu->priv)->sv);
		if (rcqu != NULL)
			qa.recv_cq = ibv_cq_ex_to_cq(
				((struct mm_cq *)rcqu->priv)->sv);
		rc = mm_qp_create_raw(b, qp, &qa, sig_all);
		if (rc == 0) {
			qp->send_cq = scqu->priv;
			rc = mm_qp_scratch_setup(qp);
			if (rc != 0)
				sv_destroy_qp(qp->sv);
		}
	}
	if (rc != 0) {
		free(qp);
		return rc;
	}
	qp->qpn = qp->sv->qp_num;
	qp->pd = pdu;
	qp->scq = scqu;
	qp->rcq = rcqu;
	qp->ind = indu;
	qp->state = IBV_QPS_RESET;
	pdu->usecnt++;
	if (scqu != NULL)
		scqu->usecnt++;
	if (rcqu != NULL)
		rcqu->usecnt++;
	if (indu != NULL)
		indu->usecnt++;
	u->priv = qp;
	u->destroy = mm_qp_destroy;
	u->user_handle = user_handle;
	if (!qp->rss) {
		mm_engine_lock(b->file->dev);
		mm_engine_add_qp(b->file->dev, qp);
		mm_engine_unlock(b->file->dev);
	}
	/* ib_create_qp_user() hands back the caps: those of a hash QP are
	 * zero, a send queue's what it was asked. */
	if (qp->rss)
		memset(cap, 0, sizeof(*cap));
	return 0;
}

static int
mm_m_qp_create(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, UVERBS_ATTR_CREATE_QP_HANDLE);
	struct mm_uobj *pdu, *scq = NULL, *rcq = NULL, *ind;
	struct ib_uverbs_qp_cap cap = { 0 };
	uint64_t handle, type, flags;
	const void *p;
	size_t len;
	int rc;

	p = mm_attr_in_ptr(b, UVERBS_ATTR_CREATE_QP_CAP, &len);
	memcpy(&cap, p, len < sizeof(cap) ? len : sizeof(cap));
	rc = mm_attr_copy_in(b, UVERBS_ATTR_CREATE_QP_USER_HANDLE, &handle,
			     sizeof(handle));
	if (rc == 0)
		rc = mm_attr_const(b, UVERBS_ATTR_CREATE_QP_TYPE, &type);
	if (rc != 0)
		return rc;
	switch (type) {
	case IB_UVERBS_QPT_RAW_PACKET:
	case IB_UVERBS_QPT_RC:
	case IB_UVERBS_QPT_UC:
	case IB_UVERBS_QPT_UD:
	case IB_UVERBS_QPT_XRC_INI:
	case IB_UVERBS_QPT_DRIVER:
		if (mm_attr_present(b, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE))
			return -EINVAL;
		pdu = mm_attr_obj(b, UVERBS_ATTR_CREATE_QP_PD_HANDLE);
		if (pdu == NULL)
			return MM_REFUSE(EINVAL, "QP_CREATE: no PD");
		ind = mm_attr_obj(b, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE);
		if (ind != NULL) {
			if (cap.max_recv_wr || cap.max_recv_sge ||
			    mm_attr_present(b,
					    UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE) ||
			    mm_attr_present(b,
					    UVERBS_ATTR_CREATE_QP_SRQ_HANDLE))
				return MM_REFUSE(
					EINVAL,
					"QP_CREATE: receive side on a hash QP");
			if (cap.max_send_wr) {
				scq = mm_attr_obj(
					b,
					UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE);
				if (scq == NULL)
					return MM_REFUSE(EINVAL,
							 "QP_CREATE: no send CQ");
			}
		} else {
			scq = mm_attr_obj(b,
					  UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE);
			if (scq == NULL)
				return MM_REFUSE(EINVAL,
						 "QP_CREATE: no send CQ");
			rcq = mm_attr_obj(b,
					  UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
			if (rcq == NULL)
				return MM_REFUSE(EINVAL,
						 "QP_CREATE: no recv CQ");
		}
		break;
	default:
		return MM_REFUSE(EINVAL, "QP_CREATE: type");
	}
	rc = mm_attr_flags(b, UVERBS_ATTR_CREATE_QP_FLAGS,
			   IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |
				   IB_UVERBS_QP_CREATE_SCATTER_FCS |
				   IB_UVERBS_QP_CREATE_CVLAN_STRIPPING |
				   IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING |
				   IB_UVERBS_QP_CREATE_SQ_SIG_ALL,
			   &flags);
	if (rc == 0 && mm_attr_present(b, UVERBS_ATTR_CREATE_QP_SOURCE_QPN))
		rc = MM_REFUSE(EOPNOTSUPP, "QP_CREATE: source QPN");
	if (rc == 0)
		rc = mm_qp_create(b, u, (uint32_t)type, pdu, scq, rcq, ind,
				  &cap, (uint32_t)flags, handle);
	if (rc != 0)
		return rc;
	mm_attr_copy_out(b, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap, sizeof(cap));
	return mm_attr_copy_out(b, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
				&((struct mm_qp *)u->priv)->qpn,
				sizeof(uint32_t));
}

static int
mm_m_qp_destroy(struct mm_bundle *b)
{
	struct ib_uverbs_destroy_qp_resp resp = { 0 };
	int rc;

	rc = mm_uobj_destroy(mm_attr_obj(b, UVERBS_ATTR_DESTROY_QP_HANDLE));
	if (rc != 0)
		return rc;
	return mm_attr_copy_out(b, UVERBS_ATTR_DESTROY_QP_RESP, &resp,
				sizeof(resp));
}

/* modify_qp() of uverbs, then mlx5_ib_modify_qp() for a raw packet QP:
 * the device's QP takes the state machine (ib_modify_qp_is_ok()). */
static int
mm_qp_modify(struct mm_bundle *b, const struct ib_uverbs_modify_qp *cmd)
{
	struct ibv_qp_attr qa = { 0 };
	struct mm_uobj *u;
	struct mm_qp *qp;
	int rc, mask;

	rc = mm_uobj_get(b->file, UVERBS_OBJECT_QP, cmd->qp_handle, &u);
	if (rc != 0)
		return rc;
	qp = u->priv;
	if ((cmd->attr_mask & IBV_QP_PORT) && cmd->port_num != 1)
		return MM_REFUSE(EINVAL, "modify_qp: port");
	if (((cmd->attr_mask & IBV_QP_CUR_STATE) &&
	     cmd->cur_qp_state > IBV_QPS_ERR) ||
	    ((cmd->attr_mask & IBV_QP_STATE) && cmd->qp_state > IBV_QPS_ERR))
		return MM_REFUSE(EINVAL, "modify_qp: state");
	/* mlx5_ib_modify_qp(): a hash QP (is_rss) takes no modify but to
	 * leave it as it is... the driver answers -EOPNOTSUPP for its
	 * attributes (the mask bits of a TIR). */
	if (qp->rss)
		return MM_REFUSE(EOPNOTSUPP,
				 "mlx5_ib_modify_qp: RSS QPs are not modifiable");
	mask = (int)cmd->attr_mask;
	qa.qp_state = (enum ibv_qp_state)cmd->qp_state;
	qa.cur_qp_state = (enum ibv_qp_state)cmd->cur_qp_state;
	qa.port_num = cmd->port_num;
	mm_engine_lock(b->file->dev);
	rc = sv_modify_qp(qp->sv, &qa, mask);
	if (rc == 0 && (mask & IBV_QP_STATE)) {
		qp->state = qa.qp_state;
		/* Through reset the send queue starts over, as libmlx5's
		 * indices do (mlx5_init_qp_indices()). */
		if (qa.qp_state == IBV_QPS_RESET)
			qp->sq_ci = 0;
	}
	mm_engine_unlock(b->file->dev);
	if (rc == 0)
		mm_engine_kick(b->file->dev);
	return -rc;
}

static int
mm_w_modify_qp(struct mm_bundle *b)
{
	struct ib_uverbs_modify_qp cmd;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	return rc != 0 ? rc : mm_qp_modify(b, &cmd);
}

static int
mm_w_ex_modify_qp(struct mm_bundle *b)
{
	struct ib_uverbs_ex_modify_qp_resp resp = { 0 };
	struct ib_uverbs_ex_modify_qp cmd;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (cmd.base.attr_mask & ~(uint32_t)((IBV_QP_RATE_LIMIT << 1) - 1))
		return MM_REFUSE(EOPNOTSUPP,
				 "ib_uverbs_ex_modify_qp: attr_mask");
	if (cmd.base.attr_mask & IBV_QP_RATE_LIMIT)
		return MM_REFUSE(EOPNOTSUPP, "no packet pacing");
	rc = mm_qp_modify(b, &cmd.base);
	if (rc != 0)
		return rc;
	resp.response_length = (uint32_t)(b->core_outlen < sizeof(resp) ?
						  b->core_outlen :
						  sizeof(resp));
	return mm_response(b, &resp, sizeof(resp));
}

/* ---- method tables ---- */

static const struct mm_attr_spec mm_a_pd_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_PD_HANDLE, UVERBS_OBJECT_PD, MM_ACC_DESTROY,
	       1),
};

static const struct mm_attr_spec mm_a_mr_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_MR_HANDLE, UVERBS_OBJECT_MR, MM_ACC_DESTROY,
	       1),
};

static const struct mm_attr_spec mm_a_cq_create[] = {
	MM_IDR(UVERBS_ATTR_CREATE_CQ_HANDLE, UVERBS_OBJECT_CQ, MM_ACC_NEW, 1),
	{ .id = UVERBS_ATTR_CREATE_CQ_CQE,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	{ .id = UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint64_t) },
	MM_FD(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, UVERBS_OBJECT_COMP_CHANNEL,
	      MM_ACC_READ, 0),
	{ .id = UVERBS_ATTR_CREATE_CQ_COMP_VECTOR,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	MM_FLAGS(UVERBS_ATTR_CREATE_CQ_FLAGS, 0),
	{ .id = UVERBS_ATTR_CREATE_CQ_RESP_CQE,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	MM_FD(UVERBS_ATTR_CREATE_CQ_EVENT_FD, UVERBS_OBJECT_ASYNC_EVENT,
	      MM_ACC_READ, 0),
	MM_UHW,
};

static const struct mm_attr_spec mm_a_cq_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_CQ_HANDLE, UVERBS_OBJECT_CQ, MM_ACC_DESTROY,
	       1),
	{ .id = UVERBS_ATTR_DESTROY_CQ_RESP,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(struct ib_uverbs_destroy_cq_resp) },
};

static const struct mm_attr_spec mm_a_wq_create[] = {
	MM_IDR(UVERBS_ATTR_CREATE_WQ_HANDLE, UVERBS_OBJECT_WQ, MM_ACC_NEW, 1),
	MM_IDR(UVERBS_ATTR_CREATE_WQ_PD_HANDLE, UVERBS_OBJECT_PD, MM_ACC_READ,
	       1),
	MM_CONST(UVERBS_ATTR_CREATE_WQ_TYPE, 1),
	{ .id = UVERBS_ATTR_CREATE_WQ_USER_HANDLE,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint64_t) },
	{ .id = UVERBS_ATTR_CREATE_WQ_MAX_WR,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	{ .id = UVERBS_ATTR_CREATE_WQ_MAX_SGE,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	MM_FLAGS(UVERBS_ATTR_CREATE_WQ_FLAGS, 0),
	MM_IDR(UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, UVERBS_OBJECT_CQ, MM_ACC_READ,
	       1),
	MM_FD(UVERBS_ATTR_CREATE_WQ_EVENT_FD, UVERBS_OBJECT_ASYNC_EVENT,
	      MM_ACC_READ, 0),
	{ .id = UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	{ .id = UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	{ .id = UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	MM_UHW,
};

static const struct mm_attr_spec mm_a_wq_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_WQ_HANDLE, UVERBS_OBJECT_WQ, MM_ACC_DESTROY,
	       1),
	{ .id = UVERBS_ATTR_DESTROY_WQ_RESP,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
};

static const struct mm_attr_spec mm_a_ind_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE,
	       UVERBS_OBJECT_RWQ_IND_TBL, MM_ACC_DESTROY, 1),
};

static const struct mm_attr_spec mm_a_qp_create[] = {
	MM_IDR(UVERBS_ATTR_CREATE_QP_HANDLE, UVERBS_OBJECT_QP, MM_ACC_NEW, 1),
	MM_IDR(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, UVERBS_OBJECT_XRCD,
	       MM_ACC_READ, 0),
	MM_IDR(UVERBS_ATTR_CREATE_QP_PD_HANDLE, UVERBS_OBJECT_PD, MM_ACC_READ,
	       0),
	MM_IDR(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, UVERBS_OBJECT_SRQ, MM_ACC_READ,
	       0),
	MM_IDR(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, UVERBS_OBJECT_CQ,
	       MM_ACC_READ, 0),
	MM_IDR(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, UVERBS_OBJECT_CQ,
	       MM_ACC_READ, 0),
	MM_IDR(UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE,
	       UVERBS_OBJECT_RWQ_IND_TBL, MM_ACC_READ, 0),
	{ .id = UVERBS_ATTR_CREATE_QP_USER_HANDLE,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint64_t) },
	{ .id = UVERBS_ATTR_CREATE_QP_CAP,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_STRUCT(struct ib_uverbs_qp_cap, max_inline_data) },
	MM_CONST(UVERBS_ATTR_CREATE_QP_TYPE, 1),
	MM_FLAGS(UVERBS_ATTR_CREATE_QP_FLAGS, 0),
	{ .id = UVERBS_ATTR_CREATE_QP_SOURCE_QPN,
	  .type = MM_AT_PTR_IN,
	  MM_TYPE(uint32_t) },
	MM_FD(UVERBS_ATTR_CREATE_QP_EVENT_FD, UVERBS_OBJECT_ASYNC_EVENT,
	      MM_ACC_READ, 0),
	{ .id = UVERBS_ATTR_CREATE_QP_RESP_CAP,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_STRUCT(struct ib_uverbs_qp_cap, max_inline_data) },
	{ .id = UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(uint32_t) },
	MM_UHW,
};

static const struct mm_attr_spec mm_a_qp_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_QP_HANDLE, UVERBS_OBJECT_QP, MM_ACC_DESTROY,
	       1),
	{ .id = UVERBS_ATTR_DESTROY_QP_RESP,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1,
	  MM_TYPE(struct ib_uverbs_destroy_qp_resp) },
};

#define MM_METHOD(o, m, a, u, h)                                         \
	{                                                                \
		.obj = (o), .id = (m), .name = #m, .attrs = (a),         \
		.nattrs = MM_ARRAY_SIZE(a), .udata = (u), .handler = (h) \
	}

static const struct mm_method mm_verbs_m[] = {
	MM_METHOD(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, mm_a_pd_destroy,
		  false, mm_m_pd_destroy),
	MM_METHOD(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, mm_a_mr_destroy,
		  false, mm_m_mr_destroy),
	MM_METHOD(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, mm_a_cq_create,
		  true, mm_m_cq_create),
	MM_METHOD(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, mm_a_cq_destroy,
		  false, mm_m_cq_destroy),
	MM_METHOD(UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, mm_a_wq_create,
		  true, mm_m_wq_create),
	MM_METHOD(UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, mm_a_wq_destroy,
		  false, mm_m_wq_destroy),
	MM_METHOD(UVERBS_OBJECT_RWQ_IND_TBL, UVERBS_METHOD_RWQ_IND_TBL_DESTROY,
		  mm_a_ind_destroy, false, mm_m_ind_destroy),
	MM_METHOD(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, mm_a_qp_create,
		  true, mm_m_qp_create),
	MM_METHOD(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, mm_a_qp_destroy,
		  false, mm_m_qp_destroy),
};

const struct mm_method_table mm_verbs_methods = {
	mm_verbs_m,
	MM_ARRAY_SIZE(mm_verbs_m),
};

#define MM_WRITE(c, req, resp, r, u, h)                             \
	{                                                           \
		.cmd = (c), .name = #c, .req_size = sizeof(req),    \
		.resp_size = (resp), .has_resp = (r), .udata = (u), \
		.handler = (h)                                      \
	}
#define MM_EX(c) (IB_USER_VERBS_CMD_FLAG_EXTENDED | (c))

static const struct mm_write_method mm_verbs_w[] = {
	MM_WRITE(IB_USER_VERBS_CMD_ALLOC_PD, struct ib_uverbs_alloc_pd,
		 sizeof(struct ib_uverbs_alloc_pd_resp), true, true,
		 mm_w_alloc_pd),
	MM_WRITE(IB_USER_VERBS_CMD_DEALLOC_PD, struct ib_uverbs_dealloc_pd, 0,
		 false, false, mm_w_dealloc_pd),
	MM_WRITE(IB_USER_VERBS_CMD_REG_MR, struct ib_uverbs_reg_mr,
		 sizeof(struct ib_uverbs_reg_mr_resp), true, true, mm_w_reg_mr),
	MM_WRITE(IB_USER_VERBS_CMD_DEREG_MR, struct ib_uverbs_dereg_mr, 0,
		 false, false, mm_w_dereg_mr),
	MM_WRITE(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
		 struct ib_uverbs_create_comp_channel,
		 sizeof(struct ib_uverbs_create_comp_channel_resp), true, false,
		 mm_w_create_comp_channel),
	MM_WRITE(IB_USER_VERBS_CMD_MODIFY_QP, struct ib_uverbs_modify_qp, 0,
		 false, true, mm_w_modify_qp),
	MM_WRITE(MM_EX(IB_USER_VERBS_EX_CMD_MODIFY_QP),
		 struct ib_uverbs_ex_modify_qp,
		 sizeof(struct ib_uverbs_ex_modify_qp_resp), true, true,
		 mm_w_ex_modify_qp),
	MM_WRITE(MM_EX(IB_USER_VERBS_EX_CMD_CREATE_WQ),
		 struct ib_uverbs_ex_create_wq,
		 sizeof(struct ib_uverbs_ex_create_wq_resp), true, true,
		 mm_w_ex_create_wq),
	MM_WRITE(MM_EX(IB_USER_VERBS_EX_CMD_MODIFY_WQ),
		 struct ib_uverbs_ex_modify_wq, 0, false, true,
		 mm_w_ex_modify_wq),
	MM_WRITE(MM_EX(IB_USER_VERBS_EX_CMD_DESTROY_WQ),
		 struct ib_uverbs_ex_destroy_wq,
		 sizeof(struct ib_uverbs_ex_destroy_wq_resp), true, false,
		 mm_w_ex_destroy_wq),
	MM_WRITE(MM_EX(IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL),
		 struct ib_uverbs_ex_create_rwq_ind_table,
		 sizeof(struct ib_uverbs_ex_create_rwq_ind_table_resp), true,
		 true, mm_w_ex_create_ind),
	MM_WRITE(MM_EX(IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL),
		 struct ib_uverbs_ex_destroy_rwq_ind_table, 0, false, false,
		 mm_w_ex_destroy_ind),
};

const struct mm_write_table mm_verbs_writes = {
	mm_verbs_w,
	MM_ARRAY_SIZE(mm_verbs_w),
};
