# SPDX-License-Identifier: MIT
# tests/cases/static_runtime.cmake: programs with the runtime linked in, for entry patching (CUAUDIT_STATIC_RUNTIME).
# The same program twice, registering device code from a constructor as nvcc's code does:
# once with the runtime linked in (nvcc's default), once against the shared mock libcudart.
case_program(static_rt SOURCES cases/runtime_api.c mock/libcudart.c
  LINK helper mockstate Threads::Threads ${CMAKE_DL_LIBS} DEFS MOCK_STATIC_CUDART REGISTER_FATBIN)
target_include_directories(static_rt PRIVATE mock)
case_program(shared_rt SOURCES cases/runtime_api.c LINK mock_cudart helper mockstate
  DEFS REGISTER_FATBIN)
enable_language(ASM)
case_program(static_prologues SOURCES cases/static_prologues.c cases/static_prologues.S)
case_program(static_threads SOURCES cases/static_threads.c mock/libcudart.c
  LINK mockstate Threads::Threads ${CMAKE_DL_LIBS} DEFS MOCK_STATIC_CUDART)
target_include_directories(static_threads PRIVATE mock)
# A shared object with the runtime linked in (as NCCL or a plugin may have).
add_library(static_rt_dso SHARED cases/static_rt_dso.c mock/libcudart.c)
set_target_properties(static_rt_dso PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN}
  SKIP_BUILD_RPATH TRUE C_VISIBILITY_PRESET hidden)
target_include_directories(static_rt_dso PRIVATE mock)
target_include_directories(static_rt_dso SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(static_rt_dso PRIVATE MOCK_STATIC_CUDART MOCK_DEVICE_OFFSET=20)
target_link_libraries(static_rt_dso PRIVATE mockstate Threads::Threads ${CMAKE_DL_LIBS})
case_program(static_rt_dlopen SOURCES cases/static_rt_dlopen.c
  LINK mock_cudart mockstate ${CMAKE_DL_LIBS})

if(CUAUDIT_HAVE_ZYDIS)
  case_script(static_runtime.sh
    static_runtime_calls_are_logged_at_runtime_level_with_identical_results
    static_and_shared_builds_give_the_same_runtime_summary
    static_runtime_is_left_alone_without_CUAUDIT_STATIC_RUNTIME
    static_runtime_messages_obey_CUAUDIT_LOG_levels
    stripped_static_runtime_gets_one_info_message_and_runs
    hostile_prologues_are_refused_and_counted_and_the_rest_patched
    patched_program_forks_execs_and_runs_16_threads_with_exact_counts
    dlopened_object_with_static_runtime_is_patched_before_its_constructors
    static_runtime_beside_shared_libcudart_each_reach_their_own
    writable_code_forbidden_falls_back_to_driver_level_once
    corrupt_section_headers_are_refused_and_the_program_runs)
else()
  # Built without the decoder: the feature is off, says so once, and the program runs.
  case_script(static_runtime.sh static_runtime_without_decoder_warns_once_and_runs)
endif()
case_program(static_noexec SOURCES cases/static_noexec.c)

# The decoder's decisions on byte patterns (needs Zydis, like the feature).
if(CUAUDIT_HAVE_ZYDIS)
  add_executable(unit_x86 unit/test_x86.c ${CMAKE_SOURCE_DIR}/audit/x86.c)
  target_include_directories(unit_x86 PRIVATE ${CMAKE_SOURCE_DIR}/audit)
  target_include_directories(unit_x86 SYSTEM PRIVATE ${ZYDIS_INCLUDE_DIR})
  target_compile_definitions(unit_x86 PRIVATE CUA_HAVE_ZYDIS)
  target_link_libraries(unit_x86 PRIVATE PkgConfig::CMOCKA ${ZYDIS_LIBRARY})
  add_test(NAME unit_x86 COMMAND unit_x86)
  # Not "unit": the sanitizer stage of scripts/test.sh builds a fixed list of unit targets.
  set_tests_properties(unit_x86 PROPERTIES LABELS decoder)
endif()
