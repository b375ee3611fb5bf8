#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/readable.sh: readable output: kernel names, out-parameters, enums and dims, trace types and names, filters, errors-only log, provenance.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
CHECK_READABLE="$CASES_DIR/readable_check.py"

# check KIND FILE OUT: runs readable_check.py; its output in OUT, a failure reported.
check() {
  "$PYTHON" "$CHECK_READABLE" "$1" "$2" >"$3" 2>&1 || fail "$1 check of $2: $(tail -2 "$3")"
}
X='0x[0-9a-f]+'

case $name in
launches_name_their_kernels_in_log_trace_and_summary)
  native "$BIN/kernels"
  CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" audited "$BIN/kernels"
  same_results
  # Runtime launches: by host stub (cudaLaunchKernel) and by kernel handle (__cudaLaunchKernel).
  expect_log 1 " cudaLaunchKernel\(func=$X, .*kernel_name=\"scale3\(int\*, int\)\"\) -> cudaSuccess"
  expect_log 2 " __cudaLaunchKernel\(kernel=$X, .*kernel_name=\"add5\(int\*, int\)\"\) -> cudaSuccess"
  # Driver launches: module look-up, library kernel, and a handle only cuFuncGetName names.
  expect_log 1 " cuLaunchKernel\(f=$X, .*kernel_name=\"vec_double\(int\*, int const\*, int\)\"\) -> CUDA_SUCCESS"
  expect_log 1 " cuLaunchKernel\(f=$X, .*kernel_name=\"add_one\(int\*, int\)\"\) -> CUDA_SUCCESS"
  expect_log 2 " cuLaunchKernel\(f=$X, .*kernel_name=\"mock_only\(int\*, int\)\"\) -> CUDA_SUCCESS"
  expect_log 1 " cuLaunchKernel\(f=NULL, [^\"]*\) -> CUDA_ERROR_INVALID_HANDLE"
  # cuaudit's own cuFuncGetName calls: once per handle nobody looked up, never logged.
  expect_log 1 '^mock cuFuncGetName: 3$' audited.err
  expect_log 0 'cuFuncGetName\(' log.txt
  check kernels s.json k.txt
  expect_log 1 '^kernel _Z6scale3Pii launches=1 errors=0 demangled=scale3\(int\*, int\)$' k.txt
  expect_log 1 '^kernel _Z4add5Pii launches=2 errors=0 demangled=add5\(int\*, int\)$' k.txt
  expect_log 1 '^kernel _Z10vec_doublePiPKii launches=1 errors=0 demangled=vec_double\(int\*, int const\*, int\)$' k.txt
  expect_log 1 '^kernel _Z7add_onePii launches=1 errors=0 demangled=add_one\(int\*, int\)$' k.txt
  expect_log 1 '^kernel _Z9mock_onlyPii launches=2 errors=0 demangled=mock_only\(int\*, int\)$' k.txt
  expect_log 1 '^kernel \(unknown\) launches=1 errors=1$' k.txt
  # Launches inside runtime launches are the same kernels: not counted twice.
  expect_log 6 '^kernel ' k.txt
  check trace t.json tr.txt
  expect_log 1 '^launch cudaLaunchKernel kernel=scale3\(int\*, int\) mangled=_Z6scale3Pii$' tr.txt
  expect_log 2 '^launch __cudaLaunchKernel kernel=add5\(int\*, int\) mangled=_Z4add5Pii$' tr.txt
  expect_log 2 '^launch cuLaunchKernel kernel=mock_only\(int\*, int\) mangled=_Z9mock_onlyPii$' tr.txt
  expect_log 1 '^launch cuLaunchKernel kernel=vec_double\(int\*, int const\*, int\) mangled=_Z10vec_doublePiPKii$' tr.txt
  ;;
CUAUDIT_DEMANGLE_off_keeps_kernel_names_as_compiled_everywhere)
  native "$BIN/kernels"
  CUAUDIT_DEMANGLE=off CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" audited "$BIN/kernels"
  same_results
  expect_log 1 " cuLaunchKernel\(f=$X, .*kernel_name=\"_Z10vec_doublePiPKii\"\) -> CUDA_SUCCESS"
  expect_log 0 'kernel_name="[a-z]' log.txt
  check kernels s.json k.txt
  expect_log 1 '^kernel _Z10vec_doublePiPKii launches=1 errors=0$' k.txt
  expect_log 0 'demangled=' k.txt
  check trace t.json tr.txt
  expect_log 1 '^launch cuLaunchKernel kernel=_Z10vec_doublePiPKii$' tr.txt
  expect_log 0 'mangled=' tr.txt
  # The summary table too, and the option of `cuaudit run` that sets it.
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY=stderr CUAUDIT_LOG_FILE= CUAUDIT_DEMANGLE=0 audited "$BIN/kernels"
  expect_log 1 '^ +2 +0 +[0-9]+ +[0-9]+  _Z4add5Pii$' audited.err
  "$CLI" run --demangle off --summary stderr -l warn "$BIN/kernels" >/dev/null 2>run.err
  expect_log 1 '^ +2 +0 +[0-9]+ +[0-9]+  _Z4add5Pii$' run.err
  "$CLI" run --demangle on --summary stderr -l warn "$BIN/kernels" >/dev/null 2>run.err
  expect_log 1 '^ +2 +0 +[0-9]+ +[0-9]+  add5\(int\*, int\)$' run.err
  ;;
out_parameters_enums_and_dims_are_readable_in_the_log)
  native "$BIN/driver_lazy"
  audited "$BIN/driver_lazy"
  same_results
  expect_log 1 " cuDeviceGetCount\(count=$X->1\) -> CUDA_SUCCESS"
  expect_log 1 " cuDriverGetVersion\(driverVersion=$X->13000\) -> CUDA_SUCCESS"
  expect_log 1 " cuDeviceGetAttribute\(pi=$X->1016, attrib=CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev=0\)"
  expect_log 1 " cuStreamCreate\(phStream=$X->$X, Flags=0\) -> CUDA_SUCCESS"
  expect_log 1 " cuCtxGetCurrent\(pctx=$X->$X\) -> CUDA_SUCCESS"
  expect_log 1 " cuMemGetInfo_v2\(free=$X->[0-9]+, total=$X->17179869184\)"
  expect_log 1 " cuGetErrorString\(error=CUDA_ERROR_INVALID_VALUE, pStr=$X->\"invalid argument\"\)"
  expect_log 1 " cuLaunchKernel\(f=$X, grid=\(1,1,1\), block=\(8,1,1\), sharedMemBytes=0, hStream=$X, kernelParams=$X, extra=NULL"
  # A failed call's out-parameter shows the pointer only: the call may not have written it.
  expect_log 1 " cuGetExportTable\(ppExportTable=$X, pExportTableId=[0-9a-f-]+\) -> CUDA_ERROR_INVALID_VALUE"
  native "$BIN/runtime_shared"
  rm -f log.txt
  audited "$BIN/runtime_shared"
  same_results
  expect_log 1 " cudaMemcpy\(dst=$X, src=$X, count=32, kind=cudaMemcpyHostToDevice\) -> cudaSuccess"
  expect_log 1 " cudaMemcpy\(dst=$X, src=$X, count=32, kind=cudaMemcpyDeviceToHost\) -> cudaSuccess"
  expect_log 1 " cudaLaunchKernel\(func=$X, gridDim=\(1,1,1\), blockDim=\(8,1,1\), args=$X, sharedMem=0, stream=NULL"
  expect_log 1 " cudaGetDevice\(device=$X->100\) -> cudaSuccess"
  expect_log + " cudaGetDriverEntryPointByVersion\(symbol=\"cuNoSuchFunction\", funcPtr=$X->NULL, cudaVersion=13000, flags=0, driverStatus=$X->cudaDriverEntryPointSymbolNotFound\)"
  ;;
export_table_uuid_is_logged)
  native "$BIN/kernels"
  audited "$BIN/kernels"
  same_results
  # "cuaudit-mock-tbl" as bytes, in the 8-4-4-4-12 form; the table pointer after the call.
  expect_log 1 " cuGetExportTable\(ppExportTable=$X->$X, pExportTableId=63756175-6469-742d-6d6f-636b2d74626c\) -> CUDA_SUCCESS"
  native "$BIN/driver_lazy"
  rm -f log.txt
  audited "$BIN/driver_lazy"
  expect_log 1 " cuGetExportTable\(ppExportTable=$X, pExportTableId=00000000-0000-0000-0000-000000000000\) -> CUDA_ERROR_INVALID_VALUE"
  ;;
trace_numbers_are_numbers_and_process_and_threads_are_named)
  native "$BIN/kernels"
  CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" audited "$BIN/kernels"
  same_results
  check trace t.json tr.txt
  expect_log 1 '^integer_args=yes$' tr.txt
  expect_log 1 '^process_name=kernels$' tr.txt
  expect_log 1 '^threads=2 named=2$' tr.txt
  expect_log 1 '^thread_name=kern-worker$' tr.txt
  expect_log 1 '^thread_name=kernels$' tr.txt
  grep -q '"name":"cuMemcpyHtoD_v2",.*"args":{"dstDevice":"0x[0-9a-f]*","srcHost":"0x[0-9a-f]*","ByteCount":16,' t.json &&
    pass "sizes are JSON numbers, addresses strings" || fail "cuMemcpyHtoD_v2 arguments not typed"
  grep -q '"name":"cuDeviceGetCount",.*"args":{"count":1,' t.json &&
    pass "an out-parameter shows its value as a number" || fail "cuDeviceGetCount count not 1"
  grep -q '"kind":"cudaMemcpyHostToDevice"' t.json && pass "enums by name" || fail "kind not named"
  grep -q '"gridDim":"(1,1,1)"' t.json && pass "dim3 as (x,y,z)" || fail "gridDim not (x,y,z)"
  # An int that ends its argument struct inside a word (copied by hand, high bytes and all).
  LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/tail.json" "$BIN/live_prog" tail >tail.out 2>&1
  grep -q '"name":"cuDeviceGet",.*"args":{"device":"0x[0-9a-f]*","ordinal":305419896,' tail.json &&
    pass "an int in the struct's last 4 bytes is whole: ordinal 305419896" ||
    fail "cuDeviceGet ordinal: $(grep -o '"name":"cuDeviceGet",[^}]*}' tail.json) $(cat tail.out)"
  ;;
include_and_exclude_choose_what_log_and_trace_record)
  native "$BIN/driver_lazy"
  CUAUDIT_INCLUDE='cuMem*,cuInit' CUAUDIT_EXCLUDE='*Free*,*_ptds' CUAUDIT_SUMMARY="$dir/s.json" \
    CUAUDIT_TRACE="$dir/t.json" audited "$BIN/driver_lazy"
  same_results
  [ ! -s audited.err ] && pass "no message" || fail "stderr: $(head -3 audited.err)"
  expect_log 1 "$(call cuInit plt)"
  expect_log 1 "$(call cuMemAlloc_v2 plt)"
  expect_log 1 "$(call cuMemcpyHtoD_v2 plt)"
  expect_log 0 "$(call cuMemFree_v2 plt)"
  expect_log 0 "$(call cuDeviceGetCount plt)"
  expect_log 5 ' -> [A-Z_]+ [0-9]+ns plt$'
  check trace t.json tr.txt
  expect_log 1 '^calls cuInit cuMemAlloc_v2 cuMemGetInfo_v2 cuMemcpyDtoH_v2 cuMemcpyHtoD_v2$' tr.txt
  # The summary still counts every call.
  check apis s.json ap.txt
  grep -q ' cuDeviceGetCount ' ap.txt && grep -q ' cuMemFree_v2 ' ap.txt &&
    pass "summary counts filtered-out calls" || fail "summary lost calls: $(cat ap.txt)"
  ;;
bad_filter_patterns_warn_once_and_record_everything)
  native "$BIN/driver_lazy"
  CUAUDIT_INCLUDE='cuMem*,cuNoSuch*' CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  same_results
  expect_log 1 'CUAUDIT_INCLUDE="cuMem\*,cuNoSuch\*" is not valid; accepted: .*no ELF name matches cuNoSuch\*.*record every call' audited.err
  expect_log 1 'is not valid' audited.err
  expect_log 1 "$(call cuDeviceGetCount plt)" audited.err
  CUAUDIT_EXCLUDE='cuInit,,' CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  same_results
  expect_log 1 'CUAUDIT_EXCLUDE="cuInit,," is not valid; accepted: .*an empty pattern' audited.err
  expect_log 1 "$(call cuInit plt)" audited.err
  ;;
log_errors_logs_only_failed_calls)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=errors audited "$BIN/driver_lazy"
  same_results
  expect_log 1 ' cuGetExportTable\(.*\) -> CUDA_ERROR_INVALID_VALUE [0-9]+ns plt$'
  expect_log 1 ' -> '
  native "$BIN/kernels"
  rm -f log.txt
  CUAUDIT_LOG=ERRORS audited "$BIN/kernels"
  same_results
  expect_log 1 ' cuLaunchKernel\(f=NULL, .*\) -> CUDA_ERROR_INVALID_HANDLE [0-9]+ns plt$'
  expect_log 1 ' -> '
  ;;
report_prints_kernel_names_as_the_module_does)
  # The command demangles with the module's demangler first: a CUTLASS name that libstdc++'s
  # __cxa_demangle cannot read (and LLVM's reads as ours does) is readable in the report.
  native "$BIN/kernels"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" audited "$BIN/kernels"
  same_results
  "$PYTHON" - s.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
k = [k for k in doc["kernels"] if k["name"] == "_Z4add5Pii"][0]
k["name"] = "_ZN7cutlass6KernelINS_4gemm6kernel9GemmArrayINS1_11threadblock12MmaPipelinedINS1_9GemmShapeILi128ELi128ELi8EEENS_9transform11threadblock22PredicatedTileIteratorINS_11MatrixShapeILi128ELi8EEEdNS_6layout11ColumnMajorELi1ENS8_30PitchLinearStripminedThreadMapINS_16PitchLinearShapeILi128ELi8EEELi256ELi1EEELi1ELb0EEENS9_19RegularTileIteratorISC_dSE_Li1ESI_Li8EEENSA_INSB_ILi8ELi128EEEdNSD_8RowMajorELi0ESI_Li1ELb0EEENSK_ISM_dSN_Li0ESI_Li8EEEdSN_NS4_9MmaPolicyINS1_4warp7MmaSimtINS6_ILi32ELi64ELi8EEEdSE_dSN_dSN_NSR_13MmaSimtPolicyINSB_ILi4ELi8EEENSD_19RowMajorInterleavedILi2EEENS6_ILi2ELi2ELi1EEEEELi1ELNS_16ComplexTransformE0ELS10_0EbEENSB_ILi0ELi0EEES12_Li1EEENS_21NumericArrayConverterIddLi4ELNS_15FloatRoundStyleE2ENS8_6thread14UnaryTransform8IdentityEEES19_bEENS_8epilogue11threadblock8EpilogueIS7_S11_Li1ENS1C_22PredicatedTileIteratorINS1C_26OutputTileOptimalThreadMapINS1C_15OutputTileShapeILi128ELi1ELi4ELi4ELi1EEENS1G_ILi1ELi2ELi4ELi1ELi8EEELi256ELi1ELi64EEEdLb0ELb0EEENS1B_4warp20FragmentIteratorSimtIST_NS1_6thread3MmaINS6_ILi8ELi8ELi1EEEdSE_dSN_dSN_NS_4arch13OpMultiplyAddEbEESN_SZ_EENS1L_16TileIteratorSimtIST_S1S_dSN_SZ_EENS1C_18SharedLoadIteratorINS1J_18CompactedThreadMapEdLi8EEENS1B_6thread17LinearCombinationIdLi1EddLNS1Z_9ScaleType4KindE0ELS15_2EEENSB_ILi0ELi9EEELi1ELi1EEENS4_37GemmBatchedIdentityThreadblockSwizzleEEEEEvNT_6ParamsE"
del k["demangled"]
json.dump(doc, open(sys.argv[1], "w"))
PY
  "$CLI" report --table kernels s.json >r.txt 2>&1
  expect_log 1 '  void cutlass::Kernel<cutlass::gemm::kernel::GemmArray<cutlass::gemm::threadblock::MmaPipelined<cutlass::gemm::GemmShape<128, 128, 8>, .*>::Params\)$' r.txt
  expect_log 1 '  scale3\(int\*, int\)$' r.txt
  "$CLI" report --mangled --table kernels s.json >r.txt 2>&1
  expect_log 1 '  _ZN7cutlass6KernelINS_4gemm6kernel9GemmArray.*NT_6ParamsE$' r.txt
  ;;
report_and_export_demangle_in_bounded_time)
  # Before: the command fell back to libstdc++'s __cxa_demangle, which has no bound on time
  # or memory. Each template here names the one before three times through a substitution
  # (A<S0_,S0_,S0_>, then A<S2_,S2_,S2_>, ...): 16 steps, 217 bytes, a text of 3^16 copies
  # that __cxa_demangle takes seconds and hundreds of MB to build (more with each step). The
  # command must finish at once and show the name as compiled (its own demangler stops at
  # its output bound).
  native "$BIN/kernels"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" audited "$BIN/kernels"
  same_results
  bomb=$("$PYTHON" -c '
d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
b36 = lambda i: (b36(i // 36) if i >= 36 else "") + d[i % 36]
print("_Z1f1AIiE" + "".join("1AI" + ("S%s_" % b36(2 * j)) * 3 + "E" for j in range(16)))')
  [ ${#bomb} = 217 ] && pass "the name is ${#bomb} bytes" || fail "name of ${#bomb} bytes"
  "$PYTHON" - s.json "$bomb" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
k = [k for k in doc["kernels"] if k["name"] == "_Z4add5Pii"][0]
k["name"] = sys.argv[2]
del k["demangled"]
json.dump(doc, open(sys.argv[1], "w"))
PY
  for cmd in "report --table kernels s.json" "report --json - s.json" "export -T jsonl -o - s.json"; do
    start=$(date +%s)
    timeout 60 "$CLI" $cmd >r.txt 2>&1; rc=$?
    took=$(( $(date +%s) - start ))
    [ $rc = 0 ] && [ $took -le 20 ] && pass "$cmd: status 0 in ${took}s" || fail "$cmd: status $rc after ${took}s"
    grep -qF "$bomb" r.txt && pass "$cmd: the name as compiled" || fail "$cmd: the name is not in its output"
  done
  ;;
summary_says_where_it_came_from)
  native "$BIN/kernels"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" audited "$BIN/kernels"
  same_results
  check process s.json p.txt
  expect_log 1 "^host=$(hostname)$" p.txt
  expect_log 1 '^pid=[0-9]+$' p.txt
  expect_log 1 "^command=$BIN/kernels$" p.txt
  expect_log 1 '^cuaudit_version=[0-9]+\.[0-9]+\.[0-9]+$' p.txt
  # The program asked both versions: the summary names what it was told.
  expect_log 1 '^driver_version=13000$' p.txt
  expect_log 1 '^runtime_version=13000$' p.txt
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY=stderr CUAUDIT_LOG_FILE= audited "$BIN/kernels" extra-arg
  expect_log 1 "^cuaudit summary: host $(hostname), pid [0-9]+, command \"$BIN/kernels extra-arg\", from [0-9T:Z-]+ to [0-9T:Z-]+, cuaudit [0-9.]+, driver 13000, runtime 13000$" audited.err
  expect_log 1 '^cuaudit summary: launches by kernel$' audited.err
  expect_log 1 '^ +2 +0 +[0-9]+ +[0-9]+  add5\(int\*, int\)$' audited.err
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
