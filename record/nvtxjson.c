/* SPDX-License-Identifier: MIT */
/* record/nvtxjson.c: writes the fields of a JSON summary's "nvtx" section, for the module's summary and the command's merged report alike. */
#include "fmt.h"
#include "nvtxjson.h"

#define KEY(key, member) #key,
const char *const cua_nvtx_json_range_keys[CUA_NVTX_JSON_RANGE_N] = { CUA_NVTX_JSON_RANGE(KEY) };
const char *const cua_nvtx_json_gpu_keys[CUA_NVTX_JSON_GPU_N] = { CUA_NVTX_JSON_GPU(KEY) };
const char *const cua_nvtx_json_drop_keys[CUA_NVTX_JSON_DROPS_N] = { CUA_NVTX_JSON_DROPS(KEY) };
#undef KEY

/* ,"key":v for each of n keys; the first without its comma where first is set. */
static void put_fields(struct cua_buf *b, const char *const *keys, const uint64_t *v, unsigned n,
		       int first)
{
	for (unsigned i = 0; i < n; i++) {
		cua_buf_str(b, i || !first ? ",\"" : "\"");
		cua_buf_str(b, keys[i]);
		cua_buf_str(b, "\":");
		cua_buf_u64(b, v[i]);
	}
}

void cua_nvtx_json_drops(struct cua_buf *b, const uint64_t *drops)
{
	cua_buf_str(b, "\"dropped\":{");
	put_fields(b, cua_nvtx_json_drop_keys, drops, CUA_NVTX_JSON_DROPS_N, 1);
	cua_buf_char(b, '}');
}

void cua_nvtx_json_range(struct cua_buf *b, const char *name, const char *domain,
			 const uint64_t *range, const uint64_t *gpu)
{
	cua_buf_str(b, "{\"name\":");
	cua_buf_json_string(b, name);
	cua_buf_str(b, ",\"domain\":");
	cua_buf_json_string(b, domain);
	put_fields(b, cua_nvtx_json_range_keys, range, CUA_NVTX_JSON_RANGE_N, 0);
	if (!gpu)
		return;
	cua_buf_str(b, ",\"gpu\":{");
	put_fields(b, cua_nvtx_json_gpu_keys, gpu, CUA_NVTX_JSON_GPU_N, 1);
	if (gpu[CUA_NVTX_JSON_exact_instances] == gpu[CUA_NVTX_JSON_instances]) {
		cua_buf_str(b, ",\"total_ns\":");
		cua_buf_u64(b, gpu[CUA_NVTX_JSON_total_min_ns]);
	}
	cua_buf_char(b, '}');
}
