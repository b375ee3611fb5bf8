/* SPDX-License-Identifier: MIT */
/* tests/mock/mockstate.h: call counters of the mock CUDA libraries, kept outside them so cuaudit never wraps them. */
#ifndef MOCKSTATE_H
#define MOCKSTATE_H

/* Count one call of an ELF name of a mock library. Thread-safe. */
void mock_count(const char *elf_name);
/* Adds n to a counter of that name (mock_calls reads it back). Thread-safe. */
void mock_add(const char *name, long n);
/* How many times the mock's function of that ELF name has run. */
long mock_calls(const char *elf_name);

/* MOCK_SPIN's busy wait for a call of that ELF name, measured (mock_count calls it). */
void mock_spin(const char *elf_name);

#endif
