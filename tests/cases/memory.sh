#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/memory.sh: the memory limit and faults, exact on every path and under every combination of hooks.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

# want FILE: audited.out must equal FILE exactly.
want() {
  if diff "$1" audited.out >diff.txt; then pass "output as expected ($1)"; else fail "output differs from $1"; cat diff.txt; fi
}

case $name in
fault_on_a_reserved_allocation_gives_the_quota_back)
  native "$BIN/memory_paths" fault_loop
  CUAUDIT_LOG=warn CUAUDIT_MEM_LIMIT=4MiB CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:2' \
    audited "$BIN/memory_paths" fault_loop
  for i in 1 3 5 7 9 11; do expect_out "^cuMemAlloc #$i -> 0$"; done
  for i in 2 4 6 8 10 12; do expect_out "^cuMemAlloc #$i -> 2$"; done
  expect_out '^after the loop +info 0: free 4 MiB total 4 MiB$'
  ;;
size_max_allocation_is_refused_and_corrupts_nothing)
  cat >want.txt <<'WANT'
cuMemAlloc(&p, MiB)                              -> 0
cuMemAlloc(&big, SIZE_MAX)                       -> 2
cuMemAlloc(&big, SIZE_MAX - MiB + 1)             -> 2
cuMemAllocPitch(&big, &pitch, SIZE_MAX / 2, 3, 4) -> 2
cuMemAllocManaged(&big, SIZE_MAX, CU_MEM_ATTACH_GLOBAL) -> 2
after the probes             info 0: free 3 MiB total 4 MiB
cuMemAlloc(&q, 3 * MiB)                          -> 0
full                         info 0: free 0 MiB total 4 MiB
cuMemFree(q)                                     -> 0
cuMemFree(p)                                     -> 0
empty                        info 0: free 4 MiB total 4 MiB
WANT
  CUAUDIT_MEM_LIMIT=4MiB audited "$BIN/memory_paths" huge
  want want.txt
  expect_log 4 ' cuMem(Alloc_v2|AllocPitch_v2|AllocManaged)\(.*\) -> CUDA_ERROR_OUT_OF_MEMORY [0-9]+ns plt skipped$'
  # A write past the quota array once overwrote the clock's scale: a 100 ns call took 628 s.
  slow=$(grep -oE ' [0-9]+ns ' log.txt | tr -dc '0-9\n' | awk '$1 >= 1000000000' | wc -l)
  [ "$(grep -c 'ns plt' log.txt)" -ge 10 ] && [ "$slow" = 0 ] && pass "every duration below 1 s" || fail "$slow durations of 1 s or more"
  ;;
every_driver_allocation_path_is_counted_on_its_device)
  export MOCK_DEVICE_COUNT=2
  native "$BIN/memory_paths" paths
  [ "$(grep -c ' -> 0$' native.out)" = "$(grep -c ' -> ' native.out)" ] && pass "natively every call succeeds" || fail "native run"
  cat >want.txt <<'WANT'
start                        info 0: free 8 MiB total 8 MiB
cuMemAllocPitch(&p[0], &pitch, 1000, 1024, 4)    -> 0
pitch 1024
pitch 1000x1024              info 0: free 7 MiB total 8 MiB
cuMemAllocManaged(&p[1], MiB, CU_MEM_ATTACH_GLOBAL) -> 0
managed 1 MiB                info 0: free 6 MiB total 8 MiB
cuMemAllocAsync(&p[2], MiB, NULL)                -> 0
async 1 MiB                  info 0: free 5 MiB total 8 MiB
cuMemFreeAsync(p[2], NULL)                       -> 0
async freed                  info 0: free 6 MiB total 8 MiB
cuMemAllocAsync(&p[2], 7 * MiB, NULL)            -> 2
async 7 MiB refused          info 0: free 6 MiB total 8 MiB
cuMemPoolCreate(&pool, &props)                   -> 0
cuMemAllocFromPoolAsync(&p[3], 2 * MiB, pool, NULL) -> 0
pool of device 1: 2 MiB      info 0: free 6 MiB total 8 MiB
cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold) -> 0
cuMemPoolTrimTo(pool, 0)                         -> 0
cuDeviceGetDefaultMemPool(&dpool, 1)             -> 0
cuMemAllocFromPoolAsync(&p[4], 3 * MiB, dpool, NULL) -> 2
cuMemCreate(&h, 2 * MiB, &prop, 0)               -> 0
cuMemCreate(&hh, 2 * MiB, &prop, 0)              -> 2
cuMemAddressReserve(&va, 4 * MiB, 0, 0, 0)       -> 0
cuMemMap(va, 2 * MiB, 0, h, 0)                   -> 0
cuMemMap(va + 2 * MiB, 2 * MiB, 0, h, 0)         -> 0
cuMemCreate(&hh, 64 * MiB, &prop, 0)             -> 0
cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)7, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) -> 0
cuIpcOpenMemHandle(&p[5], ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) -> 0
device 1                     info 0: free 0 MiB total 4 MiB
cuMemRelease(imported)                           -> 0
cuIpcCloseMemHandle(p[5])                        -> 0
device 1, imports closed     info 0: free 0 MiB total 4 MiB
cuMemRelease(h)                                  -> 0
device 1, handle released    info 0: free 2 MiB total 4 MiB
cuMemFreeAsync(p[3], NULL)                       -> 0
device 1, pool freed         info 0: free 4 MiB total 4 MiB
device 0                     info 0: free 6 MiB total 8 MiB
cuDeviceTotalMem_v2(&total, 0)                   -> 0
total of device 0: 8 MiB
cuDeviceTotalMem_v2(&total, 1)                   -> 0
total of device 1: 4 MiB
cuMemGetInfo(&f1, &t1)                           -> 0
32-bit info: free 6 MiB total 8 MiB
cuDeviceTotalMem(&t1, 1)                         -> 0
32-bit total of device 1: 4 MiB
cuMemFree(p[0])                                  -> 0
cuMemFree(p[1])                                  -> 0
device 0, all freed          info 0: free 8 MiB total 8 MiB
WANT
  CUAUDIT_LOG=info CUAUDIT_MEM_LIMIT=8MiB,1:4MiB audited "$BIN/memory_paths" paths
  want want.txt
  # The exit report: pitch + managed + async peaked at 3 MiB on device 0; the pool's 2 MiB
  # and one 2 MiB cuMemCreate filled device 1.
  expect_log 1 '^cuaudit: info: memory limit: device 0 quota 8388608 in_use 0 peak 3145728 cuMemCreate_bytes 0 cuMemCreate_calls 0 refused 1$'
  expect_log 1 '^cuaudit: info: memory limit: device 1 quota 4194304 in_use 0 peak 4194304 cuMemCreate_bytes 2097152 cuMemCreate_calls 1 refused 2$'
  ;;
memory_limit_faults_summary_and_trace_together_are_exact)
  native "$BIN/memory_paths" combined
  CUAUDIT_MEM_LIMIT=4MiB CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:3' \
    CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" audited "$BIN/memory_paths" combined
  # 1, 2, 4, 5 fit; 3, 6, 9 are faults; 7 and 8 find the 4 MiB quota full.
  for i in 1 2 4 5; do expect_out "^cuMemAlloc #$i -> 0$"; done
  for i in 3 6 7 8 9; do expect_out "^cuMemAlloc #$i -> 2$"; done
  expect_out '^kept +info 0: free 0 MiB total 4 MiB$'
  expect_out '^all freed +info 0: free 4 MiB total 4 MiB$'
  expect_log 5 ' cuMemAlloc_v2\(.*\) -> CUDA_ERROR_OUT_OF_MEMORY [0-9]+ns plt skipped$'
  expect_log 4 ' cuMemAlloc_v2\(.*\) -> CUDA_SUCCESS [0-9]+ns plt$'
  "$PYTHON" "$CHECK_JSON" summary s.json cuMemAlloc_v2:outer cuMemFree_v2:outer cuMemGetInfo_v2:outer \
    >check.txt 2>&1 || fail "summary JSON: $(tail -2 check.txt)"
  expect_log 1 '^cuMemAlloc_v2:outer calls=9 errors=5$' check.txt
  expect_log 1 '^cuMemFree_v2:outer calls=4 errors=0$' check.txt
  expect_log 1 '^cuMemGetInfo_v2:outer calls=2 errors=0$' check.txt
  "$PYTHON" "$CHECK_JSON" trace t.json cuMemAlloc_v2 cuMemFree_v2 >check2.txt 2>&1 || fail "trace JSON: $(tail -2 check2.txt)"
  expect_log 1 '^cuMemAlloc_v2 events=9$' check2.txt
  expect_log 1 '^cuMemFree_v2 events=4$' check2.txt
  ;;
success_is_not_a_fault)
  native "$BIN/memory_paths" fault_loop
  for spec in 'cuMemAlloc_v2=0@every:1' 'cuMemAlloc_v2=CUDA_SUCCESS@every:1' 'cudaMalloc=cudaSuccess@after:0'; do
    CUAUDIT_LOG=warn CUAUDIT_FAULT="$spec" CUAUDIT_LOG_FILE= audited "$BIN/memory_paths" fault_loop
    if [ "$(grep -c . audited.err)" = 1 ] && grep -q '^cuaudit: CUAUDIT_FAULT=".*" is not valid; accepted: .*must be an error, not success' audited.err; then
      pass "$spec: one message naming CUAUDIT_FAULT"
    else
      fail "$spec: $(head -3 audited.err)"
    fi
    same_results
  done
  ;;
secure_process_only_observes)
  # AT_SECURE needs a setuid program run by another user, and a module the loader trusts
  # there: a bare LD_AUDIT name, found in a system library folder, with the setuid bit.
  if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then echo "needs root and setpriv"; exit 77; fi
  libdir=$(dirname "$(readlink -f "$(ldd /bin/true | awk '/libc\.so/ {print $3}')")")
  mod=libcuaudit-memtest-$$.so
  install -m 4755 "$AUDIT" "$libdir/$mod" || { echo "cannot install into $libdir"; exit 77; }
  trap 'rm -f "$libdir/$mod"' EXIT
  install -m 0755 "$BIN/memory_secure" "$dir/prog" && chmod u+s "$dir/prog"
  chmod 0755 "$dir" && chmod o+rx "$WORK" "$(dirname "$WORK")" 2>/dev/null
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  as_nobody "$dir/prog" fault_loop >native.out 2>native.err; echo $? >native.rc
  as_nobody env LD_AUDIT="$mod" CUAUDIT_LOG=verbose CUAUDIT_MEM_LIMIT=4MiB \
    CUAUDIT_FAULT='cuMemAlloc_v2=CUDA_ERROR_OUT_OF_MEMORY@every:2' "$dir/prog" fault_loop >audited.out 2>audited.err
  echo $? >audited.rc
  grep -q 'libcuda loaded' audited.err || { echo "the module was not loaded in the setuid process"; cat audited.err | head -3; exit 77; }
  same_results
  expect_log 1 '^cuaudit: info: secure mode .*only observes' audited.err
  expect_log 12 ' cuMemAlloc_v2\(dptr=\(hidden\)->\(hidden\), bytesize=1048576\) -> CUDA_SUCCESS [0-9]+ns plt$' audited.err
  expect_log 0 '0x[0-9a-f]' audited.err
  expect_log 0 'skipped' audited.err
  ;;
file_names_expand_environment_variables)
  native "$BIN/memory_paths" combined
  RANK=3 CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.%q{RANK}.json" CUAUDIT_TRACE="$dir/t.%q{RANK}.%q{JOB_ID}x.json" \
    CUAUDIT_LOG_FILE="$dir/log.%q{RANK}.txt" JOB_ID=j7 audited "$BIN/memory_paths" combined
  same_results
  [ -s s.3.json ] && pass "summary named by RANK" || fail "no s.3.json: $(ls)"
  [ -s t.3.j7x.json ] && pass "trace named by RANK and JOB_ID" || fail "no t.3.j7x.json: $(ls)"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/u.%q{RANK}.json" audited "$BIN/memory_paths" combined
  [ -s u..json ] && pass "an unset variable expands to nothing" || fail "no u..json: $(ls)"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/v.%q{1RANK}.json" CUAUDIT_LOG_FILE= audited "$BIN/memory_paths" combined
  same_results
  [ "$(grep -c 'CUAUDIT_SUMMARY=".*" is not valid' audited.err)" = 1 ] && pass "a bad name is one message" || fail "bad name: $(head -2 audited.err)"
  ;;
an_unloaded_drivers_memory_is_given_back_to_the_quota)
  # The driver's memory goes with it when it is unloaded; before, its allocations stayed
  # charged, so a program that loads the driver, allocates 6 KiB and unloads it, four times,
  # ran natively and was refused its second allocation under a 10 KiB quota.
  native "$BIN/memory_reload" 4 6
  expect_out '^unloaded after 4 of 4 rounds$' native.out
  CUAUDIT_LOG=info CUAUDIT_LOG_FILE= CUAUDIT_MEM_LIMIT=10KiB audited "$BIN/memory_reload" 4 6
  [ "$(cat audited.rc)" = 0 ] && pass "status 0" || fail "status $(cat audited.rc)"
  for i in 0 1 2 3; do
    expect_out "^round $i: cuMemAlloc -> 0\$"
    expect_out "^round $i: free 4096 total 10240\$"
  done
  expect_out '^unloaded after 4 of 4 rounds$'
  # The exit report still shows what the last load kept.
  expect_log 1 'memory limit: device 0 quota 10240 in_use 6144 peak 6144 .* refused 0$' audited.err
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
