# SPDX-License-Identifier: MIT
# tests/cases/output.cmake: the output-survival cases: services, kills, reused descriptors, full disks, exec, thread churn.
case_program(output_prog SOURCES cases/output_prog.c LINK mock_cuda Threads::Threads)
case_program(exit_load SOURCES cases/exit_load.c LINK mock_cuda Threads::Threads)
case_program(signal_calls SOURCES cases/signal_calls.c LINK mock_cuda Threads::Threads)
case_program(signal_step SOURCES cases/signal_step.c LINK mock_cuda Threads::Threads)
case_program(signal_jump SOURCES cases/signal_jump.c LINK mock_cuda Threads::Threads)
case_program(signal_flush SOURCES cases/signal_flush.c LINK mock_cuda Threads::Threads)
case_program(signal_rawfile SOURCES cases/signal_rawfile.c LINK mock_cuda Threads::Threads)
# -fno-plt, as Arch Linux builds everything: execv is called through a GOT slot.
case_program(output_prog_noplt SOURCES cases/output_prog.c LINK mock_cuda Threads::Threads)
target_compile_options(output_prog_noplt PRIVATE -fno-plt)
case_script(output.sh)
set_tests_properties(exit_during_cut_short_trace_flush_never_hangs PROPERTIES TIMEOUT 400)
# Loaded: two busy loops of its own; bounded to about 40 seconds of runs.
set_tests_properties(exit_during_cut_short_trace_flush_never_hangs_under_load PROPERTIES TIMEOUT 200 RUN_SERIAL TRUE)
set_tests_properties(exit_from_a_sigterm_handler_under_load_with_trace_and_summary_never_hangs PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
# About 90 rounds, 40 of which step some 220,000 instructions each.
set_tests_properties(handler_that_jumps_out_of_the_making_of_the_trace_raw_file_leaves_the_file_made PROPERTIES TIMEOUT 600)
