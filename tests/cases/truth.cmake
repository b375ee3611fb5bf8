# SPDX-License-Identifier: MIT
# tests/cases/truth.cmake: every figure cuaudit prints against the mock's own measure of the calls.
case_program(truth_prog SOURCES cases/truth_prog.c LINK mock_cudart mock_cuda mockstate)
# A plugin built as a plugin author would: public headers only.
add_library(spin_plugin MODULE cases/spin_plugin.c)
add_dependencies(spin_plugin cuaudit_headers)
target_include_directories(spin_plugin PRIVATE ${CUAUDIT_STAGED_INCLUDE})
set_target_properties(spin_plugin PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN})
case_script(truth.sh)
