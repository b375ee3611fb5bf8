/* SPDX-License-Identifier: MIT */
/* tests/cases/demangle_differential.c: the module's demangler against libstdc++'s __cxa_demangle, name by name, over lists of real names. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"

/* Usage: demangle_differential FLOOR FILE...: each FILE holds one mangled name a line ('#'
   starts a comment). Every name the module's demangler reads must read exactly as
   __cxa_demangle prints it; of the names __cxa_demangle reads, at least FLOOR percent must
   be read (per file). A name only the module reads (libstdc++ fails on some long CUTLASS
   names that LLVM's demangler reads as we do) is counted, not judged. Exit 0 or 1; 77 when
   libstdc++ cannot be loaded. */

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

#define OUT_CAP (1u << 20)

int main(int argc, char **argv)
{
	void *h = dlopen("libstdc++.so.6", RTLD_NOW);
	cxa_demangle_fn cxa = h ? (cxa_demangle_fn)dlsym(h, "__cxa_demangle") : NULL;
	static char line[1 << 20], out[OUT_CAP];
	double floor_pct;
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FLOOR FILE...\n", argv[0]);
		return 2;
	}
	if (!cxa) {
		fprintf(stderr, "no __cxa_demangle: %s\n", dlerror());
		return 77;
	}
	floor_pct = atof(argv[1]);
	for (int i = 2; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		long names = 0, theirs = 0, same = 0, ours_only = 0, differ = 0;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		while (fgets(line, sizeof(line), f)) {
			size_t len = strcspn(line, "\r\n"), n;
			int status = -1;
			char *want;

			line[len] = '\0';
			if (len == 0 || line[0] == '#')
				continue;
			names++;
			want = cxa(line, NULL, NULL, &status);
			if (status != 0) {
				free(want);
				want = NULL;
			}
			n = cua_demangle_into(out, sizeof(out), line, len);
			theirs += want != NULL;
			if (n && want && strcmp(out, want) == 0)
				same++;
			else if (n && !want)
				ours_only++;
			else if (n) {
				if (differ++ < 10)
					printf("DIFFERS %s\n  ours:   %s\n  theirs: %s\n", line, out, want);
			}
			free(want);
		}
		fclose(f);
		{
			double rate = theirs ? 100.0 * (double)same / (double)theirs : 0.0;

			printf("%s: %ld names, __cxa_demangle reads %ld, we read %ld of them the same "
			       "(%.1f%%, floor %.1f%%), %ld differ, %ld only we read\n",
			       argv[i], names, theirs, same, rate, floor_pct, differ, ours_only);
			if (differ || rate < floor_pct || theirs == 0)
				bad = 1;
		}
	}
	return bad;
}
