/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef MODEL_SIDE_H
#define MODEL_SIDE_H

/*
 * What the model's C tests share: two modelled devices on one in-memory
 * link (mlx5_0 and mlx5_1), each side's verbs objects through the real
 * libibverbs and libmlx5, frames sent on one side's raw packet QP and
 * received on the other's WQ.
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "../vt_test.h"

#define NBUF 64
#define BUFSZ 2048

/* One side of a test: a device and the objects on it. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t *mem;
	struct ibv_mr *mr;
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *hqp; /* hash QP */
	struct ibv_qp *sqp; /* raw packet send QP */
	struct ibv_comp_channel *ch;
	uint8_t mac[6];
};

struct rx {
	uint64_t wr_id;
	uint32_t len, tag, flags;
	uint16_t cvlan;
	enum ibv_wc_status status;
};

/* The next side_open()s' CQs read completion timestamps. */
extern bool side_ts;

/* Open the named device, DevX on. */
struct ibv_context *open_dev(const char *name);
/* The port MAC of ibdev, from the model's sysfs tree. */
int read_mac(const char *ibdev, uint8_t mac[6]);
/* A side: device, PD, NBUF * 2 buffers of BUFSZ registered, a CQ (with
 * a completion channel when asked). */
int side_open(struct side *s, const char *name, bool channel);
/* A receive WQ, ready, with NBUF buffers, under a hash QP. */
int side_rx(struct side *s, uint64_t hash_fields);
/* A raw packet QP in RTS. */
int side_tx(struct side *s, uint32_t max_wr, uint32_t max_sge);
void side_close(struct side *s);
/* mlx5_0 receiving (side_rx(), no hash fields) and mlx5_1 sending
 * (side_tx(), 64 WRs of one piece); and both closed. */
int pair_open(struct side *a, struct side *b);
void pair_close(struct side *a, struct side *b);
/* An IPv4/UDP frame to dst, checksums right, its payload a pattern from
 * seed; returns its length. */
uint32_t make_udp(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
		  uint16_t dport, uint32_t payload, uint8_t seed);
/* Send n frames from s through its raw QP, the last one signalled, and
 * wait for its completion. */
int send_frames(struct side *s, uint8_t *const frames[], const uint32_t *lens,
		unsigned int n);
/* Up to max receive completions within about a second. */
unsigned int poll_rx(struct side *s, struct rx *out, unsigned int max);

/*
 * main() of a test: without the model around it, run this program again
 * under the wrapper (--wrapper W --lib L, and opts, more options of
 * devtools/mlx5-model, NULL-terminated) with mlx5_0 and mlx5_1 on one
 * in-memory link; under it, run the cases the other arguments select.
 */
int model_main(int argc, char **argv, const struct vt_case *cases,
	       const char *const *opts);

#endif /* MODEL_SIDE_H */
