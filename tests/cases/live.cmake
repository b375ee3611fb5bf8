# SPDX-License-Identifier: MIT
# tests/cases/live.cmake: the live view: hung calls seen while running, stopped and after a kill; churn, fork, hostile files, reused pids, capture on demand.
case_program(live_prog SOURCES cases/live_prog.c LINK mock_cuda mock_cudart Threads::Threads)
# The storm mode reads its own region with the format's header, as `cuaudit ps` does.
target_include_directories(live_prog PRIVATE ${CUAUDIT_INCLUDES})
case_script(live.sh)
# Names only the runtime: the driver is loaded by the runtime's first call.
case_program(live_rt_prog SOURCES cases/live_rt_prog.c LINK mock_cudart Threads::Threads)
# The same with the runtime linked into the executable (nvcc's default), entry-patched.
case_program(live_rt_static SOURCES cases/live_rt_prog.c mock/libcudart.c
  LINK mockstate Threads::Threads ${CMAKE_DL_LIBS} DEFS MOCK_STATIC_CUDART)
target_include_directories(live_rt_static PRIVATE mock)
# Hostile deployments of the live view: cancelled threads, zombies, concurrent ctl, exec,
# other PID namespaces sharing the directory.
case_program(live_adv_prog SOURCES cases/live_adv_prog.c LINK mock_cuda Threads::Threads)
case_script(live_adv.sh)
# The history read like the log, a killed process's death, `run` checking the directory,
# `top` on a terminal and in batch; truth_prog is the truth area's program.
case_script(live_history.sh)
# Far more kernels registered than the name table holds, a few launched (and in a forked child).
case_program(live_names_prog SOURCES cases/live_names_prog.c LINK mock_cuda mock_cudart)
case_script(live_names.sh)
