# SPDX-License-Identifier: MIT
# tests/cases/demangle.cmake: the module's C++ demangler against libstdc++'s on real names (its unit test is tests/unit/test_demangle.c).
case_program(demangle_differential SOURCES cases/demangle_differential.c
  ${CMAKE_SOURCE_DIR}/base/demangle.c LINK ${CMAKE_DL_LIBS})
target_include_directories(demangle_differential PRIVATE ${CMAKE_SOURCE_DIR}/base)
case_script(demangle.sh)
set_tests_properties(demangler_reads_real_kernel_names_as_cxa_demangle_does
  demangler_reads_libstdcxx_exports_as_cxa_demangle_does PROPERTIES SKIP_RETURN_CODE 77)
case_program(small_stack_names SOURCES cases/small_stack_names.c LINK mock_cudart mock_cuda
  Threads::Threads)
