/* SPDX-License-Identifier: MIT */
/* hooks/fault/fault_config.c: CUAUDIT_FAULT, the fault hook's variable: its parser and its message. */
#include <string.h>
#include "fault_config.h"
#include "fmt.h"
#include "table.h"

/* A result name of the layer, or a number from 0 to 2^31-1: CUresult and cudaError_t are
   enums of non-negative values, so a negative number is no error the program could know
   (-1 was taken, and cuInit returned it). 0 is refused by the caller, with its own reason. */
static int parse_error_value(const char *s, size_t n, unsigned layer, int *out)
{
	const char *p = s;
	uint64_t v;

	if (cua_table_result_value(layer, s, n, out) == 0)
		return 0;
	if (cua_config_parse_u64(&p, &v) != 0 || (size_t)(p - s) != n || v > 0x7fffffff)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_one_fault(const char *s, size_t len, struct cua_fault *f, char *why,
			   unsigned cap)
{
	const char *end = s + len, *eq = memchr(s, '=', len), *at = memchr(s, '@', len);
	char name[128];
	int id;

	if (!eq || !at || at < eq)
		return cua_config_fail_why(why, cap, "expected NAME=ERROR@MODE in ", s, len);
	if ((size_t)(eq - s) >= sizeof(name))
		return cua_config_fail_why(why, cap, "name too long in ", s, len);
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = '\0';
	id = cua_table_find(name);
	if (id < 0)
		return cua_config_fail_why(why, cap, "unknown ELF name ", s, (size_t)(eq - s));
	/* Only a status can say "failed": skipped, a function that returns a pointer, a count or
	   nothing would hand the program the error number as its value (a string at address 1). */
	if (cua_api[id].ret != CUA_RET_CURESULT && cua_api[id].ret != CUA_RET_CUDAERROR) {
		char what[sizeof(name) + 64];
		struct cua_buf b = CUA_BUF(what);

		cua_buf_str(&b, name);
		cua_buf_str(&b, " returns neither CUresult nor cudaError_t: it cannot fail");
		return cua_config_fail_why(why, cap, "", what, b.len < sizeof(what) ? b.len : 0);
	}
	f->id = (unsigned)id;
	if (parse_error_value(eq + 1, (size_t)(at - eq - 1), cua_api[id].layer, &f->error) != 0)
		return cua_config_fail_why(why, cap, eq[1] == '-' || (eq[1] >= '0' && eq[1] <= '9')
					   ? "ERROR must be a result name of the function's layer or a "
					     "number from 1 to 2147483647, not "
					   : "unknown error for this layer: ", eq + 1,
					   (size_t)(at - eq - 1));
	/* Success skips the call and leaves its out-parameters unset: no fault at all. */
	if (f->error == 0)
		return cua_config_fail_why(why, cap, "ERROR must be an error, not success: ", eq + 1,
					   (size_t)(at - eq - 1));
	const char *p = at + 1;
	if (strncmp(p, "every:", 6) == 0) {
		f->mode = CUA_FAULT_EVERY;
		p += 6;
		if (cua_config_parse_u64(&p, &f->n) != 0 || f->n == 0)
			return cua_config_fail_why(why, cap, "every:N needs N >= 1 in ", s, len);
	} else if (strncmp(p, "after:", 6) == 0) {
		f->mode = CUA_FAULT_AFTER;
		p += 6;
		if (cua_config_parse_u64(&p, &f->n) != 0)
			return cua_config_fail_why(why, cap, "after:N needs a number in ", s, len);
	} else if (strncmp(p, "prob:", 5) == 0) {
		f->mode = CUA_FAULT_PROB;
		p += 5;
		if (cua_config_parse_fraction_ppb(&p, &f->prob_ppb) != 0)
			return cua_config_fail_why(why, cap, "prob:P needs 0 <= P <= 1 in ", s, len);
	} else {
		return cua_config_fail_why(why, cap, "mode must be every:N, after:N or prob:P in ", s, len);
	}
	if (p < end && strncmp(p, ",seed:", 6) == 0) {
		p += 6;
		if (cua_config_parse_u64(&p, &f->seed) != 0)
			return cua_config_fail_why(why, cap, "seed:S needs a number in ", s, len);
	}
	if (p != end)
		return cua_config_fail_why(why, cap, "unexpected text in ", s, len);
	return 0;
}

int cua_fault_config_parse(const char *s, struct cua_fault_config *cfg, char *why, unsigned cap)
{
	struct cua_fault faults[CUA_MAX_FAULTS];
	unsigned n = 0;

	if (!*s)
		return cua_config_fail_why(why, cap, "empty", "", 0);
	for (const char *next = s; next;) {
		size_t len;

		s = next;
		next = cua_config_list_item(s, ';', &len);
		if (n == CUA_MAX_FAULTS)
			return cua_config_fail_why(why, cap, "more than 16 specs", "", 0);
		memset(&faults[n], 0, sizeof(faults[n]));
		if (parse_one_fault(s, len, &faults[n], why, cap) != 0)
			return -1;
		n++;
	}
	memcpy(cfg->faults, faults, sizeof(faults[0]) * n);
	cfg->nfaults = n;
	return 0;
}

void cua_fault_config_load(struct cua_fault_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			   int secure)
{
	const char *v = get("CUAUDIT_FAULT");
	char why[256];

	memset(cfg, 0, sizeof(*cfg));
	if (v && cua_fault_config_parse(v, cfg, why, sizeof(why)) != 0) {
		char accepted[512];
		struct cua_buf b = CUA_BUF(accepted);

		cua_buf_str(&b, "ELF_NAME=ERROR@every:N, @after:N or @prob:P[,seed:S], separated by"
				" ';', with ERROR a result name or a positive number (");
		cua_buf_str(&b, why);
		cua_buf_char(&b, ')');
		accepted[b.len < sizeof(accepted) ? b.len : sizeof(accepted) - 1] = '\0';
		cua_config_bad_value(diag, "CUAUDIT_FAULT", v, accepted, "No fault is injected.");
	}
	/* In a secure process cuaudit only observes: a fault would change what it does. */
	if (secure)
		cfg->nfaults = 0;
}
