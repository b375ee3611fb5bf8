# SPDX-License-Identifier: MIT
# tests/cases/gpu.cmake: GPU timing (CUAUDIT_GPU_TIME, issue 21) on the mock driver's deterministic events.
case_program(gpu_time SOURCES cases/gpu_time.c LINK mock_cuda mockstate)
case_script(gpu.sh
  gpu_time_kernel_and_memory_tables_are_exact_on_the_mock
  gpu_time_shared_start_events_are_exact_while_the_stream_is_busy
  gpu_time_never_records_into_a_capturing_stream_and_times_the_graph
  gpu_time_records_nothing_for_a_faulted_launch
  gpu_time_child_after_fork_reports_only_its_own_work
  gpu_time_exit_with_unfinished_work_is_bounded_and_reported
  gpu_time_pool_exhaustion_is_counted_as_untimed
  gpu_time_sampling_times_one_call_in_n
  gpu_time_summary_json_is_valid
  gpu_time_trace_has_gpu_tracks_and_flow_arrows_from_each_call)
# A plugin built as a plugin author would: public headers only.
add_library(gpu_plugin MODULE cases/gpu_plugin.c)
add_dependencies(gpu_plugin cuaudit_headers)
target_include_directories(gpu_plugin PRIVATE ${CUAUDIT_STAGED_INCLUDE})
target_include_directories(gpu_plugin SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_target_properties(gpu_plugin PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN})
case_script(gpu.sh gpu_time_plugin_receives_every_completed_gpu_record
  gpu_time_metrics_have_busy_seconds_per_device
  gpu_time_report_merges_gpu_tables_across_processes)
