# SPDX-License-Identifier: MIT
# tests/cases/nvtx.cmake: the program's NVTX ranges: a program on the toolkit's header-only NVTX v3, a second injection library to chain to.
case_program(nvtx_prog SOURCES cases/nvtx_prog.c LINK mock_cuda Threads::Threads ${CMAKE_DL_LIBS})
add_library(nvtx_fake_tool SHARED cases/nvtx_fake_tool.c)
set_target_properties(nvtx_fake_tool PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN}
  SKIP_BUILD_RPATH TRUE C_VISIBILITY_PRESET hidden)
target_include_directories(nvtx_fake_tool SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
add_dependencies(nvtx_prog cuaudit_nvtx nvtx_fake_tool)
case_script(nvtx.sh)
# bench/nvtx.sh's program: N push/pop pairs.
case_program(nvtx_pairs SOURCES ${CMAKE_SOURCE_DIR}/bench/nvtx_pairs.c LINK ${CMAKE_DL_LIBS})
# The legacy libnvToolsExt.so.1 (the toolkit's NVTX built to export its API) and programs
# that reach it through the PLT (lazy), bind-now slots, and dlsym.
add_library(nvtx_legacy SHARED cases/nvtx_legacy_lib.c)
set_target_properties(nvtx_legacy PROPERTIES OUTPUT_NAME nvToolsExt SOVERSION 1
  LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN} SKIP_BUILD_RPATH TRUE)
target_include_directories(nvtx_legacy SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(nvtx_legacy PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
case_program(nvtx_legacy_lazy SOURCES cases/nvtx_legacy_prog.c
  LINK nvtx_legacy mock_cuda Threads::Threads OPTIONS -Wl,-z,lazy)
case_program(nvtx_legacy_now SOURCES cases/nvtx_legacy_prog.c
  LINK nvtx_legacy mock_cuda Threads::Threads OPTIONS -Wl,-z,now)
case_program(nvtx_legacy_dlsym SOURCES cases/nvtx_legacy_prog.c
  LINK mock_cuda Threads::Threads ${CMAKE_DL_LIBS} DEFS VIA_DLSYM)
add_dependencies(nvtx_legacy_dlsym nvtx_legacy cuaudit_nvtx nvtx_fake_tool)
# Kernels and calls of known durations inside ranges: the summary's per-range columns.
case_program(nvtx_gpu_prog SOURCES cases/nvtx_gpu_prog.c LINK mock_cuda mockstate)
add_dependencies(nvtx_gpu_prog cuaudit_nvtx)
