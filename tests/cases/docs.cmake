# SPDX-License-Identifier: MIT
# tests/cases/docs.cmake: every shell example of README.md, docs/*.md and the man pages runs as written.
# The examples' ./app: the ordinary runtime program without its call of a function the mock
# lacks, so that every call succeeds (`cuaudit run -e 3 ./app` exits 0).
case_program(docs_app SOURCES cases/ordinary_rt.c LINK ${CUAUDIT_LIBCUDART} DEFS ORDINARY_NO_GAP)
add_dependencies(docs_app mock_cudart mock_cuda)
case_script(docs.sh)
set_tests_properties(every_doc_example_runs_as_written_on_the_mock PROPERTIES TIMEOUT 600)
