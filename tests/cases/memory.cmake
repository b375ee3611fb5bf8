# SPDX-License-Identifier: MIT
# tests/cases/memory.cmake: the memory limit and fault injection on every allocation path (issue 10).
case_program(memory_paths SOURCES cases/memory_paths.c LINK mock_cuda)
case_script(memory.sh
  fault_on_a_reserved_allocation_gives_the_quota_back
  size_max_allocation_is_refused_and_corrupts_nothing
  every_driver_allocation_path_is_counted_on_its_device
  memory_limit_faults_summary_and_trace_together_are_exact
  success_is_not_a_fault
  secure_process_only_observes
  file_names_expand_environment_variables)
# Names its libraries in the file (DT_RPATH, which dependencies inherit): a setuid copy finds
# the mock although AT_SECURE ignores LD_LIBRARY_PATH.
case_program(memory_secure SOURCES cases/memory_paths.c LINK mock_cuda
  OPTIONS -Wl,--disable-new-dtags -Wl,-rpath,${CMAKE_BINARY_DIR}/mock)
set_tests_properties(secure_process_only_observes PROPERTIES SKIP_RETURN_CODE 77)
