# SPDX-License-Identifier: MIT
# tests/cases/report.cmake: the `cuaudit report` tests: its reader and merge as a unit test, and the command's cases.
add_executable(unit_report unit/test_report.c ${CMAKE_SOURCE_DIR}/cli/json.c
  ${CMAKE_SOURCE_DIR}/cli/summaries.c ${CMAKE_SOURCE_DIR}/api/table.c ${GEN_DIR}/cua_gen_table.c
  ${CMAKE_SOURCE_DIR}/base/fmt.c)
add_dependencies(unit_report cuaudit_gen)
target_include_directories(unit_report PRIVATE ${CMAKE_SOURCE_DIR}/cli ${CUAUDIT_INCLUDES})
target_include_directories(unit_report SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(unit_report PRIVATE
  SCHEMA_PATH="${CMAKE_SOURCE_DIR}/docs/summary-schema.json")
target_link_libraries(unit_report PRIVATE PkgConfig::CMOCKA m)
add_test(NAME unit_report COMMAND unit_report)
set_tests_properties(unit_report PROPERTIES LABELS unit)

case_script(report.sh)
