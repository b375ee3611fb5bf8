#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/lifecycle.sh: library lifecycle cases: libraries that come and go, checked natively, audited and against the invariants of the captured event stream.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

# invariants FILE: the lifecycle events in a debug log (after glibc's elf/tst-audit23.c):
# every open of an object is matched by one close, opens and closes alternate, no binding
# names an object that is closed, and no driver call is logged while no driver is loaded.
invariants() {
  local out
  out=$(awk '
    / (libcuda|libcudart) loaded: / { p = $0; sub(/.* loaded: /, "", p); if (open[p]) bad = bad "opened twice: " p "\n"; open[p] = 1; opens++; if ($0 ~ / libcuda loaded/) drivers++; next }
    / (libcuda|libcudart) unloaded: / { p = $0; sub(/.* unloaded: /, "", p); if (!open[p]) bad = bad "closed while closed: " p "\n"; open[p] = 0; closes++; if ($0 ~ / libcuda unloaded/) drivers--; next }
    / object opened: / { p = $0; sub(/.* object opened: /, "", p); if (obj[p]) bad = bad "object opened twice: " p "\n"; obj[p] = 1; opens++; next }
    / object closed: / { p = $0; sub(/.* object closed: /, "", p); if (!obj[p]) bad = bad "object closed while closed: " p "\n"; obj[p] = 0; closes++; next }
    / debug: bind .* from / { p = $0; sub(/.* from /, "", p); sub(/: [^:]*$/, "", p); if (p in obj && !obj[p]) bad = bad "binding from a closed object: " $0 "\n"; if (p in open && !open[p]) bad = bad "binding from a closed library: " $0 "\n" }
    / cu[A-Z][A-Za-z0-9_]*\(.*\) -> / { if (drivers <= 0) bad = bad "driver call with no driver loaded: " $0 "\n" }
    END { if (opens != closes) bad = bad "opens " opens " closes " closes "\n"; printf "%s", bad; print "events " opens " " closes > "/dev/stderr" }
  ' "$1" 2>events.txt)
  if [ -z "$out" ] && [ "$(awk '{print $2}' events.txt)" -ge 1 ]; then
    pass "lifecycle invariants hold ($(cat events.txt))"
  else
    fail "lifecycle invariants: $(echo "$out" | head -5) ($(cat events.txt))"
  fi
}

case $name in
driver_dlclose_and_reopen_100_times_is_intercepted_every_time)
  native "$BIN/lifecycle_reload" 100
  CUAUDIT_LOG=debug audited "$BIN/lifecycle_reload" 100
  same_results
  expect_out '^rounds 100, all calls succeeded in 100, unloaded after 100$'
  expect_log 100 "$(call cuInit dlsym)"
  expect_log 100 "$(call cuMemAlloc_v2 dlsym)"
  expect_log 100 "$(call cuMemFree_v2 dlsym)"
  expect_log 100 "$(call cuDeviceGetCount procaddress)"
  expect_log 100 'info: libcuda loaded: .*/mock/libcuda.so.1$'
  expect_log 100 'info: libcuda unloaded: .*/mock/libcuda.so.1$'
  expect_log 0 'a second libcuda'
  expect_log 0 'warning'
  # One record for the one path, every load's bindings counted in it.
  expect_log 1 'info: .*/mock/libcuda.so.1: bindings plt=0 bindnow=0 dlsym=700 procaddress=100 got=0'
  invariants log.txt
  ;;
failed_probes_and_closed_objects_before_and_after_the_driver_are_harmless)
  native "$BIN/lifecycle_loads"
  CUAUDIT_LOG=debug audited "$BIN/lifecycle_loads"
  same_results
  expect_out '^probe before the driver: failed$'
  expect_out '^probe after the driver: failed$'
  expect_log 1 "$(call cuDeviceGetCount plt)"
  # Audited only where an undefined symbol names a CUDA function: cuserid and curl_* do not.
  expect_log 0 'object opened: .*liblifecycle_notcuda.so'
  expect_log 2 'object opened: .*liblifecycle_lazyref.so'
  expect_log 2 'object closed: .*liblifecycle_lazyref.so'
  # A failed load frees what it mapped: the loader closes the probe, and cuaudit forgets it.
  expect_log 2 'object opened: .*liblifecycle_probe.so'
  expect_log 2 'object closed: .*liblifecycle_probe.so'
  invariants log.txt
  ;;
dlopened_fno_plt_library_and_function_table_are_intercepted)
  native "$BIN/lifecycle_loads"
  CUAUDIT_LOG=debug audited "$BIN/lifecycle_loads"
  same_results
  expect_out '^GOT and table calls succeed: 1$'
  # Through GOT slots (-fno-plt), the constructor's call included, and through the tables.
  for f in cuInit cuDeviceGetCount cuDeviceGet cuDevicePrimaryCtxRetain cuCtxSetCurrent \
    cuMemAlloc_v2 cuMemFree_v2 cuDriverGetVersion; do
    expect_log 1 "$(call "$f" got)"
  done
  expect_log 1 'debug: bind cuDriverGetVersion \(got\) from .*liblifecycle_refs.so: wrapped'
  invariants log.txt
  ;;
lookups_racing_with_the_first_runtime_load_are_all_wrapped)
  for run in $(seq 1 10); do
    rm -f log.txt
    native "$BIN/lifecycle_race"
    CUAUDIT_LOG=verbose audited "$BIN/lifecycle_race"
    cmp -s native.out audited.out && cmp -s native.rc audited.rc || { fail "run $run: results differ"; cat audited.out; continue; }
    n=$(sed -n 's/^calls \([0-9]*\)$/\1/p' audited.err)
    got=$(grep -cE "$(call cuDeviceGetCount procaddress)" log.txt)
    if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$got" -eq "$n" ]; then
      pass "run $run: all $n calls through looked-up pointers were intercepted"
    else
      fail "run $run: $got of ${n:-?} calls intercepted (rc $(cat audited.rc)/$(cat native.rc): $(head -c 300 audited.err) / $(head -c 300 native.err))"
    fi
  done
  # Without the log's cost per call the lookups are far denser around the load. The program
  # counts pointers that point into the driver itself: every one natively, none audited.
  for run in $(seq 1 20); do
    native "$BIN/lifecycle_race"
    CUAUDIT_LOG=warn audited "$BIN/lifecycle_race"
    n=$(sed -n 's/^calls \([0-9]*\)$/\1/p' audited.err); r=$(sed -n 's/^raw \([0-9]*\)$/\1/p' audited.err)
    nr=$(sed -n 's/^raw \([0-9]*\)$/\1/p' native.err); nn=$(sed -n 's/^calls \([0-9]*\)$/\1/p' native.err)
    if cmp -s native.out audited.out && [ "${r:-x}" = 0 ] && [ "${n:-0}" -gt 0 ] && [ "$nr" = "$nn" ]; then
      pass "fast run $run: $n lookups, none returned the driver's own pointer"
    else
      fail "fast run $run: ${r:-?} of ${n:-?} lookups returned the driver's own pointer (native: $nr of $nn)"
    fi
  done
  ;;
renamed_libcudart_is_recognised_by_its_exports)
  mkdir -p wheel
  cp "$MOCK_DIR/libcudart.so.13" wheel/libcudart-1a2b3c4d.so.13
  renamed="$dir/wheel/libcudart-1a2b3c4d.so.13"
  native "$BIN/lifecycle_runtime" "$renamed"
  audited "$BIN/lifecycle_runtime" "$renamed"
  same_results
  expect_log 1 'info: libcudart loaded: .*/wheel/libcudart-1a2b3c4d.so.13$'
  expect_log 1 "$(call cudaGetDevice dlsym)"
  expect_log 1 "$(call cudaMalloc dlsym)"
  expect_log 1 "$(call cudaFree dlsym)"
  expect_out '^cudaMalloc 0$'
  ;;
CUAUDIT_LIBCUDA_at_a_directory_or_text_file_warns_once_and_runs)
  echo "not a library" >text.so
  native "$BIN/driver_lazy"
  for bad in "$dir" "$dir/text.so"; do
    rm -f log.txt
    CUAUDIT_LIBCUDA="$bad" CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
    same_results
    n=$(grep -c 'CUAUDIT_LIBCUDA' audited.err)
    [ "$n" -eq 1 ] && pass "$bad: one message naming CUAUDIT_LIBCUDA" || fail "$bad: $n messages: $(head -3 audited.err)"
    expect_log 1 "$(call cuInit plt)" audited.err
    expect_log 1 "$(call cuMemAlloc_v2 plt)" audited.err
  done
  ;;
dt_audit_program_under_LD_AUDIT_logs_every_call_once)
  # The second instance returns 0 from la_version and glibc unloads it. A module built with
  # UBSan drags in its runtime, which glibc cannot unload (rtld.c, unload_audit_module
  # asserts the namespace is empty): this case runs on the normal build only.
  if nm -D "$AUDIT" | grep -q ' U __ubsan_'; then echo "skipped: a UBSan module cannot be unloaded by glibc"; exit 77; fi
  native "$BIN/driver_lazy"
  audited "$BIN/driver_dtaudit"
  same_results
  for f in cuInit cuDeviceGetCount cuMemAlloc_v2 cuMemFree_v2; do
    expect_log 1 " $f\(.*\) -> "
  done
  expect_log 1 'warning: .*cuaudit is loaded twice'
  ;;
driver_closed_at_exit_before_a_destructor_that_calls_it_keeps_working)
  native "$BIN/lifecycle_exit"
  CUAUDIT_LOG=debug audited "$BIN/lifecycle_exit"
  same_results
  expect_out '^destructor: cuDeviceGetCount -> [0-9]+, count'
  # The order that matters: the driver's la_objclose came first, then the destructor's call.
  order=$(grep -nE 'libcuda unloaded|cuDeviceGetCount\(' log.txt | cut -d: -f2- | sed -E 's/.*(unloaded|cuDeviceGetCount).*/\1/' | tr '\n' ' ')
  [ "$order" = "unloaded cuDeviceGetCount " ] && pass "the driver was closed before the destructor called it, and the call was intercepted" ||
    fail "order of close and call: '$order'"
  ;;
*) fail "unknown case $name" ;;
esac
finish
