/* SPDX-License-Identifier: MIT */
/* api/table.h: the shape of the generated tables that describe each wrapped ELF name. */
#ifndef CUA_TABLE_H
#define CUA_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "cuaudit.h"
#include "cuaudit_ids.h"

/* Argument classes, as __builtin_classify_type reports them (GCC's typeclass.h, also clang). */
enum cua_arg_class {
	CUA_CLASS_INTEGER = 1,
	CUA_CLASS_CHAR = 2,
	CUA_CLASS_ENUM = 3,
	CUA_CLASS_BOOL = 4,
	CUA_CLASS_POINTER = 5,
	CUA_CLASS_REAL = 8,
	CUA_CLASS_RECORD = 12,
	CUA_CLASS_UNION = 13,
};

#define CUA_ARG_CLASS(x) __builtin_classify_type(x)
#define CUA_ARG_SIGNED(x)                                                                      \
	_Generic((x), signed char: 1, short: 1, int: 1, long: 1, long long: 1, default: 0)

enum cua_arg_fmt {
	CUA_FMT_AUTO = 0,   /* pointers in hex, integers in decimal, enums by name */
	CUA_FMT_HEX = 1,    /* an integer that holds an address (CUdeviceptr) */
	CUA_FMT_STRING = 2, /* const char *, printed quoted */
	CUA_FMT_DIM3 = 3,   /* dim3 or uint3, printed (x,y,z) */
	CUA_FMT_XYZ = 4,    /* first of PX, PY, PZ: prints all three as label=(x,y,z) */
	CUA_FMT_SKIP = 5,   /* PY or PZ, printed with its PX */
	CUA_FMT_UUID = 6,   /* a CUuuid, or a pointer to one read in the live log: 8-4-4-4-12 hex */
};

/* An out-parameter: a pointer the call fills in; its value prints after a successful call.
   The pointee's size, class and signedness come from the compiler, like the argument's. */
#define CUA_OUT_ARG(m, fmt) 1, fmt, sizeof(*(m)), CUA_ARG_CLASS(*(m)), CUA_ARG_SIGNED(*(m))
#define CUA_NOT_OUT 0, 0, 0, 0, 0

enum cua_ret_class {
	CUA_RET_CURESULT = 0,
	CUA_RET_CUDAERROR = 1,
	CUA_RET_VOID = 2,
	CUA_RET_PTR = 3,
	CUA_RET_OTHER = 4,
};

struct cua_arg_desc {
	const char *name;
	uint16_t offset;
	uint16_t size;
	uint8_t cls;
	uint8_t is_signed;
	uint8_t fmt;
	uint8_t out;        /* an out-parameter */
	uint8_t out_fmt;    /* how its pointee prints (enum cua_arg_fmt) */
	uint16_t out_size;  /* the pointee's size, class and signedness */
	uint8_t out_cls;
	uint8_t out_signed;
	uint16_t names;     /* 1 + index in cua_enums of the value's enum (the pointee's for an
			       out-parameter); 0 for none */
};

struct cua_enum_value {
	long long value;
	const char *name;
};

struct cua_enum_desc {
	const char *type;
	unsigned count;
	const struct cua_enum_value *values; /* sorted by value */
};

struct cua_api_desc {
	const char *elf_name;
	const char *api_name;
	uint32_t version;
	uint8_t flavour; /* 0 legacy, 1 _ptds, 2 _ptsz */
	uint8_t layer;   /* enum cuaudit_layer */
	uint8_t nargs;
	uint8_t ret;     /* enum cua_ret_class */
	const struct cua_arg_desc *args;
};

struct cua_result_name {
	int value;
	const char *name;
};

extern const struct cua_api_desc cua_api[CUAUDIT_ID_COUNT];
/* How a binding was made, as logs, summaries, traces and reports name it (enum cuaudit_binding). */
extern const char *const cua_binding_names[CUAUDIT_BIND_COUNT];
extern const struct cua_result_name cua_results_driver[];
extern const unsigned cua_results_driver_count;
extern const struct cua_result_name cua_results_runtime[];
extern const unsigned cua_results_runtime_count;
extern const struct cua_enum_desc cua_enums[];
extern const unsigned cua_enums_count;

/* The name of an enum value (names: cua_arg_desc.names), or NULL. A 4-byte value matches on
   its low 32 bits, whatever the enum's signedness. */
const char *cua_table_enum_name(unsigned names, uint64_t value, unsigned size);

/* Returns the id of an ELF name, or -1. Binary search: the ids are in byte order of the names. */
int cua_table_find(const char *elf_name);

/* Finds a result code of a layer by name; returns 0 and sets *value, or -1. */
int cua_table_result_value(unsigned layer, const char *name, size_t len, int *value);

/* Returns the name of a result code of a layer, or NULL. */
const char *cua_table_result_name(unsigned layer, int value);

/* Did a call fail: the one rule every output uses. A function whose generated return class
   is a CUDA status (CUresult, cudaError_t) failed when it returned anything but success; a
   function that returns something else never fails. cua_status_ret[id] is that class as one
   byte, so that the hot path reads no row of the API table: filled by cua_table_init, from
   la_version before any hook starts. Code that runs without la_version (the command, the
   unit tests) asks cua_table_succeeded instead. */
extern uint8_t cua_status_ret[CUAUDIT_ID_COUNT];
void cua_table_init(void);
static inline int cua_failed(unsigned id, int result)
{
	return cua_status_ret[id] & (result != 0);
}
/* Whether a call succeeded: it returned CUDA_SUCCESS or cudaSuccess and was not skipped
   (cua_table_init need not have run). From exit callbacks; every layer may ask. */
struct cuaudit_call;
int cua_table_succeeded(const struct cuaudit_call *c);
/* Bytes of id's argument struct, rounded up to 8: the room a trace record gives it. */
uint16_t cua_table_args_size(unsigned id);
/* A hash of every id's ELF name, argument bytes and argument count: equal in two builds when
   a record written by one can be read by the other. */
uint64_t cua_table_sig(void);

#endif
