# SPDX-License-Identifier: MIT
# tests/cases/hostile.cmake: hostile inputs to the outputs and the readers: damaged raw traces, files cuaudit did not write, long and non-ASCII text, long exec chains, repeated and hostile report inputs.
case_script(hostile.sh)
