# SPDX-License-Identifier: MIT
# tests/cases/trace_ring.cmake: the trace is the same call for call with the live view on and off: many calls, nested calls, more threads than slots, threads alive at exit, signal handlers, a kill, a fork, a profiler range, calls at the edge of the ring's room (the raw file holding call records alone), skipped calls.
case_program(trace_ring_prog SOURCES cases/trace_ring_prog.c LINK mock_cudart mock_cuda mockstate
  Threads::Threads)
# It reads its own live region's head (rt/livefmt.h), as `cuaudit ps` does.
target_include_directories(trace_ring_prog PRIVATE ${CUAUDIT_INCLUDES})
case_script(trace_ring.sh)
