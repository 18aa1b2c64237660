/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Failure reporting for the harnesses, and (without libFuzzer) a main()
 * that makes each harness a unit test:
 *   1. replay every corpus file named on the command line (a directory
 *      stands for the regular files in it, in name order);
 *   2. run a fixed-seed sequence of pseudo-random inputs, most of them
 *      mutations of the corpus, bounded in count and in time.
 * A failed invariant fails the case and prints the input in hex; the
 * random case also writes it to $TMPDIR (default /tmp) as
 * <program>-failure.bin, ready to be replayed or handed to the libFuzzer
 * build.
 */

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz.h"

unsigned long fz_accepted;
unsigned long fz_refused;

#ifdef VT_FUZZ_LIBFUZZER

void
fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	/* libFuzzer saves the input of a crashing run. */
	abort();
}

#else /* replay and pseudo-random run */

#include "vt_test.h"

#define FZ_MAX_FILES 4096
#define FZ_MAX_FILE_BYTES (1u << 20)
#define FZ_RANDOM_RUNS 10000
#define FZ_RANDOM_NS (1500ull * 1000 * 1000) /* 1.5 s */
#define FZ_RANDOM_MAX_LEN 1024

struct fz_file {
	char *name;
	uint8_t *data;
	size_t len;
};

static unsigned long fz_failures;
static const char *fz_prog = "fuzz";
static int fz_argc;
static char **fz_argv;
static struct fz_file fz_files[FZ_MAX_FILES];
static unsigned int fz_nfiles;
static bool fz_loaded;

void
fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	/* One bad input can break many invariants: print the first few. */
	if (fz_failures++ >= 10)
		return;
	fprintf(stderr, "  %s:%d: invariant failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

static void
fz_dump_hex(const uint8_t *p, size_t len)
{
	size_t i;

	fprintf(stderr, "  input (%zu bytes):", len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 32 == 0 ? "\n    " : " ", p[i]);
	fprintf(stderr, "\n");
}

static int
fz_load_file(const char *path)
{
	struct fz_file *f;
	FILE *fp;
	long sz;

	if (fz_nfiles >= FZ_MAX_FILES)
		return E2BIG;
	fp = fopen(path, "rb");
	if (fp == NULL)
		return errno;
	if (fseek(fp, 0, SEEK_END) != 0 || (sz = ftell(fp)) < 0 ||
	    (unsigned long)sz > FZ_MAX_FILE_BYTES || fseek(fp, 0, SEEK_SET)) {
		fclose(fp);
		return EFBIG;
	}
	f = &fz_files[fz_nfiles];
	/* Exactly the file's size: a harness reading past it is caught by
	 * the sanitizers. */
	f->data = malloc(sz > 0 ? (size_t)sz : 1);
	f->name = strdup(path);
	if (f->data == NULL || f->name == NULL ||
	    fread(f->data, 1, (size_t)sz, fp) != (size_t)sz) {
		free(f->data);
		free(f->name);
		fclose(fp);
		return EIO;
	}
	fclose(fp);
	f->len = (size_t)sz;
	fz_nfiles++;
	return 0;
}

static int
fz_name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
fz_load_path(const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n, i, rc = 0;

	if (stat(path, &st) != 0)
		return errno;
	if (!S_ISDIR(st.st_mode))
		return fz_load_file(path);
	n = scandir(path, &ents, NULL, fz_name_cmp);
	if (n < 0)
		return errno;
	for (i = 0; i < n; i++) {
		char full[4096];

		if (rc == 0 && ents[i]->d_name[0] != '.' &&
		    snprintf(full, sizeof(full), "%s/%s", path,
			     ents[i]->d_name) < (int)sizeof(full) &&
		    stat(full, &st) == 0 && S_ISREG(st.st_mode))
			rc = fz_load_file(full);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int
fz_load_all(void)
{
	int i, rc;

	if (fz_loaded)
		return 0;
	fz_loaded = true;
	for (i = 1; i < fz_argc; i++) {
		rc = fz_load_path(fz_argv[i]);
		if (rc != 0) {
			fprintf(stderr, "  %s: %s\n", fz_argv[i], strerror(rc));
			return rc;
		}
	}
	return 0;
}

/* Run one input from an exact-size heap copy; true when it passed. */
static bool
fz_run_one(const uint8_t *data, size_t len)
{
	unsigned long before = fz_failures;
	uint8_t *copy = malloc(len > 0 ? len : 1);

	if (copy == NULL)
		return false;
	if (len > 0)
		memcpy(copy, data, len);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	return fz_failures == before;
}

static int
test_corpus(void)
{
	unsigned int i, bad = 0;

	VT_CHECK(fz_load_all() == 0, "cannot read the corpus");
	VT_CHECK(fz_nfiles > 0, "no corpus file given");
	fz_accepted = 0;
	fz_refused = 0;
	for (i = 0; i < fz_nfiles; i++) {
		unsigned long acc = fz_accepted, ref = fz_refused;
		const char *base = strrchr(fz_files[i].name, '/');

		base = base != NULL ? base + 1 : fz_files[i].name;
		if (!fz_run_one(fz_files[i].data, fz_files[i].len)) {
			fprintf(stderr, "  ^ corpus file %s\n",
				fz_files[i].name);
			bad++;
			continue;
		}
		/* A seed named bad_* is there to be refused, and only that. */
		if (strncmp(base, "bad_", 4) == 0 &&
		    (fz_accepted != acc || fz_refused == ref)) {
			fprintf(stderr,
				"  corpus file %s: accepted, but named bad_\n",
				fz_files[i].name);
			bad++;
		}
	}
	printf("# %s: %u corpus inputs, %lu accepted, %lu refused\n", fz_prog,
	       fz_nfiles, fz_accepted, fz_refused);
	VT_CHECK(bad == 0, "%u corpus input(s) broke an invariant", bad);
	VT_CHECK(fz_accepted > 0, "no corpus input reaches the accepting path");
	VT_CHECK(fz_refused > 0, "no corpus input reaches the refusing path");
	return VT_OK;
}

/* xorshift64*: small, fixed sequence for a given seed. */
static uint64_t
fz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint64_t
fz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A few byte-level mutations of buf[0..*len), as a fuzzer would do. */
static void
fz_mutate(uint64_t *s, uint8_t *buf, size_t *len)
{
	static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff,
					       0x08, 0x10, 0x40, 0x06, 0x11 };
	unsigned int n = 1 + fz_rand(s) % 4, k;

	for (k = 0; k < n; k++) {
		size_t pos = *len > 0 ? fz_rand(s) % *len : 0;

		switch (fz_rand(s) % 7) {
		case 0:
			if (*len > 0)
				buf[pos] ^= (uint8_t)(1u << (fz_rand(s) % 8));
			break;
		case 1:
			if (*len > 0)
				buf[pos] = (uint8_t)fz_rand(s);
			break;
		case 2:
			if (*len > 0)
				buf[pos] = interesting[fz_rand(s) %
						       sizeof(interesting)];
			break;
		case 3: /* insert a byte */
			if (*len < FZ_RANDOM_MAX_LEN) {
				memmove(buf + pos + 1, buf + pos, *len - pos);
				buf[pos] = (uint8_t)fz_rand(s);
				(*len)++;
			}
			break;
		case 4: /* delete a byte */
			if (*len > 0) {
				memmove(buf + pos, buf + pos + 1,
					*len - pos - 1);
				(*len)--;
			}
			break;
		case 5: /* truncate */
			*len = pos;
			break;
		default: /* copy a 2- or 4-byte word elsewhere */
			if (*len >= 8) {
				size_t w = 2 + 2 * (fz_rand(s) % 2);
				size_t from = fz_rand(s) % (*len - w);
				size_t to = fz_rand(s) % (*len - w);

				memmove(buf + to, buf + from, w);
			}
			break;
		}
	}
}

static int
test_random(void)
{
	static uint8_t buf[FZ_RANDOM_MAX_LEN];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint64_t t0 = fz_now_ns();
	unsigned int runs;

	VT_CHECK(fz_load_all() == 0, "cannot read the corpus");
	for (runs = 0; runs < FZ_RANDOM_RUNS; runs++) {
		size_t len;

		if (fz_nfiles > 0 && fz_rand(&seed) % 4 != 0) {
			const struct fz_file *f =
				&fz_files[fz_rand(&seed) % fz_nfiles];

			len = f->len < sizeof(buf) ? f->len : sizeof(buf);
			memcpy(buf, f->data, len);
			fz_mutate(&seed, buf, &len);
		} else {
			size_t i;

			len = fz_rand(&seed) % 256;
			for (i = 0; i < len; i++)
				buf[i] = (uint8_t)fz_rand(&seed);
		}
		if (!fz_run_one(buf, len)) {
			const char *dir = getenv("TMPDIR");
			char out[256];
			FILE *fp;

			fz_dump_hex(buf, len);
			snprintf(out, sizeof(out), "%s/%s-failure.bin",
				 dir != NULL && dir[0] != '\0' ? dir : "/tmp",
				 fz_prog);
			fp = fopen(out, "wb");
			if (fp != NULL) {
				fwrite(buf, 1, len, fp);
				fclose(fp);
				fprintf(stderr, "  input written to %s\n", out);
			}
			VT_CHECK(0, "pseudo-random input %u broke an invariant",
				 runs);
		}
		if (fz_now_ns() - t0 > FZ_RANDOM_NS)
			break;
	}
	printf("# %s: %u pseudo-random inputs in %.2f s\n", fz_prog, runs,
	       (double)(fz_now_ns() - t0) / 1e9);
	return VT_OK;
}

static const struct vt_case fz_cases[] = {
	VT_CASE(test_corpus),
	VT_CASE(test_random),
	{ 0 },
};

int
main(int argc, char **argv)
{
	char *none[] = { argv[0], NULL };
	const char *slash = strrchr(argv[0], '/');

	fz_prog = slash != NULL ? slash + 1 : argv[0];
	fz_argc = argc;
	fz_argv = argv;
	/* The arguments are corpus paths, not vt_main's case filter. */
	return vt_main(1, none, fz_cases);
}

#endif /* VT_FUZZ_LIBFUZZER */
