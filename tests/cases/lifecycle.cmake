# SPDX-License-Identifier: MIT
# tests/cases/lifecycle.cmake: programs and cases of the library lifecycle: dlclose and reload, failed loads, dlopened GOT slots, races with a load.
case_program(lifecycle_reload SOURCES cases/lifecycle_reload.c LINK ${CMAKE_DL_LIBS})
case_program(lifecycle_race SOURCES cases/lifecycle_race.c LINK Threads::Threads ${CMAKE_DL_LIBS})
case_program(lifecycle_loads SOURCES cases/lifecycle_loads.c LINK ${CMAKE_DL_LIBS})
case_program(lifecycle_runtime SOURCES cases/lifecycle_runtime.c LINK ${CMAKE_DL_LIBS})
add_dependencies(lifecycle_runtime mock_cudart)

function(lifecycle_library name dir)
  add_library(${name} SHARED ${ARGN})
  set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${dir} SKIP_BUILD_RPATH TRUE)
  target_include_directories(${name} SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
endfunction()
# -fno-plt: every call to the driver goes through a GOT slot; the tables are data relocations.
lifecycle_library(lifecycle_refs ${CASE_BIN} cases/lifecycle_refs.c)
target_compile_options(lifecycle_refs PRIVATE -fno-plt)
target_link_libraries(lifecycle_refs PRIVATE mock_cuda)
# No DT_NEEDED on the driver: its references stay undefined until something provides them.
lifecycle_library(lifecycle_lazyref ${CASE_BIN} cases/lifecycle_lazyref.c)
# The probe's dependency lives where the loader never looks, so the probe's dlopen fails.
lifecycle_library(lifecycle_missing ${CASE_BIN}/hidden cases/lifecycle_missing.c)
lifecycle_library(lifecycle_probe ${CASE_BIN} cases/lifecycle_probe.c)
target_link_libraries(lifecycle_probe PRIVATE lifecycle_missing mock_cuda)
# Undefined "cu" names that are no CUDA functions: never audited.
lifecycle_library(lifecycle_notcuda ${CASE_BIN} cases/lifecycle_notcuda.c)
# A library whose destructor calls the driver through a kept pointer; the program needs the
# driver first, so glibc finalizes (and audits the close of) the driver before that library.
lifecycle_library(lifecycle_late ${CASE_BIN} cases/lifecycle_late.c)
target_link_libraries(lifecycle_late PRIVATE ${CMAKE_DL_LIBS})
case_program(lifecycle_exit SOURCES cases/lifecycle_exit.c LINK mock_cuda lifecycle_late
  OPTIONS -Wl,--no-as-needed)
add_dependencies(lifecycle_loads lifecycle_refs lifecycle_lazyref lifecycle_probe lifecycle_notcuda)
add_dependencies(lifecycle_reload mock_cuda)
add_dependencies(lifecycle_race mock_cuda mock_cudart)

case_script(lifecycle.sh)
set_tests_properties(dt_audit_program_under_LD_AUDIT_logs_every_call_once PROPERTIES SKIP_RETURN_CODE 77)
