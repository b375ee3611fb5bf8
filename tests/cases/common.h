/* SPDX-License-Identifier: MIT */
/* tests/cases/common.h: checks shared by the programs that run on the mock, with and without cuaudit. */
#ifndef CASES_COMMON_H
#define CASES_COMMON_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

/* Print the result of a call; the runner compares this output with and without cuaudit. */
#define SHOW(call)                                                                             \
	do {                                                                                   \
		CUresult r_ = (call);                                                          \
		printf("%-48s -> %d\n", #call, (int)r_);                                       \
	} while (0)

#define CHECK(cond)                                                                            \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                        \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

/* The mock's kernels are host functions: out[i] = in[i] * 2 for i < n. */
static inline void mock_double_kernel(void **params, unsigned threads)
{
	int *out = *(int **)params[0];
	const int *in = *(const int **)params[1];
	int n = *(int *)params[2];

	for (int i = 0; i < n && (unsigned)i < threads; i++)
		out[i] = in[i] * 2;
}

#endif
