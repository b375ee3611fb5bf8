# SPDX-License-Identifier: MIT
# cmake/deb-depends.cmake: a CPack pre-build script: the package's Depends computed by dpkg-shlibdeps from the staged binaries.
# CPack's own CPACK_DEBIAN_PACKAGE_SHLIBDEPS would do the same, but (CMake 3.25) it also adds
# ldconfig calls to postinst and postrm for any library under /usr/lib/*/, which lintian flags
# (maintscript-calls-ldconfig): the module in /usr/lib/cuaudit/ is no system library.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
find_program(CUAUDIT_SHLIBDEPS dpkg-shlibdeps)
if(NOT CUAUDIT_SHLIBDEPS)
  message(WARNING "dpkg-shlibdeps not found: Depends names only ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
  return()
endif()
file(GLOB_RECURSE cuaudit_elf LIST_DIRECTORIES false RELATIVE "${CPACK_TEMPORARY_DIRECTORY}"
  "${CPACK_TEMPORARY_DIRECTORY}/usr/bin/*" "${CPACK_TEMPORARY_DIRECTORY}/usr/lib/*.so")
file(MAKE_DIRECTORY "${CPACK_TEMPORARY_DIRECTORY}/debian" "${CPACK_TEMPORARY_DIRECTORY}/DEBIAN")
file(WRITE "${CPACK_TEMPORARY_DIRECTORY}/debian/control" "")
execute_process(COMMAND ${CUAUDIT_SHLIBDEPS} --ignore-missing-info -O ${cuaudit_elf}
  WORKING_DIRECTORY "${CPACK_TEMPORARY_DIRECTORY}"
  OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
file(REMOVE_RECURSE "${CPACK_TEMPORARY_DIRECTORY}/debian" "${CPACK_TEMPORARY_DIRECTORY}/DEBIAN")
if(NOT rc EQUAL 0 OR NOT out MATCHES "shlibs:Depends=(.*)")
  message(FATAL_ERROR "dpkg-shlibdeps failed (${rc}): ${err}")
endif()
set(computed "${CMAKE_MATCH_1}")
# The glibc floor given by hand stays, unless the binaries already need as much or more.
if(computed MATCHES "libc6 \\(>= ([0-9.]+)\\)" AND CPACK_DEBIAN_PACKAGE_DEPENDS MATCHES "^libc6 \\(>= ([0-9.]+)\\)$")
  set(floor "${CMAKE_MATCH_1}")
  string(REGEX MATCH "libc6 \\(>= ([0-9.]+)\\)" _ "${computed}")
  if(CMAKE_MATCH_1 VERSION_LESS floor)
    string(REPLACE "libc6 (>= ${CMAKE_MATCH_1})" "libc6 (>= ${floor})" computed "${computed}")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${computed}")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, ${computed}")
endif()
message(STATUS "Depends: ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
