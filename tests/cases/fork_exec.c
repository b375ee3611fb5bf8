/* SPDX-License-Identifier: MIT */
/* tests/cases/fork_exec.c: forks a child that keeps calling the driver, then execs a program without CUDA. */
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int main(int argc, char **argv)
{
	int count = 0, status;
	pid_t child;

	CHECK(argc == 2);
	CHECK(cuInit(0) == CUDA_SUCCESS);
	fflush(stdout);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
		printf("child sees %d device(s)\n", count);
		return 0;
	}
	CHECK(waitpid(child, &status, 0) == child);
	printf("child exit status %d\n", WEXITSTATUS(status));
	fflush(stdout);
	/* Whatever argv[1] returns becomes our status: cuaudit must not change it. */
	execl(argv[1], argv[1], (char *)NULL);
	return 127;
}
