/* SPDX-License-Identifier: MIT */
/* record/callfmt.c: formats an intercepted call (arguments, out-values, result) as the log and the trace print it. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dispatch.h"
#include "process.h"
#include "callfmt.h"
#include "config.h"
#include "kernelnames.h"
#include "out.h"
#include "table.h"


static uint64_t read_scalar(const unsigned char *p, unsigned size, int is_signed)
{
	uint64_t v = 0;

	memcpy(&v, p, size > 8 ? 8 : size);
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~(uint64_t)0 << (size * 8);
	return v;
}

/* An address, in hex; hidden in a setuid or AT_SECURE process, where the caller's stderr
   must not learn the layout of a privileged program. */
static void address(struct cua_buf *b, uint64_t v)
{
	if (cua_cfg.secure)
		cua_buf_str(b, "(hidden)");
	else
		cua_buf_hex(b, v);
}

/* One value: an argument, or the pointee of an out-parameter. Returns 1 when the text is a
   plain number (the trace writes it unquoted). */
static void format_uuid(struct cua_buf *b, const unsigned char *u)
{
	static const char hex[] = "0123456789abcdef";

	for (unsigned i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			cua_buf_char(b, '-');
		cua_buf_char(b, hex[u[i] >> 4]);
		cua_buf_char(b, hex[u[i] & 15]);
	}
}

static int format_value(struct cua_buf *b, const unsigned char *p, unsigned size, unsigned cls,
			int is_signed, unsigned fmt, unsigned names, int deref_strings)
{
	switch (cls) {
	case CUA_CLASS_POINTER: {
		const char *ptr;

		memcpy(&ptr, p, sizeof(ptr));
		if (fmt == CUA_FMT_UUID && ptr) {
			/* The live log only: the caller's 16 bytes, which the driver read too. */
			format_uuid(b, (const unsigned char *)ptr);
			return 0;
		}
		if (fmt == CUA_FMT_STRING && (deref_strings || !ptr))
			cua_buf_quoted(b, ptr, 64);
		else if (!ptr)
			cua_buf_str(b, "NULL");
		else
			address(b, (uint64_t)(uintptr_t)ptr);
		return 0;
	}
	case CUA_CLASS_INTEGER:
	case CUA_CLASS_CHAR:
	case CUA_CLASS_ENUM:
	case CUA_CLASS_BOOL: {
		uint64_t v = read_scalar(p, size, is_signed);
		const char *name = names ? cua_table_enum_name(names, v, size) : NULL;

		if (name) {
			cua_buf_str(b, name);
			return 0;
		}
		if (fmt == CUA_FMT_HEX) {
			address(b, v);
			return 0;
		}
		if (is_signed)
			cua_buf_i64(b, (int64_t)v);
		else
			cua_buf_u64(b, v);
		return 1;
	}
	case CUA_CLASS_REAL:
		cua_buf_str(b, "<real>");
		return 0;
	case CUA_CLASS_RECORD:
		if (fmt == CUA_FMT_UUID && size == 16) {
			format_uuid(b, p);
			return 0;
		}
		if (fmt == CUA_FMT_DIM3 && size == 12) {
			uint32_t xyz[3];

			memcpy(xyz, p, sizeof(xyz));
			cua_buf_char(b, '(');
			cua_buf_u64(b, xyz[0]);
			cua_buf_char(b, ',');
			cua_buf_u64(b, xyz[1]);
			cua_buf_char(b, ',');
			cua_buf_u64(b, xyz[2]);
			cua_buf_char(b, ')');
			return 0;
		}
		/* fall through */
	default:
		cua_buf_str(b, "{...}");
		return 0;
	}
}

/* PX, PY, PZ as (x,y,z). */
static void format_xyz(struct cua_buf *b, const struct cua_arg_desc *a, const void *args)
{
	cua_buf_char(b, '(');
	for (unsigned k = 0; k < 3; k++) {
		const unsigned char *p = (const unsigned char *)args + a[k].offset;

		if (k)
			cua_buf_char(b, ',');
		if (a[k].is_signed)
			cua_buf_i64(b, (int64_t)read_scalar(p, a[k].size, 1));
		else
			cua_buf_u64(b, read_scalar(p, a[k].size, 0));
	}
	cua_buf_char(b, ')');
}

int cua_callfmt_out_kept(unsigned id, unsigned i)
{
	const struct cua_arg_desc *a = &cua_api[id].args[i];

	if (!a->out || a->out_size > 2 * sizeof(uint64_t))
		return 0;
	return a->out_cls == CUA_CLASS_RECORD ? a->out_fmt == CUA_FMT_DIM3 || a->out_fmt == CUA_FMT_UUID
					      : a->out_cls != CUA_CLASS_REAL && a->out_size <= 8;
}

int cua_callfmt_out_value(const struct cuaudit_call *c, unsigned i, uint64_t out[2])
{
	const struct cua_arg_desc *a = &cua_api[c->id].args[i];
	const void *ptr;

	if (!c->args || !cua_callfmt_out_kept(c->id, i))
		return 0;
	/* Only after a call that succeeded: it accepted the pointer, so reading it is safe. */
	if (!cua_table_succeeded(c))
		return 0;
	memcpy(&ptr, (const char *)c->args + a->offset, sizeof(ptr));
	if (!ptr)
		return 0;
	out[0] = out[1] = 0;
	memcpy(out, ptr, a->out_size);
	return 1;
}

int cua_callfmt_arg_value(struct cua_buf *b, const struct cuaudit_call *c, unsigned i,
			     const uint64_t *out, int deref_strings)
{
	const struct cua_arg_desc *a = &cua_api[c->id].args[i];
	const unsigned char *p = (const unsigned char *)c->args + a->offset;

	if (a->fmt == CUA_FMT_XYZ && i + 2 < cua_api[c->id].nargs) {
		format_xyz(b, a, c->args);
		return 0;
	}
	if (!out)
		/* Strings the trace copied into its record; a UUID is read only in the live log. */
		return format_value(b, p, a->size, a->cls, a->is_signed,
				    a->fmt == CUA_FMT_UUID && !deref_strings ? CUA_FMT_AUTO : a->fmt,
				    a->out ? 0 : a->names, 1);
	return format_value(b, (const unsigned char *)out, a->out_size, a->out_cls, a->out_signed,
			    a->out_fmt, a->names, deref_strings);
}

static void format_arg(struct cua_buf *b, const struct cuaudit_call *c, unsigned i)
{
	uint64_t out[2];

	cua_callfmt_arg_value(b, c, i, NULL, 1);
	if (cua_callfmt_out_value(c, i, out)) {
		cua_buf_str(b, "->");
		cua_callfmt_arg_value(b, c, i, out, 1);
	}
}

static void format_result(struct cua_buf *b, const struct cua_api_desc *d, uint64_t r)
{
	const char *name;

	switch (d->ret) {
	case CUA_RET_CURESULT:
	case CUA_RET_CUDAERROR:
		name = cua_table_result_name(d->layer, (int)r);
		if (name)
			cua_buf_str(b, name);
		else
			cua_buf_i64(b, (int)r);
		return;
	case CUA_RET_VOID:
		cua_buf_str(b, "void");
		return;
	case CUA_RET_PTR:
		address(b, r);
		return;
	default:
		cua_buf_i64(b, (int64_t)r);
		return;
	}
}

void cua_callfmt_args(struct cua_buf *b, const struct cuaudit_call *c)
{
	const struct cua_api_desc *d = &cua_api[c->id];

	for (unsigned i = 0, n = 0; i < d->nargs; i++) {
		if (d->args[i].fmt == CUA_FMT_SKIP)
			continue;
		if (n++)
			cua_buf_str(b, ", ");
		cua_buf_str(b, d->args[i].name);
		cua_buf_char(b, '=');
		format_arg(b, c, i);
	}
}

void cua_callfmt_arg(struct cua_buf *b, const struct cuaudit_call *c, unsigned i)
{
	format_arg(b, c, i);
}

void cua_callfmt_result(struct cua_buf *b, const struct cuaudit_call *c)
{
	format_result(b, &cua_api[c->id], c->result);
}

/* The launched kernel's name, where the registry knows it: readable unless CUAUDIT_DEMANGLE
   is off (demangled at the first line that names it, then kept). */
static const char *kernel_name(const struct cuaudit_call *c)
{
	return cua_kernelnames_readable(cua_kernelnames_of_call(c));
}

size_t cua_callfmt_call(char *out, size_t cap, const struct cuaudit_call *c, uint64_t pid,
			   uint64_t wall_ns)
{
	struct cua_buf b = { out, 0, cap ? cap - 1 : 0, 0, NULL, 0 };

	cua_buf_str(&b, "cuaudit: ");
	cua_buf_u64(&b, wall_ns / 1000000000u);
	cua_buf_char(&b, '.');
	cua_buf_u64_pad(&b, wall_ns % 1000000000u / 1000u, 6);
	cua_buf_str(&b, " pid=");
	cua_buf_u64(&b, pid);
	cua_buf_str(&b, " tid=");
	cua_buf_u64(&b, c->thread_id);
	cua_buf_char(&b, ' ');
	for (unsigned i = 0; i < c->depth && i < 8; i++)
		cua_buf_str(&b, "  ");
	cua_buf_str(&b, c->elf_name);
	cua_buf_char(&b, '(');
	cua_callfmt_args(&b, c);
	if (kernel_name(c)) {
		cua_buf_str(&b, ", kernel_name=");
		cua_buf_quoted(&b, kernel_name(c), 2048);
	}
	cua_buf_str(&b, ") -> ");
	cua_callfmt_result(&b, c);
	cua_buf_char(&b, ' ');
	cua_buf_u64(&b, cua_call_ns(c));
	cua_buf_str(&b, "ns ");
	cua_buf_str(&b, cua_binding_names[c->binding]);
	if (c->binding == CUAUDIT_BIND_ENTRY && c->size > offsetof(struct cuaudit_call, object) &&
	    c->object) {
		/* Which linked-in runtime the call came through. */
		cua_buf_char(&b, '@');
		cua_buf_str(&b, c->object);
	}
	if (c->skipped)
		cua_buf_str(&b, " skipped");
	b.p[b.len++] = '\n';
	return b.len;
}
