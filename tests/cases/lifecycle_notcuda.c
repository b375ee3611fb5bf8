/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_notcuda.c: a library whose undefined symbols start with "cu" but name no CUDA function (cuserid, curl_easy_init). */
#include <stdio.h>

char *cuserid(char *string);
void *curl_easy_init(void);

__attribute__((visibility("default"))) int notcuda_run(int with_curl)
{
	/* Never called with 1: curl is not linked, the reference is only to be seen. */
	return with_curl ? curl_easy_init() != NULL : cuserid(NULL) != NULL;
}
