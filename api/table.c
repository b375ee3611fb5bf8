/* SPDX-License-Identifier: MIT */
/* api/table.c: looks up ELF names and result codes in the generated tables. */
#include <string.h>
#include "cuaudit.h"
#include "table.h"

int cua_table_find(const char *elf_name)
{
	int lo = 0, hi = CUAUDIT_ID_COUNT - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(elf_name, cua_api[mid].elf_name);

		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

static const char *find_result(const struct cua_result_name *t, unsigned n, int value)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (t[mid].value == value)
			return t[mid].name;
		if (t[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *cua_table_result_name(unsigned layer, int value)
{
	if (layer == CUAUDIT_LAYER_DRIVER)
		return find_result(cua_results_driver, cua_results_driver_count, value);
	return find_result(cua_results_runtime, cua_results_runtime_count, value);
}

int cua_table_result_value(unsigned layer, const char *name, size_t len, int *value)
{
	const struct cua_result_name *t = layer == CUAUDIT_LAYER_DRIVER ? cua_results_driver
									: cua_results_runtime;
	unsigned n = layer == CUAUDIT_LAYER_DRIVER ? cua_results_driver_count
						   : cua_results_runtime_count;

	for (unsigned i = 0; i < n; i++) {
		if (strlen(t[i].name) == len && strncmp(t[i].name, name, len) == 0) {
			*value = t[i].value;
			return 0;
		}
	}
	return -1;
}

const char *cua_table_enum_name(unsigned names, uint64_t value, unsigned size)
{
	const struct cua_enum_desc *e;
	unsigned lo = 0, hi;
	long long v = size == 4 ? (long long)(int32_t)(uint32_t)value : (long long)value;

	if (names == 0 || names > cua_enums_count)
		return NULL;
	e = &cua_enums[names - 1];
	hi = e->count;
	/* Unsigned enums may hold values above INT32_MAX: try both readings. */
	for (int pass = 0; pass < 2; pass++) {
		lo = 0;
		hi = e->count;
		while (lo < hi) {
			unsigned mid = lo + (hi - lo) / 2;

			if (e->values[mid].value == v)
				return e->values[mid].name;
			if (e->values[mid].value < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (size != 4 || v >= 0)
			break;
		v = (long long)(uint32_t)value;
	}
	return NULL;
}

CUAUDIT_API const char *cuaudit_api_name(unsigned id)
{
	return id < CUAUDIT_ID_COUNT ? cua_api[id].elf_name : NULL;
}

const char *const cua_binding_names[CUAUDIT_BIND_COUNT] = { "plt", "bindnow", "dlsym",
							    "procaddress", "got", "entry" };

uint8_t cua_status_ret[CUAUDIT_ID_COUNT];

static int returns_status(unsigned id)
{
	return cua_api[id].ret == CUA_RET_CURESULT || cua_api[id].ret == CUA_RET_CUDAERROR;
}

void cua_table_init(void)
{
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++)
		cua_status_ret[id] = (uint8_t)returns_status(id);
}

int cua_table_succeeded(const struct cuaudit_call *c)
{
	return !c->skipped && returns_status(c->id) && (int)c->result == 0;
}

uint16_t cua_table_args_size(unsigned id)
{
	size_t end = 0;

	for (unsigned i = 0; i < cua_api[id].nargs; i++) {
		size_t e = (size_t)cua_api[id].args[i].offset + cua_api[id].args[i].size;

		end = e > end ? e : end;
	}
	return (uint16_t)((end + 7) & ~(size_t)7);
}

uint64_t cua_table_sig(void)
{
	/* The build's: made once (about 200,000 instructions), then read. Threads that make it
	   at once store the same value. */
	static uint64_t sig;
	uint64_t h = __atomic_load_n(&sig, __ATOMIC_RELAXED);

	if (h)
		return h;
	h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (unsigned id = 0; id < CUAUDIT_ID_COUNT; id++) {
		for (const char *s = cua_api[id].elf_name; *s; s++)
			h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
		h = (h ^ cua_table_args_size(id)) * 0x100000001b3ull;
		h = (h ^ cua_api[id].nargs) * 0x100000001b3ull;
	}
	__atomic_store_n(&sig, h, __ATOMIC_RELAXED);
	return h;
}
