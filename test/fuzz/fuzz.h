/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VT_FUZZ_H
#define VT_FUZZ_H

/*
 * Shared by the fuzz harnesses. Each harness defines the libFuzzer entry
 * point LLVMFuzzerTestOneInput() and checks invariants with FZ_CHECK().
 *
 * Built with -Dfuzz=true (clang), libFuzzer supplies main() and a failed
 * check aborts, so libFuzzer keeps the input. Otherwise fuzz_main.c
 * supplies a main() that replays corpus files and a fixed-seed run of
 * pseudo-random inputs, and a failed check is counted and reported with
 * the input that caused it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a failed invariant (never returns under libFuzzer). */
void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define FZ_CHECK(cond, ...)                                              \
	do {                                                             \
		if (!(cond))                                             \
			fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/*
 * Outcome counters: the replay test checks that its inputs reach both
 * the accepting and the refusing paths of the code under test, so that a
 * decoder that never builds a valid input cannot pass unnoticed.
 */
extern unsigned long fz_accepted;
extern unsigned long fz_refused;

/* Input reader: reads past the end give zeros, so every input decodes. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline size_t
fz_left(const struct fz_in *in)
{
	return in->n;
}

static inline void
fz_bytes(struct fz_in *in, void *dst, size_t n)
{
	size_t k = n < in->n ? n : in->n;

	if (k > 0)
		memcpy(dst, in->p, k);
	if (n > k)
		memset((uint8_t *)dst + k, 0, n - k);
	in->p += k;
	in->n -= k;
}

static inline uint8_t
fz_u8(struct fz_in *in)
{
	uint8_t v;

	fz_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint16_t
fz_u16(struct fz_in *in)
{
	uint16_t v;

	fz_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint32_t
fz_u32(struct fz_in *in)
{
	uint32_t v;

	fz_bytes(in, &v, sizeof(v));
	return v;
}

static inline uint64_t
fz_u64(struct fz_in *in)
{
	uint64_t v;

	fz_bytes(in, &v, sizeof(v));
	return v;
}

/* One element of a small table, chosen by the next input byte. */
#define FZ_PICK(in, table) \
	((table)[fz_u8(in) % (sizeof(table) / sizeof((table)[0]))])

#endif /* VT_FUZZ_H */
