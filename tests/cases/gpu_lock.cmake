# SPDX-License-Identifier: MIT
# tests/cases/gpu_lock.cmake: GPU timing under hostile timing: signal handlers and exit inside the hook, a fork while another thread is inside it, a device reset, captures kept open and abandoned.
case_program(gpu_lock SOURCES cases/gpu_lock.c LINK mock_cuda mockstate Threads::Threads)
case_script(gpu_lock.sh)
case_program(gpu_lock_step SOURCES cases/gpu_lock_step.c LINK mock_cuda Threads::Threads)
