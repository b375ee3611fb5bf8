#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/run_case.sh: runs one case program on the mock without and with cuaudit, and checks both.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

case $name in
direct_link_lazy_plt_is_intercepted)
  driver_case driver_lazy plt
  for f in cuMemcpyHtoD_v2 cuMemcpyDtoH_v2 cuStreamSynchronize cuLaunchKernel; do
    expect_log 1 "$(call "$f" plt)"
  done
  expect_log 1 'cuMemAlloc_v2\(dptr=0x[0-9a-f]+->0x[0-9a-f]+, bytesize=32\) -> CUDA_SUCCESS'
  expect_log 1 'cuGetErrorName\(error=CUDA_ERROR_OUT_OF_MEMORY, pStr=0x[0-9a-f]+->"CUDA_ERROR_OUT_OF_MEMORY"\) -> CUDA_SUCCESS'
  expect_log 1 'cuGetExportTable\(.*\) -> CUDA_ERROR_INVALID_VALUE'
  ;;
direct_link_bind_now_is_intercepted_at_load)
  driver_case driver_now bindnow
  ;;
ld_bind_now_is_intercepted_at_load)
  export LD_BIND_NOW=1
  driver_case driver_lazy bindnow
  ;;
per_thread_stream_build_reaches_ptds_variants)
  driver_case driver_ptds plt
  for f in cuMemcpyHtoD_v2_ptds cuMemcpyDtoH_v2_ptds cuStreamSynchronize_ptsz cuLaunchKernel_ptsz; do
    expect_log 1 "$(call "$f" plt)"
  done
  expect_log 0 "$(call cuStreamSynchronize plt)"
  expect_out '^mock cuLaunchKernel_ptsz: 1$'
  expect_out '^mock cuLaunchKernel: 0$'
  ;;
dlopen_libcuda_so_1_dlsym_returns_wrappers) ;&
dlopen_libcuda_so_dlsym_returns_wrappers) ;&
dlvsym_returns_wrappers) ;&
helper_library_dlsym_on_programs_behalf_is_intercepted)
  lib=libcuda.so.1; mode=dlsym
  [ "$name" = dlopen_libcuda_so_dlsym_returns_wrappers ] && lib=libcuda.so
  [ "$name" = dlvsym_returns_wrappers ] && mode=dlvsym
  [ "$name" = helper_library_dlsym_on_programs_behalf_is_intercepted ] && mode=helper
  native "$BIN/dlopen_api" "$lib" "$mode"
  audited "$BIN/dlopen_api" "$lib" "$mode"
  same_results
  for f in cuInit cuDeviceGetCount cuMemAlloc cuMemAlloc_v2 cuMemFree_v2 cuStreamSynchronize \
    cuStreamSynchronize_ptsz; do
    expect_log 1 "$(call "$f" dlsym)"
  done
  expect_out 'mock cuMemAlloc=1 cuMemAlloc_v2=1 cuStreamSynchronize=1 _ptsz=1'
  ;;
eight_threads_verbose_log_counts_every_call)
  native "$BIN/threads"
  audited "$BIN/threads"
  same_results
  expect_log 4000 "$(call cuCtxGetCurrent plt)"
  expect_log 8 "$(call cuCtxSetCurrent plt)"
  tids=$(grep -E "$(call cuCtxGetCurrent plt)" log.txt | sed -E 's/.* tid=([0-9]+) .*/\1/' | sort -u | wc -l)
  [ "$tids" -eq 8 ] && pass "calls come from 8 thread ids" || fail "calls from $tids thread ids, expected 8"
  [ ! -s audited.err ] && pass "nothing on stderr" || fail "stderr: $(head -3 audited.err)"
  ;;
child_after_fork_logs_own_pid)
  native "$BIN/fork_exec" "$BIN/no_cuda"
  CUAUDIT_LOG_FILE="$dir/log.%p" audited "$BIN/fork_exec" "$BIN/no_cuda"
  same_results
  files=$(ls log.* 2>/dev/null | wc -l)
  [ "$files" -eq 2 ] && pass "one log file per process" || fail "$files log files, expected 2"
  for f in log.*; do
    pid=${f#log.}
    n=$(grep -c " pid=$pid " "$f"); all=$(grep -c " pid=" "$f")
    [ "$n" -eq "$all" ] && [ "$n" -ge 1 ] && pass "$f holds only pid $pid's $n line(s)" || fail "$f mixes pids"
  done
  expect_log 1 "$(call cuDeviceGetCount plt)" <(cat log.*)
  expect_log 1 "$(call cuInit plt)" <(cat log.*)
  grep -l cuDeviceGetCount log.* | xargs grep -q cuInit && fail "child's call in parent's log" || pass "child's call in its own file"
  ;;
exec_of_program_without_cuda_is_silent_and_keeps_status)
  for level in warn verbose debug; do
    env LD_AUDIT="$AUDIT" CUAUDIT_LOG=$level "$BIN/no_cuda" >out.txt 2>err.txt
    rc=$?
    [ $rc -eq 42 ] && pass "$level: status 42 kept" || fail "$level: status $rc"
    [ ! -s out.txt ] && [ ! -s err.txt ] && pass "$level: silent" || fail "$level: printed $(cat out.txt err.txt | head -3)"
  done
  native "$BIN/fork_exec" "$BIN/no_cuda"
  CUAUDIT_LOG_FILE= audited "$BIN/fork_exec" "$BIN/no_cuda"
  same_results
  [ "$(cat audited.rc)" = 42 ] && pass "exec'd program's status is the process status" || fail "status $(cat audited.rc)"
  ;;
errno_and_out_parameters_are_preserved)
  native "$BIN/driver_lazy"
  audited "$BIN/driver_lazy"
  same_results
  expect_out '^attr=1016 errno after a call that sets it: 11$'
  expect_out '^errno after a call that leaves it: 1234, current is primary: 1$'
  expect_out '^ctx device \(2.0 variant\)=0$'
  expect_out '^ctx device \(13.0 variant\)=100$'
  expect_out '^version=13000 count=1 dev=0 name=cuaudit mock GPU$'
  expect_out '^-6 8 22 36 50 64 78 92 $'
  ;;
bad_CUAUDIT_LOG_value_warns_once_and_runs)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=loud CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  same_results
  expect_log 1 'CUAUDIT_LOG="loud" is not valid; accepted: off, error, warn, info, verbose, debug' audited.err
  expect_log 1 . audited.err
  ;;
bad_CUAUDIT_LOG_FILE_value_warns_once_and_runs)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG_FILE="$dir/log.%q" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 'CUAUDIT_LOG_FILE=.* is not valid; accepted: .*%p is the pid' audited.err
  expect_log + "$(call cuInit plt)" audited.err
  ;;
export_without_prototype_passes_through_counted)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=info audited "$BIN/driver_lazy"
  same_results
  expect_out '^future=209$'
  expect_log 1 'info: pass-through cuMockFutureCall: 1 calls'
  ;;
info_level_lists_libraries_and_binding_counts)
  native "$BIN/dlopen_api" libcuda.so.1 dlsym
  CUAUDIT_LOG=info audited "$BIN/dlopen_api" libcuda.so.1 dlsym
  same_results
  expect_log 1 "info: libcuda loaded: .*/mock/libcuda.so.1"
  expect_log 1 "info: .*/mock/libcuda.so.1: bindings plt=0 bindnow=0 dlsym=7 procaddress=0 got=0 entry=0 passthrough=0 unwrapped=0"
  expect_log 0 "cuInit\("
  ;;
CUAUDIT_LIBCUDA_substitutes_the_driver)
  mkdir -p empty && cp "$MOCK_DIR/libmockstate.so" empty/
  # Only the substitute can satisfy the program's libcuda.so.1.
  LD_LIBRARY_PATH="$dir/empty:$BIN" native "$BIN/driver_lazy"
  [ "$(cat native.rc)" != 0 ] && pass "without a substitute the program cannot start" || fail "program started without libcuda"
  cp native.err no_driver.err
  # The reference: the program run on copy2 directly, whose device name says "(copy2)".
  LD_LIBRARY_PATH="$MOCK_DIR/copy2:$MOCK_DIR" native "$BIN/driver_lazy"
  LD_LIBRARY_PATH="$dir/empty:$BIN" CUAUDIT_LIBCUDA="$MOCK_DIR/copy2/libcuda.so.1" CUAUDIT_LOG=info audited "$BIN/driver_lazy"
  same_results
  expect_out 'name=cuaudit mock GPU \(copy2\)$'
  expect_log 1 "info: loading .*/copy2/libcuda.so.1 in place of libcuda.so.1"
  expect_log 1 "info: libcuda loaded: .*/copy2/libcuda.so.1"
  native "$BIN/driver_lazy"
  CUAUDIT_LIBCUDA=relative/libcuda.so.1 CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  expect_log 1 'CUAUDIT_LIBCUDA="relative/libcuda.so.1" is not valid; accepted: an absolute path' audited.err
  same_results
  ;;
second_copy_of_driver_is_left_unwrapped_and_reached)
  # The program dlopens the first copy; the helper then dlopens the second by path.
  native "$BIN/dlopen_api" "$MOCK_DIR/copy2/libcuda.so.1" two
  CUAUDIT_LOG=info audited "$BIN/dlopen_api" "$MOCK_DIR/copy2/libcuda.so.1" two
  same_results
  expect_out '^first copy: cuaudit mock GPU, second copy: cuaudit mock GPU \(copy2\)$'
  expect_log 1 "info: .*/mock/libcuda.so.1: bindings plt=0 bindnow=0 dlsym=2 procaddress=0 got=0 entry=0 passthrough=0 unwrapped=0"
  expect_log 1 "warning: a second libcuda .*copy2/libcuda.so.1.* calls into the second are not intercepted"
  expect_log 1 "copy2/libcuda.so.1 \(second copy, not intercepted\): bindings plt=0 bindnow=0 dlsym=0 procaddress=0 got=0 entry=0 passthrough=0 unwrapped=2"
  ;;
runtime_calls_and_their_driver_calls_are_logged_nested)
  native "$BIN/runtime_shared"
  audited "$BIN/runtime_shared"
  same_results
  for f in cudaGetDevice cudaMalloc cudaLaunchKernel cudaFree cudaGetDriverEntryPoint cudaGetErrorString; do
    expect_log + "$(call "$f" plt)"
  done
  expect_log 2 "$(call cudaMemcpy plt)"
  # Driver calls made inside runtime calls are one level deeper.
  expect_log 1 "tid=[0-9]+   cuMemAlloc_v2\(dptr=.* procaddress$"
  expect_log 1 "tid=[0-9]+   cuLaunchKernel\(f=.* procaddress$"
  expect_log 1 "tid=[0-9]+   cuMemcpyHtoD_v2\(.* procaddress$"
  expect_log 1 "tid=[0-9]+ cudaMalloc\(devPtr=0x[0-9a-f]+->0x[0-9a-f]+, size=32\) -> cudaSuccess"
  ;;
runtime_lookups_follow_cudart_order_and_are_all_wrapped)
  native "$BIN/runtime_shared"
  CUAUDIT_LOG=debug audited "$BIN/runtime_shared"
  same_results
  grep -E 'cuGetProcAddress(_v2)?\(' log.txt | sed -E 's/.* (cuGetProcAddress(_v2)?)\(symbol=("[^"]*"), .*cudaVersion=([0-9]+), flags=([0-9]+).* ([a-z]+)$/\1 \3 \4 \5 \6/' >lookups.txt
  head -4 lookups.txt >first4.txt
  printf '%s\n' 'cuGetProcAddress_v2 "" 0 0 dlsym' 'cuGetProcAddress_v2 "cuGetProcAddress" 11030 0 dlsym' \
    'cuGetProcAddress_v2 "cuGetProcAddress" 12000 0 dlsym' 'cuGetProcAddress "cuInit" 2000 0 procaddress' >want4.txt
  cmp -s first4.txt want4.txt && pass "probe, self-lookups at 11030 and 12000, then the 4-argument wrapper" || { fail "lookup order"; cat first4.txt; }
  expect_log 1 'debug: lookup "cuGetProcAddress" version 11030 flags 0 result 0: wrapped cuGetProcAddress$'
  expect_log 1 'debug: lookup "cuGetProcAddress" version 12000 flags 0 result 0: wrapped cuGetProcAddress_v2$'
  expect_log 1 'debug: lookup "cuMemcpyHtoD" version 7000 flags 2 result 0: wrapped cuMemcpyHtoD_v2_ptds$'
  expect_log 1 'debug: lookup "cuLaunchKernel" version 4000 flags 0 result 0: wrapped cuLaunchKernel$'
  # 14 made by the runtime itself for its first calls, 54 for the streams, events, copies,
  # pinned memory and graphs of ordinary programs (tests/mock/libcudart.c, load_more), 5 on
  # behalf of cudaGetDriverEntryPoint*.
  expect_log 73 "$(call cuGetProcAddress_v2 procaddress)"
  expect_log 3 'debug: lookup .*: already wrapped'
  expect_log 0 'debug: lookup .*: passed through'

  ;;
per_thread_runtime_reaches_ptds_driver_variants)
  native "$BIN/runtime_ptds"
  audited "$BIN/runtime_ptds"
  same_results
  expect_log 2 "$(call cudaMemcpy_ptds plt)"
  expect_log 1 "$(call cudaLaunchKernel_ptsz plt)"
  expect_log 1 "$(call cuLaunchKernel_ptsz procaddress)"
  expect_log 1 "$(call cuMemcpyHtoD_v2_ptds procaddress)"
  expect_log 0 "$(call cuLaunchKernel procaddress)"
  expect_out '^mock cuLaunchKernel_ptsz: 1$'
  ;;
static_cudart_program_is_intercepted_through_procaddress)
  native "$BIN/runtime_static"
  audited "$BIN/runtime_static"
  same_results
  expect_log 3 "$(call cuGetProcAddress_v2 dlsym)"
  for f in cuMemAlloc_v2 cuLaunchKernel cuMemFree_v2 cuCtxGetDevice cuCtxGetDevice_v2; do
    expect_log + "$(call "$f" procaddress)"
  done
  expect_log 0 "$(call cudaMalloc plt)"
  ;;
entry_points_return_wrappers_matching_version)
  native "$BIN/runtime_shared"
  audited "$BIN/runtime_shared"
  same_results
  expect_out '^cuCtxGetDevice@2000 -> 0, device 0$'
  expect_out '^cuCtxGetDevice@13000 -> 0, device 100$'
  expect_log 1 ' cuCtxGetDevice\(device=0x[0-9a-f]+->[0-9]+\) -> CUDA_SUCCESS [0-9]+ns procaddress$'
  expect_log + ' cuCtxGetDevice_v2\(device=0x[0-9a-f]+->100, ctx=NULL\) -> CUDA_SUCCESS [0-9]+ns procaddress$'
  expect_log 1 '^cuaudit: [0-9.]+ pid=[0-9]+ tid=[0-9]+ cuMemAlloc_v2\(dptr=0x[0-9a-f]+->0x[0-9a-f]+, bytesize=64\) -> CUDA_SUCCESS [0-9]+ns procaddress$'
  ;;
unknown_and_too_old_lookups_pass_through_untouched)
  native "$BIN/runtime_shared"
  CUAUDIT_LOG=debug audited "$BIN/runtime_shared"
  same_results
  expect_out '^entry point cuNoSuchFunction@13000 -> 0, status 1, NULL$'
  expect_out '^entry point cuCtxGetDevice@1000 -> 0, status 2, NULL$'
  # Once by the wrapped cuGetProcAddress_v2 inside, once by the runtime entry point.
  expect_log 2 'debug: lookup "cuNoSuchFunction" version 13000 flags 0 result 0: no pointer$'
  ;;
sixteen_threads_look_up_and_call_at_once)
  native "$BIN/lookup_threads"
  audited "$BIN/lookup_threads"
  same_results
  expect_out '^successes 12800 of 12800; mock cuStreamSynchronize_ptsz 3200, cuStreamSynchronize 0$'
  expect_log 6400 "$(call cuGetProcAddress_v2 dlsym)"
  expect_log 3200 "$(call cuDeviceGetCount procaddress)"
  expect_log 3200 "$(call cuStreamSynchronize_ptsz procaddress)"
  ;;
second_copy_of_runtime_is_left_unwrapped_and_reached)
  native "$BIN/runtime_shared" "$MOCK_DIR/copy2/libcudart.so.13"
  CUAUDIT_LOG=info audited "$BIN/runtime_shared" "$MOCK_DIR/copy2/libcudart.so.13"
  same_results
  expect_out '^first runtime: 0, device 100$'
  expect_out '^second runtime: 0, device 110$'
  expect_log 1 "warning: a second libcudart .*copy2/libcudart.so.13.* not intercepted"
  # Each runtime's 71 pointers from lookups (2 self-lookups, 1 through the 4-argument form,
  # 14 + 54 through the 5-argument one) count: both copies use the one wrapped libcuda.so.1.
  expect_log 1 "info: .*/mock/libcuda.so.1: bindings plt=0 bindnow=0 dlsym=2 procaddress=142 got=0"
  ;;
fno_plt_calls_through_got_are_redirected)
  native "$BIN/got_noplt"
  CUAUDIT_LOG=debug audited "$BIN/got_noplt"
  same_results
  for f in cuInit cuMemAlloc_v2 cuMemFree_v2; do expect_log 1 "$(call "$f" got)"; done
  expect_log 4 "$(call cuDeviceGetCount got)"
  expect_log 0 "$(call cuInit plt)"
  expect_log 1 "debug: bind cuInit \(got\) from \(executable\): wrapped"
  expect_out 'the table holds the same pointer as the taken address: 1$'
  ;;
addresses_taken_in_pie_code_and_tables_are_redirected)
  native "$BIN/got_plt"
  CUAUDIT_LOG=info audited "$BIN/got_plt"
  same_results
  expect_log 1 "info: .*/libcuda.so.1: bindings plt=3 bindnow=0 dlsym=0 procaddress=0 got=[1-9][0-9]* "
  rm -f log.txt
  CUAUDIT_LOG=verbose audited "$BIN/got_plt"
  # Calls go through the PLT; the taken address and both tables through rewritten slots.
  expect_log 1 "$(call cuInit plt)"
  expect_log 4 "$(call cuDeviceGetCount got)"
  ;;
cuaudit_not_first_in_LD_AUDIT_warns_once)
  native "$BIN/driver_lazy"
  env LD_AUDIT="$BIN/libother_audit.so:$AUDIT" "$BIN/driver_lazy" >audited.out 2>audited.err
  echo $? >audited.rc
  same_results
  expect_log 1 'warning: cuaudit is not the first module in LD_AUDIT' audited.err
  expect_log 1 . audited.err
  env LD_AUDIT="$BIN/libother_audit.so:$AUDIT" "$BIN/no_cuda" >out.txt 2>err.txt
  [ ! -s err.txt ] && pass "silent in a process without CUDA" || fail "printed: $(head -2 err.txt)"
  ;;
CUAUDIT_LIBCUDART_substitutes_the_runtime)
  LD_LIBRARY_PATH="$MOCK_DIR/copy2:$MOCK_DIR:$BIN" native "$BIN/runtime_shared"
  CUAUDIT_LIBCUDART="$MOCK_DIR/copy2/libcudart.so.13" CUAUDIT_LOG=debug audited "$BIN/runtime_shared"
  same_results
  expect_out '^cudaGetDevice -> 0, device 110$'
  expect_log 1 "info: loading .*/copy2/libcudart.so.13 in place of libcudart.so.13"
  expect_log + "debug: search libcuda.so.1 \\(as named\\)"
  ;;
summary_counts_are_exact_with_16_threads)
  native "$BIN/lookup_threads"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.%p.json" audited "$BIN/lookup_threads"
  same_results
  "$PYTHON" "$CHECK_JSON" summary s.*.json cuDeviceGetCount:outer cuStreamSynchronize_ptsz:outer \
    cuGetProcAddress_v2:outer >check.txt 2>&1 || { fail "summary JSON: $(tail -2 check.txt)"; }
  expect_log 1 '^cuDeviceGetCount:outer calls=3200 errors=0$' check.txt
  expect_log 1 '^cuStreamSynchronize_ptsz:outer calls=3200 errors=0$' check.txt
  expect_log 1 '^cuGetProcAddress_v2:outer calls=6400 errors=0$' check.txt
  native "$BIN/threads"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/t.json" audited "$BIN/threads"
  same_results
  "$PYTHON" "$CHECK_JSON" summary t.json cuCtxGetCurrent:outer >check2.txt 2>&1 || fail "summary JSON: $(tail -2 check2.txt)"
  expect_log 1 '^cuCtxGetCurrent:outer calls=4000 errors=0$' check2.txt
  ;;
summary_keeps_driver_calls_inside_runtime_calls_apart)
  native "$BIN/runtime_shared"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" audited "$BIN/runtime_shared"
  same_results
  "$PYTHON" "$CHECK_JSON" summary s.json cudaMalloc:outer cuMemAlloc_v2:nested cuMemAlloc_v2:outer \
    cudaGetDriverEntryPointByVersion:outer cuGetProcAddress_v2:nested >check.txt 2>&1 || fail "summary JSON: $(tail -2 check.txt)"
  expect_log 1 '^cudaMalloc:outer calls=1 errors=0$' check.txt
  expect_log 1 '^cuMemAlloc_v2:nested calls=1 errors=0$' check.txt
  expect_log 1 '^cuMemAlloc_v2:outer calls=1 errors=0$' check.txt
  expect_log 1 '^cudaGetDriverEntryPointByVersion:outer calls=4 errors=0$' check.txt
  expect_log 1 '^libraries runtime:[0-9]+ driver:[0-9]+$' check.txt
  ;;
summary_text_table_is_sorted_by_total_time)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY=stderr CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  same_results
  expect_log 1 '^cuaudit summary: calls the application made, pid [0-9]+, total [0-9]+ ns$' audited.err
  expect_log 2 'time%      total_ns     calls  errors     avg_ns     min_ns  median_ns     p99_ns      max_ns  stddev_ns  layer    api' audited.err
  expect_log 1 '^ +[0-9]+\.[0-9]{2} +[0-9]+ +1 +0 +[0-9 ]+ driver   cuInit$' audited.err
  expect_log 1 '^ +[0-9]+\.[0-9]{2} +[0-9]+ +1 +1 +[0-9 ]+ driver   cuGetExportTable$' audited.err
  sed -n '/application made/,/inside other/p' audited.err | grep -E '^ +[0-9]+\.' | awk '{print $2}' >totals.txt
  sort -nr totals.txt | cmp -s - totals.txt && [ -s totals.txt ] && pass "rows sorted by total time" || fail "rows not sorted"
  ;;
trace_is_valid_json_and_runtime_events_enclose_driver_events)
  native "$BIN/runtime_shared"
  CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" audited "$BIN/runtime_shared"
  same_results
  "$PYTHON" "$CHECK_JSON" trace t.json cudaMalloc cuMemAlloc_v2 cudaLaunchKernel cuLaunchKernel >check.txt 2>&1 || fail "trace JSON: $(tail -2 check.txt)"
  expect_log 1 '^cudaMalloc events=1$' check.txt
  expect_log 1 '^cuMemAlloc_v2 events=2$' check.txt
  expect_log 1 '^cuLaunchKernel events=1$' check.txt
  # Each runtime call that reaches the driver encloses those calls: cudaGetDevice, cudaMalloc,
  # 2 cudaMemcpy, cudaLaunchKernel, cudaFree, 5 entry points, and the lazy start's lookups.
  expect_log 1 '^events=[0-9]+ driver_inside_runtime=(1[1-9]|[2-9][0-9])$' check.txt
  grep -q '"name":"cuMemAlloc_v2","cat":"driver","ph":"X",.*"args":{"dptr":"0x[0-9a-f]*","bytesize":32,"result":"CUDA_SUCCESS","binding":"procaddress","depth":1}' t.json \
    && pass "events carry arguments, result, binding and depth (inside cudaMalloc: 1)" || fail "event arguments missing"
  ;;
trace_is_complete_after_return_and_exit_from_a_thread)
  for how in return thread-exit; do
    rm -f t.json
    CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" audited "$BIN/trace_exit" $how
    [ "$(cat audited.rc)" = 0 ] && pass "$how: status 0" || fail "$how: status $(cat audited.rc)"
    "$PYTHON" "$CHECK_JSON" trace t.json cuDeviceGetCount >check.txt 2>&1 || fail "$how: trace JSON: $(tail -2 check.txt)"
    expect_log 1 '^cuDeviceGetCount events=120000$' check.txt
    ls t.json.*.raw >/dev/null 2>&1 && fail "$how: spill file left behind" || pass "$how: spill file removed"
  done
  rm -f t.json t.json.*.raw
  CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" audited "$BIN/trace_exit" _exit
  # Documented: _exit writes no JSON; what was spilled stays in the binary spill file.
  [ ! -e t.json ] && pass "_exit: no JSON written" || fail "_exit wrote a trace"
  ls t.json.*.raw >/dev/null 2>&1 && pass "_exit: the spill file holds what was written out" || fail "_exit: no spill file"
  ;;
memory_limit_is_enforced_across_driver_and_runtime)
  CUAUDIT_LOG=warn CUAUDIT_MEM_LIMIT=1MiB audited "$BIN/hooks_alloc" limit
  cat >want.txt <<'WANT'
cudaMalloc 512KiB -> 0
driver info 0: free 524288 total 1048576; runtime info 0: free 524288 total 1048576
cuMemAlloc 512KiB -> 0
driver info 0: free 0 total 1048576; runtime info 0: free 0 total 1048576
cudaMalloc 1 -> 2
cuMemAlloc 1 -> 2
cudaFree -> 0
driver info 0: free 524288 total 1048576; runtime info 0: free 524288 total 1048576
cuMemAlloc 256KiB -> 0
cudaMalloc 256KiB -> 0
cudaMalloc 1 -> 2
cuMemFree -> 0
cudaMalloc 1 -> 0
WANT
  diff want.txt audited.out >/dev/null && pass "quota enforced and reported through both layers" || { fail "memory limit"; diff want.txt audited.out; }
  native "$BIN/hooks_alloc" limit
  grep -q 'cudaMalloc 1 -> 0' native.out && pass "without the limit the same allocations succeed" || fail "native run"
  ;;
zero_byte_runtime_allocations_are_neither_charged_nor_taken_for_a_full_table)
  # cudaMalloc(&p, 0) succeeds with no address (the runtime's answer, measured on an
  # H200): there is nothing to free, so nothing to track. It was taken for a full table of
  # live allocations: a false warning, after which a real overflow went unsaid.
  native "$BIN/hooks_alloc" zero
  rm -f log.txt
  CUAUDIT_LOG=warn CUAUDIT_MEM_LIMIT=1MiB audited "$BIN/hooks_alloc" zero
  cat >want.txt <<'WANT'
cudaMalloc 0 -> 0 NULL
cudaMallocManaged 0 -> 0 NULL
cudaMalloc 1MiB -> 0
driver info 0: free 0 total 1048576; runtime info 0: free 0 total 1048576
cudaFree -> 0
WANT
  diff want.txt audited.out >/dev/null && pass "zero bytes succeed, uncharged; the quota stays whole" ||
    { fail "zero-byte allocations"; diff want.txt audited.out; }
  grep -q 'tracks at most' log.txt && fail "a false warning: $(grep 'tracks at most' log.txt)" ||
    pass "no warning of a full allocation table"
  ;;
faults_are_injected_on_schedule)
  native "$BIN/hooks_alloc" loop
  CUAUDIT_LOG=warn CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:3;cudaMalloc=cudaErrorMemoryAllocation@after:2' audited "$BIN/hooks_alloc" loop
  for i in 1 2 4 5 7 8; do expect_out "^cuMemAlloc #$i -> 0$"; done
  for i in 3 6 9; do expect_out "^cuMemAlloc #$i -> 2$"; done
  for i in 1 2; do expect_out "^cudaMalloc #$i -> 0$"; done
  for i in 3 4 5; do expect_out "^cudaMalloc #$i -> 2$"; done
  CUAUDIT_LOG=warn CUAUDIT_FAULT='cuMemAlloc_v2=2@every:1' audited "$BIN/hooks_alloc" loop
  [ "$(grep -c 'cuMemAlloc #[0-9] -> 2$' audited.out)" = 9 ] && pass "error by number" || fail "error by number"
  CUAUDIT_LOG=warn CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@prob:0.5,seed:42' audited "$BIN/hooks_alloc" loop
  cp audited.out prob1.out
  CUAUDIT_LOG=warn CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@prob:0.5,seed:42' audited "$BIN/hooks_alloc" loop
  cmp -s prob1.out audited.out && pass "prob with a seed repeats exactly" || fail "prob not deterministic"
  n=$(grep -c 'cuMemAlloc #[0-9] -> 2$' prob1.out)
  [ "$n" -ge 1 ] && [ "$n" -le 8 ] && pass "prob:0.5 failed $n of 9" || fail "prob:0.5 failed $n of 9"
  CUAUDIT_LOG=verbose CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:3' audited "$BIN/hooks_alloc" loop
  expect_log 3 ' cuMemAlloc_v2\(.*\) -> CUDA_ERROR_OUT_OF_MEMORY [0-9]+ns plt skipped$'
  ;;
fault_on_a_function_without_an_error_result_is_refused)
  # cudaGetErrorString returns a string: a "failed" call returned the error number as a
  # pointer, and the program died of SIGSEGV printing it. Only functions that return CUresult
  # or cudaError_t can fail; a fault on another is a configuration error.
  native "$BIN/runtime_shared"
  CUAUDIT_LOG=warn CUAUDIT_FAULT='cudaGetErrorString=cudaErrorInvalidValue@every:1' audited "$BIN/runtime_shared"
  same_results
  expect_log 1 'CUAUDIT_FAULT=.* is not valid; .*cudaGetErrorString returns neither CUresult nor cudaError_t' audited.err
  ;;
bad_values_of_every_variable_warn_once_and_run)
  native "$BIN/driver_lazy"
  n=0
  while IFS=$'\t' read -r var value; do
    case "$var" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    env "$var=$value" LD_AUDIT="$AUDIT" "$BIN/driver_lazy" >audited.out 2>audited.err
    echo $? >audited.rc
    if [ "$(grep -c . audited.err)" = 1 ] && grep -q "^cuaudit: $var=\".*\" is not valid; accepted: " audited.err; then
      pass "$var='$value': one message naming $var and the accepted values"
    else
      fail "$var='$value': $(head -3 audited.err)"
    fi
    cmp -s native.out audited.out && cmp -s native.rc audited.rc && pass "$var='$value': results unchanged" ||
      fail "$var='$value': results changed"
  done <"$CASES_DIR/bad_values.tsv"
  [ "$n" -ge 25 ] && pass "$n bad values checked" || fail "only $n bad values"
  ;;
output_files_never_truncate_foreign_files_or_follow_symlinks)
  native "$BIN/driver_lazy"
  echo precious >victim.txt
  ln -s victim.txt s.json
  echo "not cuaudit's" >t.json
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" audited "$BIN/driver_lazy"
  same_results
  [ "$(cat victim.txt)" = precious ] && pass "symlink target untouched" || fail "symlink followed"
  [ "$(cat t.json)" = "not cuaudit's" ] && pass "foreign file untouched" || fail "foreign file overwritten"
  [ -s s.1.json ] && [ -s t.1.json ] && pass "reports went to s.1.json and t.1.json" || fail "reports missing: $(ls)"
  # An earlier run's: last changed clearly before this process starts (a file changed within
  # the file system's clock lag of its start is kept and numbered instead, the safe side;
  # docs/design.md). The change time counts, so touch -d cannot age it.
  sleep 0.05
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.1.json" audited "$BIN/driver_lazy"
  [ ! -e s.1.1.json ] && "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' s.1.json &&
    pass "cuaudit's own report is rewritten in place" || fail "own report not reused"
  ;;
dt_audit_program_is_audited_without_LD_AUDIT)
  native "$BIN/driver_dtaudit"
  env CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE="$dir/log.txt" "$BIN/driver_dtaudit" >audited.out 2>audited.err
  echo $? >audited.rc
  same_results
  expect_log 1 "$(call cuInit plt)"
  expect_log 1 "$(call cuMemAlloc_v2 plt)"
  ;;
soak_16_threads_summary_and_trace_exact_and_bounded)
  native "$BIN/soak" 16 20000
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" audited "$BIN/soak" 16 20000
  same_results
  "$PYTHON" "$CHECK_JSON" summary s.json cuDeviceGetCount:outer >check.txt 2>&1 || fail "summary: $(tail -2 check.txt)"
  expect_log 1 '^cuDeviceGetCount:outer calls=320000 errors=0$' check.txt
  "$PYTHON" "$CHECK_JSON" trace t.json cuDeviceGetCount >check2.txt 2>&1 || fail "trace: $(tail -2 check2.txt)"
  expect_log 1 '^cuDeviceGetCount events=320000$' check2.txt
  # Resident memory: the trace may hold 1 MiB per live thread. What does not grow with the
  # threads (the module's code, much larger in the sanitizer builds, and the exit-time
  # conversion: a 1 MiB window, the summary's rows, the writers' buffers) is measured by the
  # same run with one thread: 16 MiB over the native run held it in the normal build, and
  # not under UBSan (28 to 36 MiB there, the tree before this bound alike). The 15 threads
  # more may add their 15 MiB of buffers, their statistics and 8 MiB.
  cp audited.err audited16.err
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s1.json" CUAUDIT_TRACE="$dir/t1.json" audited "$BIN/soak" 1 20000
  a1=$(sed -n 's/^peak_rss_kib=//p' audited.err); ah=$(sed -n 's/^peak_rss_kib=//p' audited16.err)
  [ -n "$a1" ] && [ -n "$ah" ] && [ $((ah - a1)) -le $((15 * 1024 + 8192)) ] &&
    pass "peak RSS of 16 threads over one: $((ah - a1)) KiB (bound $((15 * 1024 + 8192)))" ||
    fail "peak RSS with one thread $a1, with 16 threads $ah KiB"
  ;;
example_plugin_counts_launches_per_stream)
  native "$BIN/runtime_shared"
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/launch_counter.so" audited "$BIN/runtime_shared"
  same_results
  expect_log 1 "info: plugin loaded: .*/launch_counter.so"
  # The application's cudaLaunchKernel counts; the cuLaunchKernel inside it does not.
  expect_log 1 "info: plugin launch_counter: stream 0x0: 1 launch$"
  native "$BIN/driver_lazy"
  rm -f log.txt
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/launch_counter.so" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "info: plugin launch_counter: stream 0x[0-9a-f]+: 1 launch$"
  ;;
example_plugin_sums_bytes_copied_per_stream)
  # One plugin file that names no CUDA function: the role "copy" and cuaudit_call_copy.
  native "$BIN/copies"
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/bytes_per_stream.so" audited "$BIN/copies"
  same_results
  grep -q "mock bytes: htod async 2000, dtoh async 300, htod 1 calls" audited.out &&
    pass "the mock moved 2000 + 300 + 10 bytes" || fail "mock counters: $(tail -1 audited.out)"
  expect_log 1 "info: plugin bytes_per_stream: stream 0x[0-9a-f]+: 2000 bytes in 2 copies$"
  expect_log 1 "info: plugin bytes_per_stream: stream 0x[0-9a-f]+: 300 bytes in 1 copy$"
  expect_log 1 "info: plugin bytes_per_stream: stream 0x0: 10 bytes in 1 copy$"
  # The refused copy and the memset are not counted: the totals match the mock's.
  expect_log 1 "info: plugin bytes_per_stream: total: 2310 bytes in 4 copies$"
  ;;
cli_run_sets_the_environment_and_keeps_the_status)
  native "$BIN/driver_lazy"
  "$CLI" run --summary="$dir/s.json" --log=warn -- "$BIN/driver_lazy" >audited.out 2>audited.err
  echo $? >audited.rc
  same_results
  "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' s.json && pass "--summary wrote JSON" || fail "no summary"
  LD_AUDIT="$BIN/libother_audit.so" "$CLI" run --log=info -- "$BIN/driver_lazy" >out.txt 2>err.txt
  grep -q 'not the first module' err.txt && fail "cuaudit not put first: $(head -2 err.txt)" || pass "cuaudit put first in LD_AUDIT"
  "$CLI" run -- "$BIN/no_cuda"; rc=$?
  [ $rc = 42 ] && pass "exit status is the program's" || fail "status $rc"
  "$CLI" run -- "$dir/nonexistent" 2>err.txt; rc=$?
  [ $rc = 127 ] && grep -q 'cannot run' err.txt && pass "missing program: 127" || fail "missing program: $rc"
  "$CLI" run --log=loud -- "$BIN/no_cuda" 2>err.txt; rc=$?
  [ $rc = 2 ] && grep -q -- '--log: CUAUDIT_LOG="loud" is not valid' err.txt && pass "bad option value: 2 and a message" || fail "bad option: $rc"
  "$CLI" run --fault='cuNope=1@every:1' -- "$BIN/no_cuda" 2>err.txt; rc=$?
  [ $rc = 2 ] && grep -q 'unknown ELF name' err.txt && pass "bad fault spec: 2 and why" || fail "bad fault: $rc"
  "$CLI" run "$BIN/no_cuda" 2>/dev/null; [ $? = 42 ] && pass "no -- needed before the program" || fail "without --"
  "$CLI" --help | grep -q '^usage: cuaudit run' && pass "--help" || fail "--help"
  "$CLI" --version | grep -q '^cuaudit [0-9]' && pass "--version" || fail "--version"
  ;;
cli_report_merges_two_processes)
  for i in 1 2; do
    "$CLI" run --summary="$dir/s.%p.json" -- "$BIN/driver_lazy" >/dev/null 2>&1 || fail "run $i"
  done
  "$CLI" report --json="$dir/merged.json" s.*.json >report.txt 2>&1; rc=$?
  [ $rc = 0 ] && pass "report exits 0" || fail "report: $rc $(head -3 report.txt)"
  expect_log 1 '^cuaudit report: 2 processes$' report.txt
  expect_log 1 ' +2 +0 +2  driver +cuInit$' report.txt
  expect_log 2 '^ +[0-9]+ +[0-9]+ +1 +[0-9.]+ [nums]+  .*s\.[0-9]+\.json$' report.txt
  "$PYTHON" - merged.json >merged.txt <<'PY' || fail "merged JSON"
import json, sys
d = json.load(open(sys.argv[1]))
a = [x for x in d["apis"] if x["name"] == "cuInit" and not x["nested"]][0]
print("cuInit", a["calls"], a["processes"], len(d["processes"]))
PY
  expect_log 1 '^cuInit 2 2 2$' merged.txt
  echo '{"not":"a summary"}' >bad.json
  "$CLI" report bad.json >/dev/null 2>err.txt; rc=$?
  [ $rc = 1 ] && grep -q 'not a cuaudit JSON summary' err.txt && pass "a foreign file: 1 and a message" || fail "foreign file: $rc"
  ;;
setuid_program_ignores_audit_from_the_environment)
  # Needs root (to make a setuid-root copy), an unprivileged user and a filesystem without
  # nosuid; exit 77 (skipped) where the machine does not allow it.
  if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then echo "needs root and setpriv"; exit 77; fi
  install -m 0755 "$BIN/driver_lazy" "$dir/suid_prog" && chmod u+s "$dir/suid_prog"
  chmod 0755 "$dir" && chmod o+rx "$WORK" "$(dirname "$WORK")" 2>/dev/null
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  as_nobody env LD_LIBRARY_PATH="$MOCK_DIR" "$dir/suid_prog" >native.out 2>native.err; echo $? >native.rc
  if grep -q 'error while loading' native.err; then
    # AT_SECURE ignores LD_LIBRARY_PATH too: the mock driver cannot be found, as intended.
    rm -f "$dir"/s.json "$dir"/log.txt
    as_nobody env LD_LIBRARY_PATH="$MOCK_DIR" LD_AUDIT="$AUDIT" CUAUDIT_LOG=debug \
      CUAUDIT_LOG_FILE="$dir/log.txt" CUAUDIT_SUMMARY="$dir/s.json" "$dir/suid_prog" >audited.out 2>audited.err
    echo $? >audited.rc
    cmp -s native.rc audited.rc && pass "the same outcome as without LD_AUDIT" || fail "status changed"
    grep -q cuaudit audited.err && fail "cuaudit spoke in a setuid process" || pass "cuaudit silent"
    [ ! -e "$dir/log.txt" ] && [ ! -e "$dir/s.json" ] && pass "no file written" || fail "a file was written"
  else
    echo "the setuid bit had no effect here (nosuid mount?)"; exit 77
  fi
  ;;
exports_match_golden_and_no_pltenter)
  nm -D --defined-only "$AUDIT" | awk '{print $3}' | sed 's/@.*//' | grep -v '^CUAUDIT_' | sort >exports.txt
  if diff -u "$GOLDEN/exports.txt" exports.txt; then pass "exports match tests/golden/exports.txt"; else fail "exports changed"; fi
  grep -qE 'pltenter|pltexit' exports.txt && fail "la_*pltenter/pltexit exported" || pass "no pltenter/pltexit"
  grep -qE '^cua_' exports.txt && fail "wrapper or internal names exported" || pass "no cua_ names exported"
  ;;
no_locale_dependent_libc_in_module)
  deny='^(v?[sfd]?n?printf|v?[sf]?scanf|printf_chk|__.*printf_chk|strto[a-z]*|__strto.*|ato[if]|ato[l]+|is(alpha|alnum|digit|space|upper|lower|print|punct|xdigit|cntrl|graph|blank)|to(upper|lower)|__ctype_.*|strerror.*|setlocale|newlocale|uselocale|localeconv|fopen|fopen64|fdopen|fputs|fwrite|puts|putc|fputc|fflush|perror|malloc|calloc|realloc|free)$'
  nm -D --undefined-only "$AUDIT" | awk '{print $NF}' | sed 's/@.*//' >undefined.txt
  bad=$(grep -E "$deny" undefined.txt)
  [ -z "$bad" ] && pass "no locale-dependent, stdio or heap libc calls in libcuaudit.so" || fail "libcuaudit.so calls: $bad"
  [ -s undefined.txt ] && pass "the check saw $(wc -l <undefined.txt) undefined symbols" || fail "nm found nothing"
  ;;
module_leaves_a_program_room_to_dlopen_a_library_with_1_KiB_of_initial_exec_TLS)
  # An audit module's initial-exec TLS comes out of the static TLS surplus, the same room a
  # program's dlopen of a library with initial-exec TLS needs (glibc 2.36 gives about 1.7
  # KiB; its own test of such dlopens counts on 1152 bytes). Each byte cuaudit takes there is a byte a
  # working program loses: a dlopen that works natively must still work under cuaudit.
  memsz=$(readelf -lW "$AUDIT" | awk '$1 == "TLS" { print $6 }')
  [ -n "$memsz" ] && memsz=$((memsz))
  [ -n "$memsz" ] && [ "$memsz" -le 384 ] && pass "libcuaudit.so's TLS: $memsz bytes, within its 384" ||
    fail "libcuaudit.so's TLS is ${memsz:-unknown} bytes: more than the 384 it may take of the surplus"
  "$BIN/tls_dlopen" "$BIN/libtls_ie_lib.so" >native.txt 2>&1 && pass "natively: $(cat native.txt)" ||
    fail "natively: $(cat native.txt)"
  env LD_AUDIT="$AUDIT" CUAUDIT_SUMMARY=stderr "$BIN/tls_dlopen" "$BIN/libtls_ie_lib.so" >audited.txt 2>audited.err &&
    pass "under cuaudit: $(cat audited.txt)" || fail "under cuaudit: $(cat audited.txt)"
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
