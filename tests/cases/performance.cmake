# SPDX-License-Identifier: MIT
# tests/cases/performance.cmake: the entry-choice and plugin-ABI cases: programs, test plugins built against the generator fixture, and the list of tests.
case_program(entry_of SOURCES cases/entry_of.c LINK ${CMAKE_DL_LIBS})
# bench/run.sh --mock runs it; the sampled-summary case too.
case_program(mock_calls SOURCES ${CMAKE_SOURCE_DIR}/bench/mock_calls.c LINK mock_cudart mock_cuda)
# The same with the runtime linked in: bench/run.sh --mock's entry column (a patched entry,
# CUAUDIT_STATIC_RUNTIME=1) against the shared runtime's cudaGetDevice column.
case_program(mock_calls_static SOURCES ${CMAKE_SOURCE_DIR}/bench/mock_calls.c mock/libcudart.c
  LINK mock_cuda mockstate Threads::Threads ${CMAKE_DL_LIBS} DEFS MOCK_STATIC_CUDART)
target_include_directories(mock_calls_static PRIVATE mock)

# A header tree as a plugin built from another toolkit would see it: the public header with
# the generator fixture's ids and argument structs (tests/gen/expected), and its cuda.h.
set(PERF_FIXTURE_INCLUDE ${CMAKE_CURRENT_BINARY_DIR}/fixture_include)
configure_file(${CMAKE_SOURCE_DIR}/include/cuaudit.h ${PERF_FIXTURE_INCLUDE}/cuaudit/cuaudit.h COPYONLY)
foreach(h cuaudit_ids.h cuaudit_args.h)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/gen/expected/${h} ${PERF_FIXTURE_INCLUDE}/cuaudit/${h} COPYONLY)
endforeach()
function(perf_plugin name)
  add_library(${name} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/cases/perf_plugin.c)
  target_include_directories(${name} BEFORE PRIVATE ${PERF_FIXTURE_INCLUDE}
    ${CMAKE_CURRENT_SOURCE_DIR}/gen/fixture)
  target_compile_definitions(${name} PRIVATE PLUGIN_NAME="${name}" ${ARGN})
  set_target_properties(${name} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN})
endfunction()
perf_plugin(fixture_names)
perf_plugin(fixture_names_timed WANT_TIMES)
perf_plugin(fixture_ids USE_IDS)
perf_plugin(fixture_no_info NO_INFO)
perf_plugin(fixture_other_major OTHER_MAJOR)

# A plugin that registers calls, GPU records and an exit function, then refuses to start.
add_library(plugin_refuses MODULE cases/plugin_refuses.c)
add_dependencies(plugin_refuses cuaudit_headers)
target_include_directories(plugin_refuses PRIVATE ${CUAUDIT_STAGED_INCLUDE})
target_include_directories(plugin_refuses SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_target_properties(plugin_refuses PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN})

case_script(performance.sh)
