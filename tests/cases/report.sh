#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/report.sh: `cuaudit report` against golden tables, its options, bad inputs, and the one summary schema.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
GOLD="$SRC/tests/golden/report"
cp "$GOLD"/plain.json "$GOLD"/sampled.json "$GOLD"/snapshot.json .

# golden NAME ARGS...: cuaudit report ARGS (run here, on relative names) prints exactly GOLD/NAME.
golden() {
  local want=$1
  shift
  "$CLI" report "$@" >got.txt 2>err.txt
  local rc=$?
  [ $rc = 0 ] && pass "report $* exits 0" || fail "report $*: $rc $(head -3 err.txt)"
  if cmp -s "$GOLD/$want" got.txt; then pass "output is $want"; else fail "output differs from $want"; diff "$GOLD/$want" got.txt | head -20; fi
}

# bad FILE TEXT: cuaudit report rejects FILE with exit 1 and a message containing TEXT.
bad() {
  "$CLI" report "$1" >out.txt 2>err.txt
  local rc=$?
  if [ $rc = 1 ] && grep -qF -- "$2" err.txt && [ ! -s out.txt ]; then
    pass "$1: exit 1, '$2'"
  else
    fail "$1: exit $rc, stderr: $(head -2 err.txt)"
  fi
}

case $name in
report_text_table_matches_golden)
  golden text.txt plain.json sampled.json
  ;;
report_csv_matches_golden)
  golden csv.txt --csv plain.json sampled.json snapshot.json
  "$PYTHON" - got.txt >rows.txt <<'PY' || fail "CSV does not parse"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = [x for x in rows if x["api"] == "cudaLaunchKernel"][0]
print(len(rows), r["calls"], r["timed"], r["estimated"], r["processes"])
PY
  expect_log 1 '^5 1006 16 true 2$' rows.txt
  ;;
report_kernel_table_matches_golden)
  golden kernels.txt --table=kernels plain.json sampled.json snapshot.json
  golden kernels.csv --csv --table=kernels plain.json sampled.json snapshot.json
  ;;
report_merges_three_summaries_one_sampled_one_snapshot)
  golden three.txt --json="$dir/merged.json" plain.json sampled.json snapshot.json
  expect_log 1 '^cuaudit report: warning: snapshot.json is a snapshot of a process that was still running' err.txt
  expect_log 1 '^  snapshot.json: pid 4103 .*\[snapshot\]$' got.txt
  expect_log 1 '^~ estimate: ' got.txt
  "$PYTHON" "$CHECK_JSON" merged merged.json >check.txt 2>&1 && pass "merged JSON matches the schema" || fail "merged: $(tail -2 check.txt)"
  "$PYTHON" - merged.json >merged.txt <<'PY' || fail "merged JSON"
import json, sys
d = json.load(open(sys.argv[1]))
a = {(x["name"], x["nested"]): x for x in d["apis"]}
k = {x["name"]: x for x in d["kernels"]}
l = a[("cudaLaunchKernel", False)]
print("launch", l["calls"], l["timed"], l["total_ns"], l["processes"], l["total_err_ns"])
print("init", a[("cuInit", False)]["calls"], a[("cuInit", False)]["min_ns"], a[("cuInit", False)]["max_ns"])
print("saxpy", k["saxpy"]["launches"], k["saxpy"]["errors"], k["saxpy"]["estimated"], k["saxpy"]["processes"])
print("snapshot", d["snapshot"], [p["snapshot"] for p in d["processes"]], [p["host"] for p in d["processes"]])
PY
  # Timed counts add up (6 of 6, and 10 of 1000 sampled); an input without "timed" counts all its calls.
  # The sampled input's 95% interval carries over (the exact one adds none).
  expect_log 1 '^launch 1006 16 90600000 2 2500000$' merged.txt
  expect_log 1 '^init 2 850 1200$' merged.txt
  expect_log 1 '^saxpy 1004 2 True 2$' merged.txt
  expect_log 1 "^snapshot True \[False, False, True\] \['node1', 'node2', None\]$" merged.txt
  ;;
report_options_follow_getopt_conventions)
  "$CLI" report --help >help.txt 2>&1; rc=$?
  [ $rc = 0 ] && grep -q '^usage: cuaudit report' help.txt && pass "--help: 0 and usage" || fail "--help: $rc"
  "$CLI" report -h | cmp -s - help.txt && pass "-h is --help" || fail "-h"
  "$CLI" report --csv --sort=calls plain.json sampled.json >a.txt
  for form in "--sort calls" "-s calls" "-scalls"; do
    # shellcheck disable=SC2086
    "$CLI" report --csv $form plain.json sampled.json >b.txt && cmp -s a.txt b.txt &&
      pass "'$form' is --sort=calls" || fail "'$form' differs"
  done
  "$CLI" report plain.json --csv sampled.json --sort=calls >b.txt && cmp -s a.txt b.txt &&
    pass "options after file names" || fail "options after file names"
  for key in total calls avg errors; do
    echo "$key $("$CLI" report --csv --sort=$key plain.json sampled.json | sed -n '2,4p' | cut -d, -f3 | tr '\n' ' ')"
  done >order.txt
  expect_log 1 '^total cudaLaunchKernel cudaMalloc cuInit $' order.txt
  expect_log 1 '^calls cudaLaunchKernel cudaMalloc cuInit $' order.txt
  expect_log 1 '^avg cudaMalloc cudaLaunchKernel cuInit $' order.txt
  expect_log 1 '^errors cudaMalloc cuInit cudaLaunchKernel $' order.txt
  for form in "--top 1" "--top=1" "-n 1" "-n1"; do
    # shellcheck disable=SC2086
    "$CLI" report $form plain.json sampled.json >top.txt
    grep -c ' runtime  cudaLaunchKernel$' top.txt | grep -qx 1 && ! grep -q 'cudaMalloc$' top.txt &&
      grep -q '  1013 .* Total (3 APIs)$' top.txt && grep -q '(2 more rows; --top=1 shows the first 1)' top.txt &&
      pass "'$form': first row only, Total over all rows" || fail "'$form': $(head -8 top.txt)"
  done
  "$CLI" report --csv --top=1 plain.json sampled.json | wc -l | grep -qx 3 && pass "--top in CSV: one row per section" || fail "--top CSV"
  for args in "--bogus plain.json|unknown option --bogus" "--sort=size plain.json|--sort: expected" \
    "--top=0 plain.json|--top: expected a positive number" "--top=x plain.json|--top: expected" \
    "--table=gpu plain.json|--table: expected" "plain.json --sort|missing value for --sort" \
    "|no summary files given"; do
    # shellcheck disable=SC2086
    "$CLI" report ${args%%|*} >out.txt 2>err.txt; rc=$?
    [ $rc = 2 ] && grep -qF -- "${args#*|}" err.txt && grep -q "Try 'cuaudit report --help'" err.txt &&
      pass "usage error '${args%%|*}': 2, '${args#*|}'" || fail "'${args%%|*}': $rc $(head -1 err.txt)"
  done
  ;;
report_bad_inputs_exit_1_with_a_clear_message)
  # Each reader bug found before, then what RFC 8259 and the schema reject.
  printf '{"schema":"cuaudit-summary/1","apis":[{"name":"x\\u' >trailing_u.json
  bad trailing_u.json 'trailing_u.json is not a cuaudit JSON summary: line 1, column 51: \u needs four hex digits'
  sed 's/"total_ns":850,/"total_ns":NaN,/' plain.json >nan.json
  bad nan.json 'nan.json is not a cuaudit JSON summary: line 6, column'
  sed 's/"total_ns":850,/"total_ns":1e999,/' plain.json >huge.json
  bad huge.json 'number out of range'
  "$CLI" report --json="$dir/huge_merged.json" huge.json >/dev/null 2>&1
  [ ! -e huge_merged.json ] && pass "no merged JSON written from a rejected input" || fail "huge_merged.json written"
  sed 's/"calls":1,/"calls":-1,/' plain.json >negative.json
  bad negative.json 'apis[2].calls: expected a non-negative integer'
  sed 's/"calls":1,/"calls":"1",/' plain.json >string_count.json
  bad string_count.json 'apis[2].calls: expected a non-negative integer'
  sed 's/"calls":1,/"calls":1,"calls":1,/' plain.json >duplicate.json
  bad duplicate.json 'an object repeats a member name'
  sed 's/"layer":"driver"/"layer":"gpu"/' snapshot.json >layer.json
  bad layer.json 'apis[0].layer: expected "driver" or "runtime"'
  printf '{"schema":"cuaudit-summary/1","apis":[{"name":"cu\xffInit"}]}' >utf8.json
  bad utf8.json 'invalid UTF-8'
  { printf '{"schema":"cuaudit-summary/1","apis":[],"x":'; printf '[%.0s' $(seq 70); printf ']%.0s' $(seq 70); printf '}'; } >deep.json
  bad deep.json 'nested too deeply'
  printf '{"schema":"cuaudit-summary/1","apis":[]} x' >trailing.json
  bad trailing.json 'text after the JSON value'
  echo '{"not":"a summary"}' >foreign.json
  bad foreign.json 'schema: missing'
  echo 'cuaudit summary: calls the application made, pid 1' >text_form.txt
  bad text_form.txt 'line 1, column 1: expected a value'
  : >empty.json
  bad empty.json 'expected a value'
  mkdir adir
  bad adir 'cannot read adir: not a regular file'
  bad missing.json 'cannot read missing.json: No such file or directory'
  "$CLI" report plain.json huge.json >out.txt 2>err.txt; rc=$?
  [ $rc = 1 ] && grep -q '^cuaudit report: 1 process$' out.txt && grep -q 'huge.json' err.txt &&
    pass "one bad input of two: exit 1, the other still reported" || fail "mixed inputs: $rc"
  "$CLI" report --json=/nonexistent/dir/m.json plain.json >out.txt 2>err.txt; rc=$?
  [ $rc = 1 ] && grep -q 'cannot write /nonexistent/dir/m.json' err.txt && pass "unwritable --json: 1" || fail "unwritable --json: $rc"
  ;;
report_merges_100k_api_names)
  # Correctness at scale; the cost is measured in bench/report.sh and bounded in unit_report.
  "$PYTHON" - <<'PY' || fail "generate"
import json
for i, calls in ((1, 3), (2, 10)):
    apis = [{"name": f"api{n}", "layer": "driver", "nested": False, "calls": calls, "errors": 0,
             "total_ns": n} for n in range(100000)]
    json.dump({"schema": "cuaudit-summary/1", "pid": i, "apis": apis}, open(f"big{i}.json", "w"))
PY
  start=$(date +%s%N)
  "$CLI" report --csv big1.json big2.json >big.csv 2>err.txt || fail "report: $(head -2 err.txt)"
  echo "note: merged 2 x 100000 names in $((($(date +%s%N) - start) / 1000000)) ms"
  [ "$(wc -l <big.csv)" = 100001 ] && pass "100000 merged rows" || fail "rows: $(wc -l <big.csv)"
  awk -F, 'NR > 1 && ($4 != 13 || $12 != 2) { bad++ } END { exit bad > 0 }' big.csv &&
    pass "every row has 13 calls from 2 processes" || fail "merged counts wrong"
  ;;
summary_schema_doc_reader_and_checker_agree)
  # docs/hooks.md against docs/summary-schema.json; the reader's side is unit_report's.
  "$PYTHON" "$CHECK_JSON" schema-doc "$SRC/docs/hooks.md" >doc.txt 2>&1 && pass "hooks.md: $(cat doc.txt)" || fail "hooks.md: $(tail -2 doc.txt)"
  # The writer against the schema, then the reader on the writer's output.
  CUAUDIT_LOG=off CUAUDIT_SUMMARY="$dir/s.json" audited "$BIN/driver_lazy"
  "$PYTHON" "$CHECK_JSON" summary s.json >check.txt 2>&1 && pass "the writer's summary matches the schema" || fail "writer: $(tail -2 check.txt)"
  "$CLI" report --json="$dir/m.json" s.json >report.txt 2>&1 && "$PYTHON" "$CHECK_JSON" merged m.json >/dev/null 2>&1 &&
    pass "the reader takes it and writes a valid merged summary" || fail "reader: $(head -2 report.txt)"
  # The checker can fail: a summary that breaks the schema is refused.
  "$PYTHON" -c 'import json,sys; d=json.load(open("s.json")); d["apis"][0]["calls"]="7"; json.dump(d,open("broken.json","w"))'
  if "$PYTHON" "$CHECK_JSON" summary broken.json >check.txt 2>&1; then
    fail "checker accepted a string count"
  elif grep -q "apis\[0\].calls: '7' is not integer" check.txt; then
    pass "checker refuses a schema violation"
  else
    fail "checker: $(tail -1 check.txt)"
  fi
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
