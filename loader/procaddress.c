/* SPDX-License-Identifier: MIT */
/* loader/procaddress.c: hands out wrappers for the driver pointers cuGetProcAddress and its kin return. */
#include "dispatch.h"
#include "fmt.h"
#include "index.h"
#include "log.h"
#include "passthrough.h"
#include "procaddress.h"
#include "table.h"

static uint64_t handed_out[2];

uint64_t cua_procaddress_handed_out(unsigned layer)
{
	return layer < 2 ? __atomic_load_n(&handed_out[layer], __ATOMIC_RELAXED) : 0;
}

static void log_lookup(const char *symbol, long version, uint64_t flags, int result,
		       const char *outcome, const char *elf_name)
{
	char line[512];
	struct cua_buf b = CUA_BUF(line);

	cua_log_begin(&b, CUA_LOG_DEBUG);
	cua_buf_str(&b, "lookup ");
	cua_buf_quoted(&b, symbol, 128);
	if (version >= 0) {
		cua_buf_str(&b, " version ");
		cua_buf_i64(&b, version);
	}
	cua_buf_str(&b, " flags ");
	cua_buf_u64(&b, flags);
	cua_buf_str(&b, " result ");
	cua_buf_i64(&b, result);
	cua_buf_str(&b, ": ");
	cua_buf_str(&b, outcome);
	if (elf_name) {
		cua_buf_char(&b, ' ');
		cua_buf_str(&b, elf_name);
	}
	cua_log_end(&b);
}

void cua_procaddress_wrap(const char *symbol, long version, uint64_t flags, void **pointer,
			  int result)
{
	const char *elf_name = NULL;
	int id;

	if (result != 0 || !pointer || !*pointer) {
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result, "no pointer", NULL);
		return;
	}
	if (cua_index_is_wrapper((uintptr_t)*pointer)) {
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result, "already wrapped", NULL);
		return;
	}
	id = cua_index_find((uintptr_t)*pointer, &elf_name);
	if (id >= 0) {
		__atomic_store_n(&cua_real[id], *pointer, __ATOMIC_RELEASE);
		*pointer = (void *)cua_wrapper(CUAUDIT_BIND_PROCADDRESS, id);
		__atomic_add_fetch(&handed_out[cua_api[id].layer], 1, __ATOMIC_RELAXED);
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result, "wrapped", elf_name);
		return;
	}
	if (id == -1) {
		void *stub = cua_pt_get(elf_name, *pointer);

		if (stub)
			*pointer = stub;
		if (cua_log_on(CUA_LOG_DEBUG))
			log_lookup(symbol, version, flags, result,
				   stub ? "no prototype, counting pass-through" : "passed through",
				   elf_name);
		return;
	}
	if (cua_log_on(CUA_LOG_DEBUG))
		log_lookup(symbol, version, flags, result, "passed through, not an export", NULL);
}
