# SPDX-License-Identifier: MIT
# tests/cases/readable.cmake: programs and cases for readable output: kernel names, out-parameters, enums, filters, provenance.
case_program(kernels SOURCES cases/kernels.c LINK mock_cudart mock_cuda mockstate
  Threads::Threads)
case_script(readable.sh)
