#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/ordinary.sh: ordinary CUDA programs run on the mock with and without cuaudit: streams, events, async copies, pinned memory, graphs, a function the mock lacks, and the programs of tests/gpu/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

case $name in
ordinary_runtime_program_runs_on_the_mock_with_every_call_seen)
  MOCK_GPU_TIMELINE=$dir/timeline.txt native "$BIN/ordinary_rt"
  CUAUDIT_SUMMARY=$dir/s.json audited "$BIN/ordinary_rt"
  same_results
  [ "$(cat native.rc)" = 0 ] && pass "status 0 on the mock" || fail "status $(cat native.rc): $(head -3 native.out native.err)"
  expect_out '^device cuaudit mock GPU, 16384 MiB, sm_90, driver 13000$' native.out
  expect_out '^async copies: h\[511\] = 511, h\[512\] = 0$' native.out
  expect_out '^event elapsed 5\.4096 ms$' native.out
  expect_out '^cudaLaunchKernel: v\[1023\] = 1024$' native.out
  expect_out '^graph: captured, instantiated, launched 3 times$' native.out
  expect_out '^cudaFuncGetAttributes -> cudaErrorNotSupported, again cudaErrorNotSupported, last error cudaErrorNotSupported$' native.out
  expect_out '^done$' native.out
  # The unsupported function is named once on stderr, however often it is called.
  n=$(grep -c '^cuaudit mock libcudart: cudaFuncGetAttributes is not implemented by this mock runtime' native.err)
  [ "$n" = 1 ] && pass "one message names the missing function" || fail "$n messages: $(cat native.err)"
  # The event time is the GPU timeline's: the 4096-byte copy lasted exactly 5.4096 ms there.
  awk '$1 == "memcpy" && $4 - $3 == 5409600 { n++ } END { exit n >= 2 ? 0 : 1 }' timeline.txt &&
    pass "the timeline has the copies the events bracket" || fail "timeline: $(head -5 timeline.txt)"
  # Both layers are seen: each runtime call, and the driver call it makes, one level deeper.
  for pair in cudaStreamCreate:cuStreamCreate cudaStreamCreateWithPriority:cuStreamCreateWithPriority \
    cudaStreamQuery:cuStreamQuery cudaEventCreate:cuEventCreate cudaEventRecord:cuEventRecord \
    cudaEventSynchronize:cuEventSynchronize cudaEventElapsedTime:cuEventElapsedTime_v2 \
    cudaMemcpyAsync:cuMemcpyHtoDAsync_v2 cudaMemcpyAsync:cuMemcpyAsync cudaMemcpyAsync:cuMemcpyDtoHAsync_v2 \
    cudaMemsetAsync:cuMemsetD8Async cudaMallocHost:cuMemAllocHost_v2 cudaFreeHost:cuMemFreeHost \
    cudaHostRegister:cuMemHostRegister_v2 cudaHostUnregister:cuMemHostUnregister \
    cudaStreamBeginCapture:cuStreamBeginCapture_v2 cudaStreamEndCapture:cuStreamEndCapture \
    cudaGraphInstantiate:cuGraphInstantiateWithFlags cudaGraphLaunch:cuGraphLaunch \
    cudaGraphExecDestroy:cuGraphExecDestroy cudaGraphDestroy:cuGraphDestroy \
    cudaLaunchKernel:cuLaunchKernel cudaDeviceSynchronize:cuCtxSynchronize \
    cudaStreamDestroy:cuStreamDestroy_v2 cudaGetDeviceProperties:cuDeviceTotalMem_v2; do
    rt=${pair%%:*} drv=${pair#*:}
    expect_log + "tid=[0-9]+ $rt\(.*\) -> cudaSuccess [0-9]+ns plt$"
    expect_log + "tid=[0-9]+   $drv\(.*\) -> CUDA_SUCCESS [0-9]+ns procaddress$"
  done
  expect_log 3 "tid=[0-9]+ cudaGraphLaunch\(.*\) -> cudaSuccess [0-9]+ns plt$"
  expect_log 2 "tid=[0-9]+ cudaFuncGetAttributes\(.*\) -> cudaErrorNotSupported [0-9]+ns plt$"
  "$PYTHON" "$CHECK_JSON" summary s.json cudaGraphLaunch:outer cuGraphLaunch:nested \
    cudaFuncGetAttributes:outer cudaEventElapsedTime:outer >check.txt 2>&1 || fail "summary: $(tail -2 check.txt)"
  for want in 'cudaGraphLaunch:outer calls=3 errors=0' 'cuGraphLaunch:nested calls=3 errors=0' \
    'cudaFuncGetAttributes:outer calls=2 errors=2' 'cudaEventElapsedTime:outer calls=1 errors=0'; do
    grep -qx "$want" check.txt && pass "summary: $want" || fail "summary lacks '$want': $(cat check.txt)"
  done
  ;;
tests_gpu_programs_built_by_nvcc_run_on_the_mock)
  # The cuda-samples-style programs of tests/gpu/, built as a user builds them, run on the
  # mock to the end with and without cuaudit.
  NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  [ -x "$NVCC" ] || { echo "SKIP: no nvcc"; exit 77; }
  for prog in vecadd graph graph_nodes threads_ptds; do
    flags=()
    [ $prog = threads_ptds ] && flags=(--default-stream per-thread)
    "$NVCC" -cudart shared "${flags[@]}" -o $prog "$SRC/tests/gpu/$prog.cu" >nvcc.txt 2>&1 ||
      { fail "nvcc $prog: $(tail -3 nvcc.txt)"; continue; }
    native ./$prog
    CUAUDIT_LOG_FILE=$dir/$prog.log audited ./$prog
    same_results
    [ "$(cat native.rc)" = 0 ] && ! grep -q 'undefined symbol\|not implemented by this mock' native.err &&
      pass "$prog runs to the end on the mock" || fail "$prog: rc $(cat native.rc): $(head -3 native.err)"
    # Every call succeeds, as on a GPU: these programs check nothing themselves.
    expect_log 0 ' -> (cudaError|CUDA_ERROR)' $prog.log
    expect_log + "tid=[0-9]+ __cudaLaunchKernel(_ptsz)?\(.*\) -> cudaSuccess " $prog.log
  done
  ;;
esac
finish
