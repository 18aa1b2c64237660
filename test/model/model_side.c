/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/* The model's C tests' shared sides (model_side.h). */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "model_side.h"

/* Open the named device (the context keeps the device once the list
 * goes), DevX on. */
struct ibv_context *
open_dev(const char *name)
{
	struct mlx5dv_context_attr da = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n, i;

	list = ibv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = mlx5dv_open_device(list[i], &da);
	if (list != NULL)
		ibv_free_device_list(list);
	return ctx;
}

int
read_mac(const char *ibdev, uint8_t mac[6])
{
	char path[512], buf[64], name[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "ls %s/class/infiniband/%s/device/net",
		 getenv("SYSFS_PATH"), ibdev);
	f = popen(path, "r");
	if (f == NULL || fgets(name, sizeof(name), f) == NULL) {
		if (f != NULL)
			pclose(f);
		return -1;
	}
	pclose(f);
	name[strcspn(name, "\n")] = '\0';
	snprintf(path, sizeof(path),
		 "%s/class/infiniband/%s/device/net/%s/address",
		 getenv("SYSFS_PATH"), ibdev, name);
	f = fopen(path, "r");
	if (f == NULL || fgets(buf, sizeof(buf), f) == NULL) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	return sscanf(buf, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6 ?
		       0 :
		       -1;
}

bool side_ts;

int
side_open(struct side *s, const char *name, bool channel)
{
	struct ibv_cq_init_attr_ex ca = { 0 };

	memset(s, 0, sizeof(*s));
	if (read_mac(name, s->mac) != 0)
		return -1;
	s->ctx = open_dev(name);
	if (s->ctx == NULL)
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	s->mem = aligned_alloc(4096, NBUF * BUFSZ * 2);
	if (s->pd == NULL || s->mem == NULL)
		return -1;
	memset(s->mem, 0, NBUF * BUFSZ * 2);
	s->mr = ibv_reg_mr(s->pd, s->mem, NBUF * BUFSZ * 2,
			   IBV_ACCESS_LOCAL_WRITE);
	if (s->mr == NULL)
		return -1;
	if (channel) {
		s->ch = ibv_create_comp_channel(s->ctx);
		if (s->ch == NULL)
			return -1;
	}
	ca.cqe = 256;
	ca.channel = s->ch;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG |
		      IBV_WC_EX_WITH_CVLAN;
	if (side_ts)
		ca.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	s->cq = ibv_create_cq_ex(s->ctx, &ca);
	return s->cq == NULL ? -1 : 0;
}

/* A receive WQ, ready, with NBUF buffers, under a hash QP. */
int
side_rx(struct side *s, uint64_t hash_fields)
{
	static uint8_t key[40] = { 0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4,
				   0xf7, 0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a,
				   0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9, 0x2c,
				   0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7,
				   0xd9, 0x56, 0x3d, 0x59, 0x06, 0x3c, 0x25,
				   0xf3, 0xfc, 0x1f, 0xdc, 0x2a };
	struct ibv_wq_init_attr wa = { 0 };
	struct ibv_wq_attr ma = { 0 };
	struct ibv_rwq_ind_table_init_attr ia = { 0 };
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	int i;

	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = NBUF;
	wa.max_sge = 1;
	wa.pd = s->pd;
	wa.cq = ibv_cq_ex_to_cq(s->cq);
	s->wq = ibv_create_wq(s->ctx, &wa);
	if (s->wq == NULL)
		return -1;
	ma.attr_mask = IBV_WQ_ATTR_STATE;
	ma.wq_state = IBV_WQS_RDY;
	if (ibv_modify_wq(s->wq, &ma) != 0)
		return -1;
	for (i = 0; i < NBUF; i++) {
		sge.addr = (uintptr_t)(s->mem + (size_t)i * BUFSZ);
		sge.length = BUFSZ;
		sge.lkey = s->mr->lkey;
		wr.wr_id = (uint64_t)i;
		wr.next = NULL;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_wq_recv(s->wq, &wr, &bad) != 0)
			return -1;
	}
	ia.log_ind_tbl_size = 0;
	ia.ind_tbl = &s->wq;
	s->ind = ibv_create_rwq_ind_table(s->ctx, &ia);
	if (s->ind == NULL)
		return -1;
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		       IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = s->pd;
	qa.rwq_ind_tbl = s->ind;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = sizeof(key);
	qa.rx_hash_conf.rx_hash_key = key;
	qa.rx_hash_conf.rx_hash_fields_mask = hash_fields;
	s->hqp = ibv_create_qp_ex(s->ctx, &qa);
	return s->hqp == NULL ? -1 : 0;
}

/* A raw packet QP in RTS. */
int
side_tx(struct side *s, uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct ibv_qp_attr a = { 0 };

	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	qa.pd = s->pd;
	qa.send_cq = ibv_cq_ex_to_cq(s->cq);
	qa.recv_cq = ibv_cq_ex_to_cq(s->cq);
	qa.cap.max_send_wr = max_wr;
	qa.cap.max_send_sge = max_sge;
	s->sqp = ibv_create_qp_ex(s->ctx, &qa);
	if (s->sqp == NULL)
		return -1;
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (ibv_modify_qp(s->sqp, &a, IBV_QP_STATE | IBV_QP_PORT) != 0)
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(s->sqp, &a, IBV_QP_STATE) != 0)
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(s->sqp, &a, IBV_QP_STATE);
}

void
side_close(struct side *s)
{
	if (s->hqp != NULL)
		ibv_destroy_qp(s->hqp);
	if (s->sqp != NULL)
		ibv_destroy_qp(s->sqp);
	if (s->ind != NULL)
		ibv_destroy_rwq_ind_table(s->ind);
	if (s->wq != NULL)
		ibv_destroy_wq(s->wq);
	if (s->cq != NULL)
		ibv_destroy_cq(ibv_cq_ex_to_cq(s->cq));
	if (s->ch != NULL)
		ibv_destroy_comp_channel(s->ch);
	if (s->mr != NULL)
		ibv_dereg_mr(s->mr);
	if (s->pd != NULL)
		ibv_dealloc_pd(s->pd);
	if (s->ctx != NULL)
		ibv_close_device(s->ctx);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}

int
pair_open(struct side *a, struct side *b)
{
	if (side_open(a, "mlx5_0", false) != 0 ||
	    side_open(b, "mlx5_1", false) != 0 || side_rx(a, 0) != 0)
		return -1;
	return side_tx(b, 64, 1);
}

void
pair_close(struct side *a, struct side *b)
{
	side_close(b);
	side_close(a);
}

/* An IPv4/UDP frame to dst, checksums right, its payload a pattern
 * from seed; returns its length. */
uint32_t
make_udp(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], uint16_t dport,
	 uint32_t payload, uint8_t seed)
{
	uint32_t ip_len = 20 + 8 + payload, sum = 0, i;
	uint8_t *ip = f + 14, *udp = ip + 20;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 192, ip[13] = 0, ip[14] = 2, ip[15] = 1;
	ip[16] = 192, ip[17] = 0, ip[18] = 2, ip[19] = 2;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
	udp[0] = 0x30, udp[1] = 0x39;
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	udp[4] = (uint8_t)((8 + payload) >> 8);
	udp[5] = (uint8_t)(8 + payload);
	udp[6] = udp[7] = 0; /* no UDP checksum: good */
	for (i = 0; i < payload; i++)
		udp[8 + i] = (uint8_t)(seed + i);
	return 14 + ip_len;
}

/* Send n frames from s through its raw QP, the last one signalled, and
 * wait for its completion. */
int
send_frames(struct side *s, uint8_t *const frames[], const uint32_t *lens,
	    unsigned int n)
{
	struct ibv_send_wr wr[NBUF], *bad;
	struct ibv_sge sge[NBUF];
	struct ibv_poll_cq_attr pa = { 0 };
	unsigned int i, tries;

	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)frames[i];
		sge[i].length = lens[i];
		sge[i].lkey = s->mr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = 1000 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = i + 1 == n ? IBV_SEND_SIGNALED : 0;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (ibv_post_send(s->sqp, wr, &bad) != 0)
		return -1;
	for (tries = 0; tries < 2000; tries++) {
		if (ibv_start_poll(s->cq, &pa) == 0) {
			uint64_t id = s->cq->wr_id;
			enum ibv_wc_status st = s->cq->status;

			ibv_end_poll(s->cq);
			if (st != IBV_WC_SUCCESS || id != 1000 + n - 1)
				return -1;
			return 0;
		}
		usleep(1000);
	}
	return -1;
}

/* Up to max receive completions within about a second. */
unsigned int
poll_rx(struct side *s, struct rx *out, unsigned int max)
{
	struct ibv_poll_cq_attr pa = { 0 };
	unsigned int n = 0, idle = 0;

	while (n < max && idle < 1000) {
		if (ibv_start_poll(s->cq, &pa) != 0) {
			idle++;
			usleep(1000);
			continue;
		}
		do {
			out[n].wr_id = s->cq->wr_id;
			out[n].status = s->cq->status;
			out[n].len = ibv_wc_read_byte_len(s->cq);
			out[n].tag = ibv_wc_read_flow_tag(s->cq);
			out[n].flags = ibv_wc_read_wc_flags(s->cq);
			out[n].cvlan = ibv_wc_read_cvlan(s->cq);
			n++;
		} while (n < max && ibv_next_poll(s->cq) == 0);
		ibv_end_poll(s->cq);
	}
	return n;
}

int
model_main(int argc, char **argv, const struct vt_case *cases,
	   const char *const *opts)
{
	const char *wrapper = NULL, *lib = NULL;
	char link[64];
	int i;

	/* Run under the model: mlx5_0 and mlx5_1 on one in-memory link. */
	if (getenv("MLX5MODEL_DEVICES") == NULL) {
		char **nargv = calloc((size_t)argc + 16, sizeof(*nargv));
		int n = 0;

		for (i = 1; i + 1 < argc; i++) {
			if (strcmp(argv[i], "--wrapper") == 0)
				wrapper = argv[++i];
			else if (strcmp(argv[i], "--lib") == 0)
				lib = argv[++i];
		}
		if (wrapper == NULL || lib == NULL || nargv == NULL) {
			fprintf(stderr,
				"usage: %s --wrapper W --lib L [case...]\n",
				argv[0]);
			return 2;
		}
		snprintf(link, sizeof(link), "mem:tv%d", (int)getpid());
		nargv[n++] = (char *)(uintptr_t)wrapper;
		nargv[n++] = (char *)(uintptr_t) "--lib";
		nargv[n++] = (char *)(uintptr_t)lib;
		for (i = 0; opts != NULL && opts[i] != NULL && n < 12; i++)
			nargv[n++] = (char *)(uintptr_t)opts[i];
		nargv[n++] = (char *)(uintptr_t) "--link";
		nargv[n++] = link;
		nargv[n++] = (char *)(uintptr_t) "--link";
		nargv[n++] = link;
		nargv[n++] = (char *)(uintptr_t) "--";
		for (i = 0; i < argc; i++)
			nargv[n++] = argv[i];
		execv(wrapper, nargv);
		perror("exec");
		return 1;
	}
	/* Keep only the case filters. */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--wrapper") == 0 ||
		    strcmp(argv[i], "--lib") == 0) {
			memmove(&argv[i], &argv[i + 2],
				(size_t)(argc - i - 1) * sizeof(*argv));
			argc -= 2;
			i--;
		}
	return vt_main(argc, argv, cases);
}
