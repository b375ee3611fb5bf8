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
# Several runtime copies in one process: the executable's own, two objects linked
# at start, one dlopened, closed and reopened. Each copy reports devices from its own offset.
foreach(copy a b c)
  add_library(static_rt_${copy} SHARED cases/static_rt_copy.c mock/libcudart.c)
  set_target_properties(static_rt_${copy} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN}
    SKIP_BUILD_RPATH TRUE C_VISIBILITY_PRESET hidden)
  target_include_directories(static_rt_${copy} PRIVATE mock)
  target_include_directories(static_rt_${copy} SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(static_rt_${copy} PRIVATE mockstate Threads::Threads ${CMAKE_DL_LIBS})
endforeach()
target_compile_definitions(static_rt_a PRIVATE MOCK_STATIC_CUDART COPY_NAME=a MOCK_DEVICE_OFFSET=30)
target_compile_definitions(static_rt_b PRIVATE MOCK_STATIC_CUDART COPY_NAME=b MOCK_DEVICE_OFFSET=40)
target_compile_definitions(static_rt_c PRIVATE MOCK_STATIC_CUDART COPY_NAME=c MOCK_DEVICE_OFFSET=50)
case_program(static_rt_multi SOURCES cases/static_rt_multi.c mock/libcudart.c
  LINK static_rt_a static_rt_b mockstate Threads::Threads ${CMAKE_DL_LIBS}
  DEFS MOCK_STATIC_CUDART MOCK_DEVICE_OFFSET=10)
target_include_directories(static_rt_multi PRIVATE mock)
case_program(static_rt_race SOURCES cases/static_rt_race.c
  LINK static_rt_a static_rt_b mock_cuda Threads::Threads ${CMAKE_DL_LIBS})
case_program(static_rt_many SOURCES cases/static_rt_many.c LINK ${CMAKE_DL_LIBS})
# A signal handler calling through one copy while the interrupted call is between the
# patched entry and its wrapper in another.
case_program(static_rt_signal SOURCES cases/static_rt_signal.c
  LINK static_rt_a static_rt_b Threads::Threads)
# One object with its own runtime opened and closed hundreds of times.
case_program(static_rt_cycle SOURCES cases/static_rt_cycle.c LINK ${CMAKE_DL_LIBS})
# Runtime functions that are forwarding stubs to the shared libcudart (JAX's plugins).
add_library(static_stubs SHARED cases/static_stubs.c cases/static_stubs.S)
set_target_properties(static_stubs PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CASE_BIN}
  SKIP_BUILD_RPATH TRUE C_VISIBILITY_PRESET hidden)
target_include_directories(static_stubs SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(static_stubs PRIVATE ${CMAKE_DL_LIBS})
case_program(static_stubs_main SOURCES cases/static_stubs_main.c LINK static_stubs)

# Built without the decoder the feature is off: its cases are tagged "# when: CUAUDIT_HAVE_ZYDIS"
# in the script, and the one that checks it says so once "# when: !CUAUDIT_HAVE_ZYDIS".
case_script(static_runtime.sh)
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
