/* SPDX-License-Identifier: MIT */
/* tests/cases/static_rt_cycle.c: opens and closes objects with their own runtime, calling them each time: one N times (every call must reach its copy, the process's mappings must not grow), or three in an overlapping order. */
#include <dlfcn.h>
#include <string.h>
#include "common.h"

#define WARM 10

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, ch;

	CHECK(f != NULL);
	while ((ch = getc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

static void *open_checked(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*check)(int);

	CHECK(h != NULL);
	check = (int (*)(int))dlsym(h, "copy_c_check");
	CHECK(check != NULL && check(10) == 10);
	return h;
}

/* x and y opened, x closed, z opened, y closed and opened again; z and y stay open. */
static int overlap(char **paths)
{
	void *x = open_checked(paths[0]), *y = open_checked(paths[1]);

	CHECK(dlclose(x) == 0);
	open_checked(paths[2]);
	CHECK(dlclose(y) == 0);
	open_checked(paths[1]);
	printf("x, y opened; x closed; z opened; y closed and opened again; each answered\n");
	return 0;
}

int main(int argc, char **argv)
{
	int rounds, warm = 0, end;

	if (argc == 5 && strcmp(argv[1], "overlap") == 0)
		return overlap(argv + 2);

	CHECK(argc == 3 && (rounds = atoi(argv[1])) > WARM);
	for (int i = 0; i < rounds; i++) {
		void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
		int (*check)(int);

		CHECK(h != NULL);
		check = (int (*)(int))dlsym(h, "copy_c_check");
		CHECK(check != NULL && check(10) == 10);
		CHECK(dlclose(h) == 0);
		if (i + 1 == WARM)
			warm = count_maps();
	}
	end = count_maps();
	printf("%d cycles, each call reached its copy; mappings after %d cycles %s after %d\n",
	       rounds, rounds, end <= warm ? "no more than" : "MORE than", WARM);
	if (end > warm)
		fprintf(stderr, "mappings: %d after %d cycles, %d after %d\n", warm, WARM, end, rounds);
	return 0;
}
