#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/performance.sh: the per-function entry choice, declared times, the sampled summary and the plugin ABI checks, on the mock.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

# offset_of SYMBOL: the symbol's offset in libcuaudit.so, as nm prints it, without zeros.
offset_of() { nm "$AUDIT" | awk -v s="$1" '$3 == s {sub(/^0+/, "", $1); print $1}'; }

case $name in
memory_limit_only_binds_other_functions_to_the_raw_entry)
  # The address dlsym hands out for cuCtxGetCurrent is the raw entry itself (cua_e6_), not
  # a wrapper that tests for hooks; cuMemAlloc_v2's is the dlsym kind's full wrapper (cua_e2_).
  # (No log level here: verbose and debug subscribe to every function.)
  CUAUDIT_LOG=warn CUAUDIT_MEM_LIMIT=1GiB audited "$BIN/entry_of" cuCtxGetCurrent cuMemAlloc_v2
  raw=$(offset_of cua_e6_cuCtxGetCurrent); full=$(offset_of cua_e2_cuMemAlloc_v2)
  [ -n "$raw" ] && [ -n "$full" ] || fail "entry symbols not found in $AUDIT"
  expect_out "^cuCtxGetCurrent libcuaudit.so $raw\$"
  expect_out "^cuMemAlloc_v2 libcuaudit.so $full\$"
  # With a summary on, the same function gets the full wrapper.
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY=stderr audited "$BIN/entry_of" cuCtxGetCurrent
  expect_out "^cuCtxGetCurrent libcuaudit.so $(offset_of cua_e2_cuCtxGetCurrent)\$"
  # And the memory limit still works on what it covers, through the program's PLT.
  native "$BIN/hooks_alloc"
  CUAUDIT_LOG=warn CUAUDIT_MEM_LIMIT=1GiB audited "$BIN/hooks_alloc"
  [ "$(cat audited.rc)" = "$(cat native.rc)" ] && pass "same status" || fail "status differs"
  ;;
plugin_naming_functions_by_elf_name_loads_across_id_tables)
  # Built against the generator fixture's cuda.h and id table, loaded into this build.
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/fixture_names.so" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "info: plugin loaded: .*/fixture_names.so"
  # driver_lazy allocates 32 bytes once and asks for the current context once.
  expect_log 1 "info: plugin fixture_names: bytes 32 calls 2 timed 0$"
  ;;
plugin_compiled_with_another_id_table_is_refused_clearly)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/fixture_ids.so" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "error: plugin .*/fixture_ids.so refused: it was compiled with CUAUDIT_ID_\* constants from another id table"
  expect_log 0 "plugin loaded"
  expect_log 0 "plugin fixture_ids: bytes"
  ;;
plugin_without_info_or_of_another_major_is_refused_clearly)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/fixture_no_info.so:$BIN/fixture_other_major.so:$BIN/fixture_names.so" \
    audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "error: plugin .*/fixture_no_info.so refused: it has no cuaudit_plugin_info"
  expect_log 1 "error: plugin .*/fixture_other_major.so refused: it was built against another major version"
  # The refusals leave the next plugin working.
  expect_log 1 "info: plugin fixture_names: bytes 32 calls 2 timed 0$"
  ;;
subscription_without_times_reads_no_clock)
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=info CUAUDIT_PLUGINS="$BIN/fixture_names_timed.so" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "info: plugin fixture_names_timed: bytes 32 calls 2 timed 2$"
  # Untimed alone: 0 above. With the summary on the same functions, exact or sampled (the
  # default), times are there: both take the dispatch's two reads, the one time of a call.
  rm -f log.txt
  CUAUDIT_LOG=info CUAUDIT_SUMMARY=stderr CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_PLUGINS="$BIN/fixture_names.so" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "info: plugin fixture_names: bytes 32 calls 2 timed 2$"
  rm -f log.txt
  CUAUDIT_LOG=info CUAUDIT_SUMMARY=stderr CUAUDIT_PLUGINS="$BIN/fixture_names.so" audited "$BIN/driver_lazy"
  same_results
  expect_log 1 "info: plugin fixture_names: bytes 32 calls 2 timed 2$"
  # The memory limit alone asks for no times either: its functions carry 0.
  rm -f log.txt
  CUAUDIT_LOG=info CUAUDIT_MEM_LIMIT=1GiB CUAUDIT_PLUGINS="$BIN/fixture_names.so" audited "$BIN/driver_lazy"
  expect_log 1 "info: plugin fixture_names: bytes 32 calls 2 timed 0$"
  ;;
sampled_summary_counts_every_call_and_marks_estimates)
  native "$BIN/mock_calls" plt 20000
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY_SAMPLE=100 CUAUDIT_SUMMARY="$dir/s.json" audited "$BIN/mock_calls" plt 20000
  [ "$(cat audited.rc)" = 0 ] && pass "ran" || fail "status $(cat audited.rc)"
  # 10 passes of 20000 calls: counted exactly; timed: 64 calls, more while the first slow
  # calls (lazy binding, a loaded machine) keep the mean above 1 us, then 1 in 100.
  "$PYTHON" - "$dir/s.json" <<'PY' && pass "calls exact, timed sampled, estimates marked" || fail "sampled summary wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = [a for a in d["apis"] if a["name"] == "cuCtxGetCurrent"][0]
print(r)
assert r["calls"] == 200000, r
assert 200000 // 100 <= r["timed"] <= 200000 // 10, r
assert r["total_ns"] >= r["avg_ns"] * r["calls"] - r["calls"], r
# A function called a few times is timed every call: no "timed" field.
i = [a for a in d["apis"] if a["name"] == "cuInit"][0]
assert "timed" not in i and i["calls"] == 1, i
PY
  CUAUDIT_SUMMARY_SAMPLE=1 audited "$BIN/mock_calls" plt 10
  expect_log 1 "CUAUDIT_SUMMARY_SAMPLE" audited.err
  ;;
sampled_counter_path_counts_exactly_under_signals_nesting_and_the_live_view)
  # Before: the sampled summary alone takes the counter path, which reads no clock for a
  # call its thread chose to leave untimed. Counts stay exact where a signal handler's calls
  # interrupt the loop's (their own level), for nested driver calls, and beside the live view
  # (which reads the clock itself for the in-flight start of an untimed call).
  n=20000
  native "$BIN/signal_calls" sigaction $n "$dir/native.runs"
  for live in 0 1; do
    rm -rf s.json live
    CUAUDIT_LOG=warn CUAUDIT_SUMMARY_SAMPLE=64 CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LIVE=$live \
      CUAUDIT_LIVE_DIR="$dir/live" audited "$BIN/signal_calls" sigaction $n "$dir/audited.runs"
    same_results
    read -r calls runs <audited.runs
    "$PYTHON" - s.json "$calls" "$runs" >counts.txt 2>&1 <<'PY'
import json, sys
s, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {(a["name"], a["nested"]): a for a in json.load(open(s))["apis"]}
loop = rows[("cuDeviceGetCount", False)]
bad = rows[("cuDeviceGet", False)]
print("cuDeviceGetCount", loop["calls"], "want", n + runs, "timed", loop.get("timed"), "errors", loop["errors"])
print("cuDeviceGet", bad["calls"], bad["errors"], "want", runs, runs)
assert loop["calls"] == n + runs and loop["errors"] == 0
assert bad["calls"] == runs and bad["errors"] == runs
# Sampled: the warm-up's 64 and about 1 in 64 after, far fewer than all.
assert 64 <= loop["timed"] < loop["calls"] // 8, loop
assert loop["min_ns"] <= loop["max_ns"] and loop["total_ns"] > 0, loop
assert not any(k[1] for k in rows), [k for k in rows if k[1]]
PY
    [ $? = 0 ] && pass "live=$live: $runs handler runs, counts exact: $(tr '\n' ';' <counts.txt)" ||
      fail "live=$live: $(tr '\n' ';' <counts.txt)"
    [ -s audited.err ] && fail "live=$live: messages: $(head -3 audited.err)"
  done
  # Nested driver calls inside runtime calls: their own rows, sampled the same way.
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY_SAMPLE=64 CUAUDIT_SUMMARY="$dir/n.json" audited "$BIN/mock_calls" cudart 2000
  "$PYTHON" - n.json <<'PY' && pass "runtime and nested driver rows exact and sampled" || fail "nested rows: $(head -c 400 n.json)"
import json, sys
rows = {(a["name"], a["nested"]): a for a in json.load(open(sys.argv[1]))["apis"]}
outer, inner = rows[("cudaGetDevice", False)], rows[("cuCtxGetDevice_v2", True)]
print(outer, inner)
assert outer["calls"] == inner["calls"] == 20000, (outer, inner)
assert 64 <= outer["timed"] < 2000 and 64 <= inner["timed"] < 2000, (outer, inner)
PY
  ;;
metrics_alone_count_exactly_and_mark_sampled_seconds)
  # CUAUDIT_METRICS without CUAUDIT_SUMMARY: counts exact, seconds estimated from 1 call in 64
  # of a sub-microsecond function, and the file says so.
  native "$BIN/mock_calls" plt 20000
  CUAUDIT_LOG=warn CUAUDIT_METRICS="$dir/m.prom" audited "$BIN/mock_calls" plt 20000
  [ "$(cat audited.rc)" = 0 ] && pass "ran" || fail "status $(cat audited.rc)"
  expect_log 1 '^cuaudit_calls_total\{.*api="cuCtxGetCurrent".*\} 200000$' m.prom
  expect_log 1 '^# HELP cuaudit_call_seconds_total .*estimated: .* 1 call in 64 ' m.prom
  expect_log 1 '^cuaudit_call_seconds_total\{.*api="cuCtxGetCurrent".*\} [0-9]+\.[0-9]{9}$' m.prom
  if command -v promtool >/dev/null; then
    promtool check metrics <m.prom >promtool.txt 2>&1 && pass "promtool accepts it" || fail "promtool: $(head -5 promtool.txt)"
  fi
  # CUAUDIT_SUMMARY_SAMPLE=0 asks for exact seconds, for the metrics and a summary beside them.
  rm -f m.prom
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_METRICS="$dir/m.prom" audited "$BIN/mock_calls" plt 2000
  expect_log 0 'estimated' m.prom
  rm -f m.prom
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_METRICS="$dir/m.prom" audited "$BIN/mock_calls" plt 2000
  expect_log 0 'estimated' m.prom
  "$PYTHON" -c 'import json,sys; r=[a for a in json.load(open(sys.argv[1]))["apis"] if a["name"]=="cuCtxGetCurrent"][0]; sys.exit("timed" in r)' "$dir/s.json" &&
    pass "CUAUDIT_SUMMARY_SAMPLE=0: the summary beside the metrics times every call" || fail "summary sampled: $(head -c 300 "$dir/s.json")"
  # By default both are sampled, and both say so.
  rm -f m.prom s.json
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_METRICS="$dir/m.prom" audited "$BIN/mock_calls" plt 2000
  expect_log 1 '^# HELP cuaudit_call_seconds_total .*estimated: .* 1 call in 64 ' m.prom
  "$PYTHON" -c 'import json,sys; r=[a for a in json.load(open(sys.argv[1]))["apis"] if a["name"]=="cuCtxGetCurrent"][0]; sys.exit(not (r["calls"] == 20000 and 64 <= r["timed"] < 20000))' "$dir/s.json" &&
    pass "by default the summary beside the metrics counts every call and times a sample" || fail "summary: $(head -c 300 "$dir/s.json")"
  # A bad value means every call timed, as its message says, for the metrics alone too.
  rm -f m.prom
  CUAUDIT_SUMMARY_SAMPLE=1 CUAUDIT_METRICS="$dir/m.prom" audited "$BIN/mock_calls" plt 2000
  expect_log 1 "CUAUDIT_SUMMARY_SAMPLE" audited.err
  expect_log 0 'estimated' m.prom
  # An explicit N applies to the metrics alone too.
  rm -f m.prom
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY_SAMPLE=100 CUAUDIT_METRICS="$dir/m.prom" audited "$BIN/mock_calls" plt 2000
  expect_log 1 '^# HELP cuaudit_call_seconds_total .*estimated: .* 1 call in 100 ' m.prom
  ;;
plugin_that_refuses_to_start_leaves_none_of_its_callbacks_behind)
  # Its init subscribes to every call, registers an exit function and a GPU record callback,
  # then returns -EINVAL: cuaudit unloads it, so none of the three may ever be called (the
  # GPU callback was: the program died of SIGSEGV at its first harvest, in unmapped code).
  native "$BIN/gpu_time" all
  CUAUDIT_LOG=warn CUAUDIT_GPU_TIME=on CUAUDIT_PLUGINS="$BIN/plugin_refuses.so" \
    audited "$BIN/gpu_time" all
  same_results
  expect_log 1 "error: plugin .*/plugin_refuses.so refused to start; unloaded"
  expect_log 0 "^refuses:" audited.err
  ;;
*) fail "unknown case $name" ;;
esac
finish
