# SPDX-License-Identifier: MIT
# tests/cases/compute.cmake: a compute share per group, against the mock GPU's timeline.
case_program(compute_prog SOURCES cases/compute_prog.c LINK mock_cuda)
case_script(compute.sh)
case_program(compute_edges SOURCES cases/compute_edges.c LINK mock_cuda mockstate Threads::Threads)
