# SPDX-License-Identifier: MIT
# tests/cases/nvtx.cmake: the program's NVTX ranges (issue 38): a program on the toolkit's header-only NVTX v3, a second injection library to chain to.
case_program(nvtx_prog SOURCES cases/nvtx_prog.c LINK mock_cuda Threads::Threads ${CMAKE_DL_LIBS})
add_library(nvtx_fake_tool SHARED cases/nvtx_fake_tool.c)
set_target_properties(nvtx_fake_tool PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN}
  SKIP_BUILD_RPATH TRUE C_VISIBILITY_PRESET hidden)
target_include_directories(nvtx_fake_tool SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
add_dependencies(nvtx_prog cuaudit_nvtx nvtx_fake_tool)
case_script(nvtx.sh)
# bench/nvtx.sh's program: N push/pop pairs.
case_program(nvtx_pairs SOURCES ${CMAKE_SOURCE_DIR}/bench/nvtx_pairs.c LINK ${CMAKE_DL_LIBS})
