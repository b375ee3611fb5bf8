#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/nvtx.sh: the program's NVTX ranges: the summary's table, chaining to a second tool, hostile use, the live view.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
PROG="$BIN/nvtx_prog"
NVTXLIB="$BUILD/libcuaudit-nvtx.so"
FAKE="$BIN/libnvtx_fake_tool.so"

# rows FILE: "name|domain ranges marks" per row, then "dropped K=V..." from a JSON summary.
rows() {
  "$PYTHON" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["nvtx"]
for r in n["ranges"]:
    assert r["ranges"] == 0 or r["min_ns"] <= r["total_ns"] // r["ranges"] <= r["max_ns"], r
    print(f'{r["name"]}|{r["domain"]} {r["ranges"]} {r["marks"]}')
print("dropped " + " ".join(f"{k}={v}" for k, v in sorted(n["dropped"].items())))
PY
}
has_row() { grep -qxF -- "$1" "${2:-rows.txt}" && pass "row '$1'" || fail "no row '$1': $(head -12 "${2:-rows.txt}" | tr '\n' ';')"; }

case $name in
nvtx_ranges_of_threads_domains_registered_strings_and_marks_in_the_summary)
  native "$PROG"
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LOG=warn audited "$PROG"
  [ "$(cat audited.rc)" = 0 ] || fail "status $(cat audited.rc): $(head -3 audited.err)"
  # Without a tool NVTX returns no levels; with ours, the levels of the ranges.
  printf 'push level 0\npush level 1\npop level 1\npop level 0\n' >levels.want
  grep level audited.out >levels.got
  cmp -s levels.want levels.got && pass "push and pop return the nesting levels" || fail "levels: $(tr '\n' ' ' <levels.got)"
  grep -v level native.out >n.txt; grep -v level audited.out >a.txt
  cmp -s n.txt a.txt && pass "the program's other output is unchanged" || fail "output differs"
  rows s.json >rows.txt || fail "summary not readable: $(tail -2 rows.txt)"
  has_row "step| 600 0"; has_row "forward| 600 0"; has_row "backward| 600 0"
  has_row "registered|dom 600 600"; has_row "begin| 0 1"; has_row "across| 1 0"
  has_row "outer| 1 0"; has_row "inner| 1 0"
  has_row "dropped depth=0 gpu=0 names=0 paths=0 reentered=0 started=0 unbalanced=0"
  [ "$(grep -c . rows.txt)" = 9 ] && pass "no other rows" || fail "rows: $(tr '\n' ';' <rows.txt)"
  # The text table, on stderr.
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_SUMMARY=stderr CUAUDIT_LOG=warn audited "$PROG"
  expect_log 1 '^cuaudit summary: NVTX ranges$' audited.err
  expect_log 1 '^ +600 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +600 +0 +0  +-  dom:registered$' audited.err
  expect_log 1 '^ +600( +[0-9]+){4} +0 +600 +[0-9]+[ *] +-  forward$' audited.err
  # No injection library: nothing of NVTX in the summary.
  CUAUDIT_SUMMARY="$dir/none.json" CUAUDIT_LOG=warn audited "$PROG"
  grep -q '"nvtx"' none.json && fail "an NVTX table without the library" || pass "no NVTX table without the library"
  ;;
nvtx_chained_tool_receives_every_call_with_its_own_handles)
  mkdir fake
  # The fake tool alone, then behind ours: it must count the same calls, each with the
  # domain and string handles it gave out itself.
  NVTX_INJECTION64_PATH="$FAKE" FAKE_NVTX_OUT="$dir/fake/alone" "$PROG" >alone.out 2>alone.err
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_NVTX_CHAIN="$FAKE" FAKE_NVTX_OUT="$dir/fake/chained" \
    CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LOG=warn audited "$PROG"
  [ "$(cat audited.rc)" = 0 ] || fail "status $(cat audited.rc): $(head -3 audited.err)"
  cat fake/alone.* >alone.txt 2>/dev/null; cat fake/chained.* >chained.txt 2>/dev/null
  expect_log 1 '^core 9 1202$' alone.txt
  expect_log 1 '^bad 0$' chained.txt
  cmp -s alone.txt chained.txt && pass "the chained tool counts the same calls ($(grep -c . alone.txt) kinds)" ||
    fail "chained counts differ: $(diff alone.txt chained.txt | head -6 | tr '\n' ' ')"
  # The levels are the chained tool's (it may keep its own stacks), and ours are kept.
  grep -c 'level 7[78]' audited.out | grep -qx 4 && pass "push and pop return the chained tool's values" || fail "levels: $(grep level audited.out | tr '\n' ' ')"
  rows s.json >rows.txt
  has_row "step| 600 0"; has_row "registered|dom 600 600"; has_row "across| 1 0"
  # cuaudit run: a tool already in NVTX_INJECTION64_PATH is chained, not replaced.
  NVTX_INJECTION64_PATH="$FAKE" FAKE_NVTX_OUT="$dir/fake/run" "$CLI" run --log warn --summary "$dir/r.json" "$PROG" >run.out 2>run.err
  cat fake/run.* >run.txt 2>/dev/null
  cmp -s alone.txt run.txt && pass "cuaudit run chains the tool it finds" || fail "run: $(head -3 run.err) $(diff alone.txt run.txt | head -4 | tr '\n' ' ')"
  rows r.json >rows2.txt; has_row "step| 600 0" rows2.txt
  ;;
nvtx_run_option_sets_the_injection_path_and_off_installs_nothing)
  "$CLI" run --log warn --summary "$dir/on.json" "$PROG" >on.out 2>on.err
  rows on.json >rows.txt; has_row "step| 600 0"
  "$CLI" run --log warn --nvtx off --summary "$dir/off.json" "$PROG" >off.out 2>off.err
  grep -q '"nvtx"' off.json && fail "--nvtx off still keeps ranges" || pass "--nvtx off: no NVTX table"
  grep -q 'level' off.out && ! grep -q 'level [01]' off.out && pass "--nvtx off: NVTX is a no-op in the program" || fail "off levels: $(grep level off.out | tr '\n' ' ')"
  # CUAUDIT_NVTX=off with the library named by hand: it forwards only (here: to nothing).
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_NVTX=off CUAUDIT_SUMMARY="$dir/off2.json" CUAUDIT_LOG=warn audited "$PROG"
  grep -q '"nvtx"' off2.json && fail "CUAUDIT_NVTX=off still keeps ranges" || pass "CUAUDIT_NVTX=off: no NVTX table"
  # The library without the module: the program runs, NVTX a no-op.
  NVTX_INJECTION64_PATH="$NVTXLIB" "$PROG" >bare.out 2>bare.err; rc=$?
  [ $rc = 0 ] && ! grep -q 'level [01]' bare.out && pass "the library alone stays out of the way" || fail "bare: rc $rc $(head -2 bare.err)"
  ;;
nvtx_unbalanced_deep_many_names_across_threads_and_fork_are_counted_not_in_the_way)
  native "$PROG" hostile
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_SUMMARY="$dir/s.%p.json" CUAUDIT_LOG=warn audited "$PROG" hostile
  same_results
  parent=$(ls s.*.json | head -2)
  [ "$(ls s.*.json | wc -l)" = 2 ] || fail "expected two summaries (parent, child): $(ls)"
  for f in s.*.json; do rows "$f" >"rows.$f.txt"; "$PYTHON" "$CHECK_JSON" summary "$f" >/dev/null 2>&1 || fail "$f breaks the schema"; done
  # The text table shows no control character of the program's name.
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_SUMMARY=stderr CUAUDIT_LOG=warn audited "$PROG" hostile
  grep -qF 'bad "name\' audited.err && ! grep -q $'\x01' audited.err && pass "the text table escapes the bad name" ||
    fail "bad name in the text table: $(grep -a 'bad' audited.err | od -c | head -3)"
  p=$(grep -l '^deep|' rows.s.*.txt); c=$(grep -L '^deep|' rows.s.*.txt)
  [ -n "$p" ] && [ -n "$c" ] || fail "no parent or child summary"
  "$PYTHON" - "$p" "$c" <<'PY' && pass "counts exact, drops counted, memory bounded" || fail "hostile counts"
import sys
def load(f):
    rows, drops = {}, {}
    for line in open(f):
        if line.startswith("dropped "):
            drops = dict(kv.split("=") for kv in line.split()[1:])
            drops = {k: int(v) for k, v in drops.items()}
        else:
            name, ranges, marks = line.rsplit(" ", 2)
            rows[name] = int(ranges)
    return rows, drops
rows, d = load(sys.argv[1])
ok = True
def check(what, got, want):
    global ok
    if got != want:
        print(f"{what}: {got}, expected {want}"); ok = False
check("deep ranges (the first 64 levels)", rows.get("deep|"), 64)
check("pushes past the depth", d["depth"], 136)
check("unbalanced pops and ends", d["unbalanced"], 3)
check("every range counted once", sum(rows.values()), 64 + 100000 + 1 + 3)
check("a name that is no UTF-8 kept, made valid", rows.get("\ufffd\x01bad \"name\\|"), 1)
check("dropped names at least", d["names"] >= 100000 - 4096, True)
check("rows bounded", len(rows) <= 4097, True)
check("other names = dropped + the NULL name", rows.get("(other names)|"), d["names"] + 1)
check("handler and start drops", (d["reentered"], d["started"]), (0, 0))
crow, cd = load(sys.argv[2])
check("the child's own ranges only", sum(crow.values()), 2)
check("the child's unbalanced", cd["unbalanced"], 0)
sys.exit(0 if ok else 1)
PY
  ;;
nvtx_capture_range_records_only_inside_the_named_range_per_thread)
  # Inside "forward": the 600 cuDeviceGetCount calls of the workers; not the main thread's.
  for spec in forward forward@dom step@nowhere; do
    rm -f t.json log.txt
    NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_CAPTURE="nvtx:$spec" CUAUDIT_TRACE="$dir/t.json" audited "$PROG"
    [ "$(cat audited.rc)" = 0 ] || fail "$spec: status $(cat audited.rc): $(head -3 audited.err)"
    want=0; [ $spec = forward ] && want=600
    expect_log $want ' cuDeviceGetCount\(' log.txt
    expect_log 0 ' cuInit\(' log.txt
    got=$("$PYTHON" -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name") == "cuDeviceGetCount"))' t.json)
    [ "$got" = $want ] && pass "nvtx:$spec: the trace holds $want calls" || fail "nvtx:$spec: the trace holds $got calls, expected $want"
  done
  # A bad value: one message naming the variable, and every call traced.
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_CAPTURE="nvtx:" CUAUDIT_LOG_FILE= CUAUDIT_LOG=warn audited "$PROG"
  expect_log 1 'CUAUDIT_CAPTURE=.*nvtx:NAME' audited.err
  ;;
nvtx_ranges_drawn_on_their_threads_tracks_in_the_trace)
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_TRACE="$dir/t.json" CUAUDIT_LOG=warn audited "$PROG"
  [ "$(cat audited.rc)" = 0 ] || fail "status $(cat audited.rc): $(head -3 audited.err)"
  "$PYTHON" - t.json <<'PY' >counts.txt || fail "trace: $(tail -3 counts.txt)"
import json, sys, collections
ev = json.load(open(sys.argv[1]))["traceEvents"]
nv = [e for e in ev if e.get("cat") == "nvtx"]
c = collections.Counter((e["name"], e["ph"], e["args"].get("domain", "")) for e in nv)
for k, v in sorted(c.items()):
    print(*k, v)
# Nesting: each forward lies inside a step of its own thread, at level 1.
steps = collections.defaultdict(list)
for e in nv:
    if e["name"] == "step" and e["ph"] == "X":
        steps[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
inside = sum(1 for e in nv if e["name"] == "forward" and e["args"]["level"] == 1 and
             any(a <= e["ts"] and e["ts"] + e["dur"] <= b for a, b in steps[e["tid"]]))
print("forward inside step", inside)
calls = [e for e in ev if e.get("name") == "cuDeviceGetCount" and e["tid"] in steps]
print("calls inside forward", sum(1 for c in calls if any(
    f["tid"] == c["tid"] and f["ts"] <= c["ts"] and c["ts"] + c["dur"] <= f["ts"] + f["dur"]
    for f in nv if f["name"] == "forward")))
PY
  for want in "step X  600" "forward X  600" "backward X  600" "registered X dom 600" \
      "registered i dom 600" "begin i  1" "across b  1" "across e  1" "outer X  1" \
      "forward inside step 600" "calls inside forward 600"; do
    grep -qxF "$want" counts.txt && pass "trace: $want" || fail "trace lacks '$want': $(tr '\n' ';' <counts.txt)"
  done
  # export: the ranges are an nvtx table, not calls; joined to calls by thread and time.
  "$CLI" export -T jsonl -o "$dir/t.jsonl" t.json >exp.txt 2>&1 || fail "export: $(tail -2 exp.txt)"
  "$PYTHON" - t.jsonl <<'PY' >exp.txt 2>&1 && pass "export: $(cat exp.txt)" || fail "export: $(cat exp.txt)"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
nv = [r for r in rows if r["table"] == "nvtx"]
calls = [r for r in rows if r["table"] == "calls"]
fw = [r for r in nv if r["name"] == "forward"]
assert len(fw) == 600 and all(r["level"] == 1 and r["domain"] == "" for r in fw), len(fw)
assert not [c for c in calls if c["layer"] == "nvtx"], "ranges among the calls"
inside = sum(1 for c in calls if c["name"] == "cuDeviceGetCount" and any(
    f["pid"] == c["pid"] and f["tid"] == c["tid"] and f["start_ns"] <= c["start_ns"] and
    c["start_ns"] + c["duration_ns"] <= f["start_ns"] + f["duration_ns"] for f in fw))
assert inside == 600, inside
print(f"{len(nv)} nvtx rows, 600 calls join their forward range")
PY
  ;;
nvtx_open_ranges_of_a_hung_thread_show_in_ps)
  L="$dir/live"; BLOCK="$dir/block"; touch "$BLOCK"
  : >out.txt
  env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$L" MOCK_BLOCK_FILE="$BLOCK" \
    NVTX_INJECTION64_PATH="$NVTXLIB" "$PROG" hang >out.txt 2>err.txt &
  pid=$!
  for _ in $(seq 500); do grep -q blocking out.txt && break; sleep 0.02; done
  sleep 0.3
  timeout 20 "$CLI" ps --dir "$L" "$pid" >ps.txt 2>&1
  grep -qxF '  in ranges: step 7 > forward > cuStreamSynchronize' ps.txt &&
    pass "ps shows the ranges around the hung call" || fail "ps: $(cat ps.txt | head -12)"
  timeout 20 "$CLI" ps --dir "$L" --json "$pid" >ps.json 2>&1
  grep -qF '"nvtx":"step 7 > forward"' ps.json && pass "ps --json has the thread's ranges" || fail "ps json: $(head -c 400 ps.json)"
  rm -f "$BLOCK"
  wait $pid; rc=$?
  [ $rc = 0 ] && grep -q done out.txt && pass "the program ends normally" || fail "status $rc: $(cat err.txt)"
  ;;
nvtx_ranges_of_a_killed_process_are_in_its_raw_trace)
  BLOCK="$dir/block"; touch "$BLOCK"
  : >out.txt
  env LD_AUDIT="$AUDIT" CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" CUAUDIT_FLUSH_INTERVAL=1 \
    MOCK_BLOCK_FILE="$BLOCK" NVTX_INJECTION64_PATH="$NVTXLIB" "$PROG" hang >out.txt 2>err.txt &
  pid=$!
  for _ in $(seq 500); do grep -q blocking out.txt && break; sleep 0.02; done
  sleep 0.2
  kill -KILL $pid; wait $pid 2>/dev/null
  raw=$(ls t.json.$pid.*.raw 2>/dev/null | head -1)
  [ -n "$raw" ] || fail "no raw file: $(ls)"
  "$CLI" trace -o "$dir/k.json" "$raw" >conv.txt 2>&1 || fail "cuaudit trace: $(cat conv.txt)"
  n=$("$PYTHON" -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "nvtx" and e["name"] == "warm-up" and e["ph"] == "X"))' k.json 2>&1)
  [ "$n" = 2 ] && pass "the killed process's ended ranges are in its converted trace" || fail "warm-up ranges: $n"
  ;;
nvtx_legacy_library_ranges_seen_through_bindings_exactly_once)
  # The legacy libnvToolsExt.so.1 reached through the PLT (lazy), bind-now slots and dlsym:
  # its ranges are the binding's, counted once even when the library also loads an
  # injection library (ours, or ours chained to another tool), and forwarded.
  for how in lazy now dlsym; do
    P="$BIN/nvtx_legacy_$how"
    # No injection library: the library returns no handles and no range ids, so the
    # registered string is no name, the domain is the default one, and the start/end range
    # is counted as dropped.
    native "$P"
    CUAUDIT_SUMMARY="$dir/$how.none.json" CUAUDIT_LOG=warn audited "$P"
    same_results
    rows "$how.none.json" >rows.txt || fail "$how: summary not readable"
    for r in "lstep| 200 0" "lforward| 200 0" "louter| 1 0" "linner| 1 0" "lbegin| 0 1" \
        "(other names)| 200 200" "dropped depth=0 gpu=0 names=0 paths=0 reentered=0 started=1 unbalanced=0"; do
      has_row "$r"
    done
    [ "$(grep -c . rows.txt)" = 7 ] && pass "$how alone: no other rows" || fail "$how rows: $(tr '\n' ';' <rows.txt)"
    # Ours as the injection library too: the same calls reach the binding and the
    # injection library; each is counted once.
    NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_SUMMARY="$dir/$how.ours.json" CUAUDIT_LOG=warn audited "$P"
    rows "$how.ours.json" >rows.txt || fail "$how: summary not readable"
    for r in "lstep| 200 0" "lforward| 200 0" "lreg|ldom 200 200" "lacross| 1 0" "louter| 1 0" \
        "dropped depth=0 gpu=0 names=0 paths=0 reentered=0 started=0 unbalanced=0"; do
      has_row "$r"
    done
    [ "$(grep -c . rows.txt)" = 8 ] && pass "$how with ours: no other rows" || fail "$how rows: $(tr '\n' ';' <rows.txt)"
    # Another tool, alone or chained behind ours: it receives every call, and returns
    # what it returns.
    rm -rf fake; mkdir fake
    NVTX_INJECTION64_PATH="$FAKE" FAKE_NVTX_OUT="$dir/fake/alone" native "$P"
    NVTX_INJECTION64_PATH="$FAKE" FAKE_NVTX_OUT="$dir/fake/bound" CUAUDIT_SUMMARY="$dir/$how.fake.json" CUAUDIT_LOG=warn audited "$P"
    same_results
    NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_NVTX_CHAIN="$FAKE" FAKE_NVTX_OUT="$dir/fake/chained" \
      CUAUDIT_SUMMARY="$dir/$how.chained.json" CUAUDIT_LOG=warn audited "$P"
    cat fake/alone.* >alone.txt 2>/dev/null; cat fake/bound.* >bound.txt 2>/dev/null; cat fake/chained.* >chained.txt 2>/dev/null
    expect_log 1 '^core 9 202$' alone.txt
    cmp -s alone.txt bound.txt && cmp -s alone.txt chained.txt && pass "$how: the other tool receives the same calls" ||
      fail "$how: tool counts differ: $(diff alone.txt bound.txt | head -4 | tr '\n' ' ') / $(diff alone.txt chained.txt | head -4 | tr '\n' ' ')"
    for f in fake chained; do
      rows "$how.$f.json" >rows.txt
      has_row "lstep| 200 0"; has_row "lreg|ldom 200 200"; has_row "lacross| 1 0"
    done
  done
  # Off: nothing is bound.
  CUAUDIT_NVTX=off CUAUDIT_SUMMARY="$dir/off.json" CUAUDIT_LOG=warn audited "$BIN/nvtx_legacy_lazy"
  grep -q '"nvtx"' off.json && fail "CUAUDIT_NVTX=off still binds the legacy library" || pass "CUAUDIT_NVTX=off: nothing bound"
  ;;
nvtx_per_range_cuda_calls_and_gpu_time_hold_the_true_values)
  # Kernels of known mock GPU durations and calls of known host time (MOCK_SPIN) inside
  # nested ranges (tests/cases/nvtx_gpu_prog.c): per name, the CUDA calls exactly, their
  # host time at least the mock's measured waits and at most the ranges' time, and the
  # kernels' GPU time bounds holding the mock's own timeline.
  G="$BIN/nvtx_gpu_prog"
  for sample in 0 default; do
    rm -f timeline.txt truth.txt
    native "$G"
    if [ $sample = 0 ]; then export CUAUDIT_SUMMARY_SAMPLE=0; else unset CUAUDIT_SUMMARY_SAMPLE; fi
    MOCK_GPU_TIMELINE="$dir/timeline.txt" \
      MOCK_SPIN=cuDeviceGetCount:2000000 MOCK_TRUTH="$dir/truth.txt" NVTX_INJECTION64_PATH="$NVTXLIB" \
      CUAUDIT_GPU_TIME=on CUAUDIT_SUMMARY="$dir/g.$sample.json" CUAUDIT_LOG=warn audited "$G"
    same_results
    "$PYTHON" - "g.$sample.json" timeline.txt truth.txt $sample <<'PY' >check.txt 2>&1 && pass "sample=$sample: $(tail -1 check.txt)" || fail "sample=$sample: $(cat check.txt)"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["nvtx"]["ranges"]}
kernels = [int(l.split()[3]) - int(l.split()[2]) for l in open(sys.argv[2]) if l.startswith("kernel")]
spin = {l.split()[0]: [int(x) for x in l.split()[1:]] for l in open(sys.argv[3])}["cuDeviceGetCount"]
exact_summary = sys.argv[4] == "0"
assert len(kernels) == 13, kernels
# The mock ran them in the program's order: per iteration k3, k3, k5, the nested iter's.
truth = {"iter": sum(kernels[:12]), "k3": sum(k for i, k in enumerate(kernels[:12]) if i % 4 < 2),
         "k5": sum(k for i, k in enumerate(kernels[:12]) if i % 4 == 2)}
want = {"iter": (18, 12, 6), "k3": (9, 6, 3), "k5": (6, 3, 3)}  # calls, kernels, spun calls
bad = []
for name, (calls, n, spun) in want.items():
    r = rows[name]
    g = r["gpu"]
    if r["calls"] != calls:
        bad.append(f"{name}: {r['calls']} calls, expected {calls}")
    if g["instances"] != n:
        bad.append(f"{name}: {g['instances']} kernels, expected {n}")
    # 10 ns a record: the driver's elapsed times are floats of milliseconds.
    tol = 10 * n
    if not g["total_min_ns"] - tol <= truth[name] <= g["total_max_ns"] + tol:
        bad.append(f"{name}: GPU [{g['total_min_ns']}, {g['total_max_ns']}] misses the truth {truth[name]}")
    if "total_ns" in g and (g["exact_instances"] != n or abs(g["total_ns"] - truth[name]) > tol):
        bad.append(f"{name}: an exact total {g['total_ns']} that is not the truth {truth[name]}")
    if exact_summary:
        if r["calls_timed"] != calls:
            bad.append(f"{name}: {r['calls_timed']} of {calls} calls timed with the exact summary")
        # Each spun call's time brackets its wait; the calls lie inside the ranges.
        if not spun * spin[2] <= r["calls_ns"] <= r["total_ns"]:
            bad.append(f"{name}: host time {r['calls_ns']} outside [{spun * spin[2]}, {r['total_ns']}]")
    elif not r["calls_timed"] <= calls:
        bad.append(f"{name}: more calls timed than made")
outside = [n for n in rows if n not in want]
if outside:
    bad.append(f"other rows: {outside}")
print("\n".join(bad) if bad else
      f"calls 18/9/6 exact, GPU bounds hold the truth (iter {truth['iter']} ns in "
      f"[{rows['iter']['gpu']['total_min_ns']}, {rows['iter']['gpu']['total_max_ns']}])")
sys.exit(1 if bad else 0)
PY
  done
  unset CUAUDIT_SUMMARY_SAMPLE
  # The text table: the exact total of k5, bounds where some record is bounded.
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_GPU_TIME=on CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_SUMMARY=stderr CUAUDIT_LOG=warn audited "$G"
  expect_log 1 '^ +3( +[0-9]+){4} +0 +6 +[0-9]+  +15000000  k5$' audited.err
  expect_log 1 '^ +6( +[0-9]+){4} +0 +18 +[0-9]+  +[0-9]+–[0-9]+  iter$' audited.err
  ;;
report_merges_nvtx_ranges_and_per_range_columns_across_processes)
  # Two processes with GPU ranges and one with the threads' ranges: cuaudit report adds
  # counts and totals per (name, domain), takes min and max as extremes, sums the GPU bounds.
  G="$BIN/nvtx_gpu_prog"
  for i in 1 2; do
    NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_GPU_TIME=on CUAUDIT_SUMMARY_SAMPLE=0 \
      CUAUDIT_SUMMARY="$dir/g$i.json" CUAUDIT_LOG=warn audited "$G"
  done
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_SUMMARY="$dir/t.json" CUAUDIT_LOG=warn audited "$PROG"
  "$CLI" report --json "$dir/m.json" g1.json g2.json t.json >report.txt 2>report.err ||
    fail "report: $(head -3 report.err)"
  "$PYTHON" "$CHECK_JSON" merged m.json >check.txt 2>&1 && pass "the merged summary fits the schema" || fail "schema: $(head -3 check.txt)"
  "$PYTHON" - g1.json g2.json t.json m.json <<'PY' >merge.txt 2>&1 && pass "merged: $(tail -1 merge.txt)" || fail "merge: $(cat merge.txt)"
import json, sys
ins = [json.load(open(f))["nvtx"] for f in sys.argv[1:4]]
m = json.load(open(sys.argv[4]))["nvtx"]
got = {(r["name"], r["domain"]): r for r in m["ranges"]}
want = {}
for n in ins:
    for r in n["ranges"]:
        k = (r["name"], r["domain"])
        w = want.setdefault(k, {"ranges": 0, "total_ns": 0, "marks": 0, "calls": 0, "calls_timed": 0,
                                "calls_ns": 0, "min_ns": None, "max_ns": 0, "processes": 0, "gpu": None})
        for f in ("ranges", "total_ns", "marks", "calls", "calls_timed", "calls_ns"):
            w[f] += r[f]
        if r["ranges"]:
            w["min_ns"] = r["min_ns"] if w["min_ns"] is None else min(w["min_ns"], r["min_ns"])
        w["max_ns"] = max(w["max_ns"], r["max_ns"])
        w["processes"] += 1
        if "gpu" in r:
            g = w["gpu"] = w["gpu"] or dict.fromkeys(("instances", "exact_instances", "exact_ns", "total_min_ns", "total_max_ns"), 0)
            for f in g:
                g[f] += r["gpu"][f]
bad = []
if set(got) != set(want):
    bad.append(f"names {sorted(got)} != {sorted(want)}")
for k, w in want.items():
    r = got.get(k, {})
    for f, v in w.items():
        v = 0 if v is None else v
        if f == "gpu":
            if v and any(r.get("gpu", {}).get(x) != y for x, y in v.items()):
                bad.append(f"{k} gpu {r.get('gpu')} != {v}")
        elif r.get(f) != v:
            bad.append(f"{k} {f} {r.get(f)} != {v}")
for f in ins[0]["dropped"]:
    if m["dropped"][f] != sum(n["dropped"][f] for n in ins):
        bad.append(f"dropped {f}")
it = got[("iter", "")]
if it["calls"] != 36 or it["gpu"]["instances"] != 24 or it["processes"] != 2:
    bad.append(f"iter: {it}")
print("\n".join(bad) if bad else f"{len(got)} names, iter 36 calls and 24 kernels over 2 processes")
sys.exit(1 if bad else 0)
PY
  expect_log 1 '^NVTX ranges \(3 processes\)$' report.txt
  expect_log 1 '^ +6( +[0-9]+){4} +0 +18 +[0-9]+  +[0-9]+–[0-9]+ +2  k3$' report.txt
  expect_log 1 '^ +600( +[0-9]+){7}\* +- +1  step$' report.txt
  # Only the NVTX table; a merged summary merges again; no CSV form.
  "$CLI" report --table nvtx m.json >again.txt 2>&1
  expect_log 1 '^NVTX ranges \(3 processes\)$' again.txt
  expect_log 1 '^ +6( +[0-9]+){4} +0 +18 +[0-9]+  +[0-9]+–[0-9]+ +2  k3$' again.txt
  expect_log 0 'apis|GPU kernels' again.txt
  "$CLI" report --csv --table nvtx m.json >csv.txt 2>&1 && fail "--csv --table nvtx accepted" || pass "--csv --table nvtx refused"
  # A summary without the section leaves the table out.
  NVTX_INJECTION64_PATH= CUAUDIT_NVTX=off CUAUDIT_SUMMARY="$dir/off.json" CUAUDIT_LOG=warn audited "$PROG"
  "$CLI" report off.json >off.txt 2>&1
  expect_log 0 'NVTX ranges' off.txt
  ;;
nvtx_chain_naming_another_copy_of_our_library_counts_each_range_once)
  # Two installs of cuaudit (a system one and a build, a venv's): NVTX_INJECTION64_PATH may
  # name one's injection library when the other's `cuaudit run` starts, which puts it in
  # CUAUDIT_NVTX_CHAIN. The module connects every library of that name, so chaining the
  # copy counted every range and mark twice (1200 steps for 600). A copy of ours is never
  # chained: it would only repeat what ours reports.
  mkdir copy && cp "$NVTXLIB" copy/
  NVTX_INJECTION64_PATH="$NVTXLIB" CUAUDIT_NVTX_CHAIN="$dir/copy/libcuaudit-nvtx.so" \
    CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LOG=warn audited "$PROG"
  [ "$(cat audited.rc)" = 0 ] && pass "ran" || fail "status $(cat audited.rc): $(head -3 audited.err)"
  rows s.json >rows.txt || fail "summary not readable"
  has_row "step| 600 0"; has_row "registered|dom 600 600"; has_row "begin| 0 1"; has_row "across| 1 0"
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
