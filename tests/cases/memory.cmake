# SPDX-License-Identifier: MIT
# tests/cases/memory.cmake: the memory limit and fault injection on every allocation path.
case_program(memory_paths SOURCES cases/memory_paths.c LINK mock_cuda)
case_script(memory.sh)
# Loads the driver with dlopen, keeps an allocation and unloads it, again and again.
case_program(memory_reload SOURCES cases/memory_reload.c LINK ${CMAKE_DL_LIBS})
# Names its libraries in the file (DT_RPATH, which dependencies inherit): a setuid copy finds
# the mock although AT_SECURE ignores LD_LIBRARY_PATH.
case_program(memory_secure SOURCES cases/memory_paths.c LINK mock_cuda
  OPTIONS -Wl,--disable-new-dtags -Wl,-rpath,${CMAKE_BINARY_DIR}/mock)
set_tests_properties(secure_process_only_observes PROPERTIES SKIP_RETURN_CODE 77)
