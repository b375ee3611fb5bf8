# SPDX-License-Identifier: MIT
# tests/cases/hostile.cmake: issue 19's hostile inputs to the outputs and the readers: damaged raw traces, files cuaudit did not write, long and non-ASCII text, long exec chains, repeated and hostile report inputs.
case_script(hostile.sh
  raw_trace_with_a_huge_block_length_converts_and_ends
  raw_trace_records_with_lying_lengths_are_skipped_whole
  no_output_replaces_or_appends_to_a_file_cuaudit_did_not_write
  long_metrics_labels_give_whole_rows_promtool_accepts
  utf8_command_line_of_any_length_stays_valid_json_and_text
  exec_of_itself_110_times_keeps_every_image_summary
  report_counts_one_process_once_and_escapes_terminal_controls)
