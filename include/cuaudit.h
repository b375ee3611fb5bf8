/* SPDX-License-Identifier: MIT */
/* include/cuaudit.h: cuaudit's public API: layers, binding kinds and the API ids hooks see. */
#ifndef CUAUDIT_H
#define CUAUDIT_H

#include <stddef.h>
#include <stdint.h>

#define CUAUDIT_API __attribute__((visibility("default")))

/* Version of this header; bumped when a struct or enum below grows. */
#define CUAUDIT_VERSION_MAJOR 0
#define CUAUDIT_VERSION_MINOR 1

/* Which library an intercepted function belongs to. */
enum cuaudit_layer {
	CUAUDIT_LAYER_DRIVER = 0,  /* libcuda */
	CUAUDIT_LAYER_RUNTIME = 1, /* libcudart */
};

/* How the program obtained the address it called through. */
enum cuaudit_binding {
	CUAUDIT_BIND_PLT = 0,         /* lazy PLT slot, bound at the first call */
	CUAUDIT_BIND_BINDNOW = 1,     /* PLT slot bound at load (-z now, LD_BIND_NOW) */
	CUAUDIT_BIND_DLSYM = 2,       /* dlsym or dlvsym */
	CUAUDIT_BIND_PROCADDRESS = 3, /* cuGetProcAddress or cudaGetDriverEntryPoint* */
	CUAUDIT_BIND_GOT = 4,         /* GOT or data slot rewritten after relocation */
	CUAUDIT_BIND_COUNT = 5,
};

/* Returns the ELF name of an API id ("cuMemAlloc_v2"), or NULL for an id out of range.
   Thread-safe; the string is static. */
CUAUDIT_API const char *cuaudit_api_name(unsigned id);

#endif
