/* SPDX-License-Identifier: MIT */
/* tests/mock/mockstate.h: call counters of the mock CUDA libraries, kept outside them so cuaudit never wraps them. */
#ifndef MOCKSTATE_H
#define MOCKSTATE_H

/* Count one call of an ELF name of a mock library. Thread-safe. */
void mock_count(const char *elf_name);
/* How many times the mock's function of that ELF name has run. */
long mock_calls(const char *elf_name);

#endif
