/* SPDX-License-Identifier: MIT */
/* hooks/fault/fault_config.h: the fault hook's configuration (CUAUDIT_FAULT), read once in la_version. */
#ifndef CUA_FAULT_CONFIG_H
#define CUA_FAULT_CONFIG_H

#include <stdint.h>
#include "config.h"

#define CUA_MAX_FAULTS 16

enum cua_fault_mode {
	CUA_FAULT_EVERY = 1, /* calls N, 2N, 3N, ... fail */
	CUA_FAULT_AFTER = 2, /* every call after the first N fails */
	CUA_FAULT_PROB = 3,  /* each call fails with probability P, from a seeded sequence */
};

struct cua_fault {
	unsigned id;          /* the API id the spec names */
	int error;            /* the result returned instead of calling the function */
	int mode;             /* enum cua_fault_mode */
	uint64_t n;           /* every:N, after:N */
	uint64_t prob_ppb;    /* prob:P, in parts per 10^9 */
	uint64_t seed;
};

struct cua_fault_config {
	struct cua_fault faults[CUA_MAX_FAULTS];
	unsigned nfaults;
};

/* CUAUDIT_FAULT: "ELF_NAME=ERROR@every:N|after:N|prob:P[,seed:S]" separated by ';'. ERROR is
   a result name of the function's layer (CUDA_ERROR_OUT_OF_MEMORY, cudaErrorMemoryAllocation)
   or a positive number (no result is negative); never success (0, CUDA_SUCCESS, cudaSuccess).
   Returns 0, or -1 with a reason in why. */
int cua_fault_config_parse(const char *s, struct cua_fault_config *cfg, char *why, unsigned whycap);

/* Reads CUAUDIT_FAULT through get. A bad value: one message through diag, naming the variable
   and the accepted values, and no fault. In a secure process (AT_SECURE) none either. */
void cua_fault_config_load(struct cua_fault_config *cfg, cua_getenv_fn get, cua_diag_fn diag,
			   int secure);

#endif
