# SPDX-License-Identifier: MIT
# tests/cases/memgroup.cmake: a memory quota shared by a group of processes.
case_program(memgroup_prog SOURCES cases/memgroup_prog.c LINK mock_cuda ${CMAKE_DL_LIBS})
case_program(memgroup_nvml SOURCES cases/memgroup_nvml.c LINK mock_nvml)
case_script(memgroup.sh)
