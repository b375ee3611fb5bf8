/* SPDX-License-Identifier: MIT */
/* tests/cases/no_cuda.c: a program that never touches CUDA and exits with a status of its own. */
int main(void)
{
	return 42;
}
