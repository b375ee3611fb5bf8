# SPDX-License-Identifier: MIT
# tests/cases/readable.cmake: programs and cases for readable output: kernel names, out-parameters, enums, filters, provenance.
case_program(kernels SOURCES cases/kernels.c LINK mock_cudart mock_cuda mockstate
  Threads::Threads)
case_script(readable.sh
  launches_name_their_kernels_in_log_trace_and_summary
  out_parameters_enums_and_dims_are_readable_in_the_log
  export_table_uuid_is_logged
  trace_numbers_are_numbers_and_process_and_threads_are_named
  include_and_exclude_choose_what_log_and_trace_record
  bad_filter_patterns_warn_once_and_record_everything
  log_errors_logs_only_failed_calls
  summary_says_where_it_came_from)
