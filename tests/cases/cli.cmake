# SPDX-License-Identifier: MIT
# tests/cases/cli.cmake: the cuaudit command as a newcomer meets it: option forms, paths, help against the docs and completion, trace, export, an nvcc program on the mock.
case_script(cli.sh)
set_tests_properties(nvcc_program_with_kernels_runs_on_the_mock_under_cuaudit
  export_and_trace_to_a_full_disk_fail_say_so_and_leave_nothing_cut PROPERTIES
  SKIP_RETURN_CODE 77)
set_tests_properties(cli_export_a_million_calls_in_seconds PROPERTIES TIMEOUT 300)
