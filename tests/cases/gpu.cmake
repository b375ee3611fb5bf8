# SPDX-License-Identifier: MIT
# tests/cases/gpu.cmake: GPU timing (CUAUDIT_GPU_TIME) on the mock driver's deterministic events.
case_program(gpu_time SOURCES cases/gpu_time.c LINK mock_cuda mockstate)
case_program(gpu_runtime SOURCES cases/gpu_runtime.c LINK mock_cudart mockstate)
# Loads the driver with dlopen and unloads it, again and again.
case_program(gpu_reload SOURCES cases/gpu_reload.c LINK ${CMAKE_DL_LIBS})
case_script(gpu.sh)
# A plugin built as a plugin author would: public headers only.
add_library(gpu_plugin MODULE cases/gpu_plugin.c)
add_dependencies(gpu_plugin cuaudit_headers)
target_include_directories(gpu_plugin PRIVATE ${CUAUDIT_STAGED_INCLUDE})
target_include_directories(gpu_plugin SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_target_properties(gpu_plugin PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN})
