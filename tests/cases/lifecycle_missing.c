/* SPDX-License-Identifier: MIT */
/* tests/cases/lifecycle_missing.c: the dependency that lifecycle_probe's library needs and the case hides, so its dlopen fails. */
__attribute__((visibility("default"))) int missing_dep_value(void)
{
	return 7;
}
