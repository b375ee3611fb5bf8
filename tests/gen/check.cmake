# SPDX-License-Identifier: MIT
# tests/gen/check.cmake: runs the generator on the fixture twice and compares with tests/gen/expected.
foreach(run 1 2)
  file(REMOVE_RECURSE ${OUT}/${run})
  execute_process(
    COMMAND ${PYTHON} ${SRC}/gen/gen.py --cc ${CC} --include ${SRC}/tests/gen/fixture
      --toolkit fixture --policy ${SRC}/tests/gen/fixture/policy.tsv --out ${OUT}/${run}
      --driver-headers cuda.h --driver-typedefs cudaTypedefs.h
      --driver-exports ${SRC}/tests/gen/fixture/exports.txt
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "generator failed on the fixture (${rc})")
  endif()
endforeach()
file(GLOB expected RELATIVE ${SRC}/tests/gen/expected ${SRC}/tests/gen/expected/*)
file(GLOB produced RELATIVE ${OUT}/1 ${OUT}/1/*)
if(NOT "${expected}" STREQUAL "${produced}")
  message(FATAL_ERROR "file sets differ: expected ${expected}, produced ${produced}")
endif()
foreach(f IN LISTS expected)
  foreach(run 1 2)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
      ${SRC}/tests/gen/expected/${f} ${OUT}/${run}/${f} RESULT_VARIABLE diff)
    if(diff)
      message(FATAL_ERROR "${f} differs from tests/gen/expected/${f} (run ${run}); "
        "diff ${SRC}/tests/gen/expected/${f} ${OUT}/${run}/${f}")
    endif()
  endforeach()
endforeach()
message(STATUS "generator output matches tests/gen/expected, byte for byte, twice")
