# SPDX-License-Identifier: MIT
# tests/cases/ordinary.cmake: ordinary CUDA programs on the mock: linked against the toolkit's libcudart.so as nvcc -cudart shared links them, run on the mock runtime.
# Linked against the real runtime's file, so its exports are what the loader must find in the
# mock's: a function the mock lacked was "undefined symbol" at start-up.
case_program(ordinary_rt SOURCES cases/ordinary_rt.c LINK ${CUAUDIT_LIBCUDART})
add_dependencies(ordinary_rt mock_cudart mock_cuda)
case_script(ordinary.sh)
set_tests_properties(tests_gpu_programs_built_by_nvcc_run_on_the_mock PROPERTIES
  SKIP_RETURN_CODE 77 TIMEOUT 600)
