/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_trace.c: libFuzzer target for the raw trace reader and the record formatter, as `cuaudit trace` and the module at exit run them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fmt.h"
#include "tracefmt.h"
#include "writer.h"

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond))                                                                   \
			abort();                                                               \
	} while (0)

/* What was written is valid UTF-8 with no control byte but the newlines between events. */
static void check_output(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	unsigned char *p;

	CHECK(n >= 0);
	if (n == 0)
		return;
	p = malloc((size_t)n);
	CHECK(p && pread(fd, p, (size_t)n, 0) == n);
	for (off_t i = 0; i < n;) {
		unsigned len = cua_utf8_len(p + i, (size_t)(n - i));

		CHECK(len > 0);
		CHECK(p[i] >= 0x20 || p[i] == '\n');
		CHECK(p[i] != 0x7f && !(p[i] == 0xc2 && len == 2 && p[i + 1] < 0xa0));
		i += len;
	}
	free(p);
}

static int out_file(void)
{
	int fd = memfd_create("fuzz-out", 0);

	CHECK(fd >= 0);
	return fd;
}

/* The input is the raw file after its head: blocks, as the module writes them. */
static void raw(const uint8_t *data, size_t size)
{
	static struct cua_writer w;
	static char window[1 << 16];
	struct cua_raw_head h;
	int fd = memfd_create("fuzz-raw", 0), out = out_file(), limited = 0;
	uint64_t last = 0;

	CHECK(fd >= 0);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CUA_RAW_MAGIC, sizeof(CUA_RAW_MAGIC) - 1);
	h.table_sig = cua_tracefmt_table_sig();
	CHECK(write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h));
	CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	cua_writer_init(&w, out);
	cua_tracefmt_head(&w, 1);
	/* Must return: every loop over the file advances. */
	cua_tracefmt_raw(&w, fd, window, sizeof(window), 1, &limited, &last);
	cua_tracefmt_tail(&w);
	cua_writer_flush(&w);
	CHECK(!w.failed);
	check_output(out);
	close(fd);
	close(out);
}

/* The same bytes as records: an exact-size copy, so a read past the end is ASan's. The
   formatter changes records in place. */
static void records(const uint8_t *data, size_t size)
{
	static struct cua_writer w;
	int out = out_file();
	/* Records are 8-aligned in a block; malloc's alignment keeps the copy so. */
	char *copy = malloc(size ? size : 1);
	size_t used;

	CHECK(copy);
	memcpy(copy, data, size);
	cua_writer_init(&w, out);
	used = cua_tracefmt_records(&w, copy, size, 1);
	CHECK(used <= size);
	cua_writer_flush(&w);
	check_output(out);
	free(copy);
	close(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		cua_tracefmt_init();
		ready = 1;
	}
	raw(data, size);
	/* After a block head, as the seeds begin. */
	if (size >= sizeof(struct cua_block_head))
		records(data + sizeof(struct cua_block_head), size - sizeof(struct cua_block_head));
	records(data, size);
	return 0;
}
