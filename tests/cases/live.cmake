# SPDX-License-Identifier: MIT
# tests/cases/live.cmake: the live view (issue 22): hung calls seen while running, stopped and after a kill; churn, fork, hostile files, reused pids, capture on demand.
case_program(live_prog SOURCES cases/live_prog.c LINK mock_cuda Threads::Threads)
case_script(live.sh
  blocked_sync_shows_in_ps_while_running_stopped_and_after_SIGKILL
  sixty_four_threads_churning_reuse_slots_and_counts_stay_exact
  forked_child_gets_its_own_region_and_both_show_their_blocked_call
  two_processes_of_one_user_are_listed_and_exit_removes_their_files
  hostile_or_damaged_region_files_are_refused_without_crash_or_hang
  reused_pid_is_never_taken_for_the_dead_process
  ctl_starts_and_stops_trace_and_log_within_one_call
  unusable_live_directory_disables_the_view_with_one_message
  live_view_json_and_top_show_the_counts
  exec_gives_the_new_image_a_fresh_region_under_the_same_pid)
