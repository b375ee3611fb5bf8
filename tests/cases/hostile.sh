#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/hostile.sh: hostile uses of the outputs and their readers: damaged raw traces, files cuaudit did not write, long and non-ASCII text, exec chains, repeated and hostile report inputs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
PROG="$BIN/output_prog"

# raw_file: a raw trace of this build's records (a process that _exits keeps it), cut to its
# head and first block, in first.raw; the block's record count in nrec.txt.
raw_file() {
  rm -f t.json t.json.*.raw
  CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" audited "$BIN/trace_exit" _exit
  local raw; raw=$(ls t.json.*.raw 2>/dev/null | head -1)
  [ -n "$raw" ] || { fail "no raw trace file: $(ls)"; finish; }
  "$PYTHON" - "$raw" <<'PY' || { fail "cannot cut the raw file"; finish; }
import struct, sys
H = 96  # struct cua_raw_head (record/tracefmt.h)
d = open(sys.argv[1], "rb").read()
assert d[:14] == b"cuaudit-raw/4\n", d[:16]
magic, state, n = struct.unpack_from("<IIQ", d, H)
assert magic == 0x4b4c4243 and state == 1, (magic, state)
open("first.raw", "wb").write(d[:H + 16 + n])
recs, at = 0, H + 16
while at < H + 16 + n:
    size, rid = struct.unpack_from("<IH", d, at)  # struct cua_rec_head (rt/callrec.h)
    at += size
    recs += rid < 0xfff0  # calls only: a thread's name record is no event
open("nrec.txt", "w").write(str(recs))
PY
  rm -f "$raw"
}

# utf8_ok FILE: the whole file is well-formed UTF-8 with no U+FFFD in it.
utf8_ok() {
  "$PYTHON" -c 'import sys; t=open(sys.argv[1],"rb").read().decode("utf-8"); sys.exit(1 if "\ufffd" in t else 0)' "$1" 2>/dev/null
}

case $name in
raw_trace_with_a_huge_block_length_converts_and_ends)
  # Before: a block whose length is 2^64-16 sent the reader round forever (the
  # module runs the same reader on its own raw file at exit).
  raw_file
  cp first.raw huge.raw
  "$PYTHON" -c 'import struct,sys; open("huge.raw","ab").write(struct.pack("<IIQ",0x4b4c4243,1,2**64-16))'
  timeout 30 "$CLI" trace -o "$dir/huge.json" huge.raw >conv.out 2>conv.err; rc=$?
  [ $rc != 124 ] && pass "cuaudit trace ends on a block claiming 2^64-16 bytes (status $rc)" || fail "cuaudit trace still runs after 30 s"
  [ $rc = 0 ] && pass "the file is converted" || fail "status $rc: $(head -2 conv.err)"
  "$PYTHON" "$CHECK_JSON" trace huge.json cuDeviceGetCount >check.txt 2>&1 || fail "trace JSON: $(tail -2 check.txt)"
  expect_log 1 "^cuDeviceGetCount events=$(cat nrec.txt)\$" check.txt
  expect_log 1 'block\(s\) cut short' conv.err
  # Without -o, the default name (the raw name without .PID.NONCE.raw, the pid put in once)
  # follows the outputs' rule: a file there that cuaudit did not write is left alone.
  pid=$("$PYTHON" -c 'import struct; print(struct.unpack_from("<Q", open("huge.raw","rb").read(), 24)[0])')
  cp huge.raw "t.json.$pid.1f.raw"
  echo mine >"t.$pid.json"
  "$CLI" trace "t.json.$pid.1f.raw" >conv.out 2>conv.err; rc=$?
  [ $rc = 0 ] && [ "$(cat "t.$pid.json")" = mine ] && [ "$(cat conv.out)" = "t.$pid.1.json" ] &&
    pass "default name: a foreign file is left alone, the trace goes to t.$pid.1.json" || fail "default name: $rc $(cat conv.out conv.err)"
  expect_log 1 "was not written by cuaudit and is left alone; cuaudit writes its trace to t.$pid.1.json" conv.err
  # Lengths that overflow an offset, and a block longer than the file by one byte.
  for len in 9223372036854775808 1; do
    cp first.raw more.raw
    "$PYTHON" -c 'import struct,sys; open("more.raw","ab").write(struct.pack("<IIQ",0x4b4c4243,1,int(sys.argv[1])+0))' "$len"
    timeout 30 "$CLI" trace -o "$dir/more.json" more.raw >conv.out 2>conv.err; rc=$?
    [ $rc = 0 ] && pass "length $len: converted and ended" || fail "length $len: status $rc"
  done
  ;;
raw_trace_cut_inside_its_head_is_said_to_be_cut_short)
  # A copy cut inside the 96-byte head (a full disk, a partial transfer) was called the work
  # of "another version of cuaudit", sending its owner after a version that does not exist;
  # a cut before the magic's end read bytes pread never filled.
  raw_file
  for cut in 1 13 14 20 50 95; do
    head -c $cut first.raw >cut.raw
    "$CLI" trace -o "$dir/cut.json" cut.raw >conv.out 2>conv.err; rc=$?
    [ $rc = 1 ] && grep -q "cut.raw is cut short: its head has $cut of 96 bytes" conv.err &&
      ! grep -q 'another version' conv.err && pass "cut at $cut: refused, said to be cut short" ||
      fail "cut at $cut: status $rc: $(cat conv.err)"
    [ ! -e cut.json ] && pass "cut at $cut: no trace written" || fail "cut at $cut: a trace was written"
  done
  ;;
raw_trace_records_with_lying_lengths_are_skipped_whole)
  # A record whose flag bits announce out-values and a kernel name it does not hold: the
  # formatter read them from the next records (and past the window at a block's end).
  raw_file
  "$PYTHON" - <<'PY'
import struct
d = bytearray(open("first.raw", "rb").read())
H = 96  # struct cua_raw_head
second = H + 16 + struct.unpack_from("<I", d, H + 16)[0]  # struct cua_rec_head (rt/callrec.h)
assert struct.unpack_from("<H", d, second + 4)[0] < 0xfff0, "the second record is a call"
struct.pack_into("<I", d, second + 12, 0xffffffff)           # every flag
# the last record: a kernel-name bit at the end of the block, nothing after it
at, last = H + 16, None
while at < len(d):
    last, at = at, at + struct.unpack_from("<I", d, at)[0]
# CUA_REC_OUT(0) | CUA_REC_KERNEL: its out-value, then a name past its end
struct.pack_into("<I", d, last + 12, 0x104)
open("lying.raw", "wb").write(d)
PY
  timeout 30 "$CLI" trace -o "$dir/lying.json" lying.raw >conv.out 2>conv.err; rc=$?
  [ $rc = 0 ] && pass "converted" || fail "status $rc: $(head -2 conv.err)"
  "$PYTHON" "$CHECK_JSON" trace lying.json cuDeviceGetCount >check.txt 2>&1 || fail "trace JSON: $(tail -2 check.txt)"
  expect_log 1 "^cuDeviceGetCount events=$(( $(cat nrec.txt) - 2 ))\$" check.txt
  ! grep -q kernel_name lying.json && pass "no kernel name read from outside a record" || fail "a kernel name was made up from other bytes"
  ;;
raw_trace_with_the_live_view_holds_call_records_alone)
  # With the live view on, the trace keeps most calls in the thread's ring and writes them
  # out as call records (record/tracefmt.h): the raw file holds the same records as without
  # the view, each as long as its call needs (64 bytes for cuDeviceGetCount, not the ring's
  # 144), and nothing a reader must join. Checked on the raw file a process that ends with
  # _exit leaves (its blocks written out of the ring while it ran), then converted.
  mkdir -m 700 live
  rm -f t.json t.json.*.raw
  CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR="$dir/live" CUAUDIT_LOG=warn CUAUDIT_TRACE="$dir/t.json" \
    audited "$BIN/trace_exit" _exit
  raw=$(ls t.json.*.raw 2>/dev/null | head -1)
  [ -n "$raw" ] || { fail "no raw trace file: $(ls)"; finish; }
  "$PYTHON" - "$raw" >counts.txt <<'PY' || { fail "the raw file: $(cat counts.txt)"; finish; }
import struct, sys
H = 96  # the raw file's head; then blocks: magic, state, bytes, records
d = open(sys.argv[1], "rb").read()
assert d[:14] == b"cuaudit-raw/4\n", d[:16]
at, calls, sizes, other = H, 0, set(), []
while at + 16 <= len(d):
    magic, state, n = struct.unpack_from("<IIQ", d, at)
    if magic == 0:
        at += 8
        continue
    assert magic == 0x4b4c4243 and state == 1, (at, magic, state)
    r = at + 16
    while r < at + 16 + n:
        size, rid = struct.unpack_from("<IH", d, r)
        assert size >= 40 and size % 8 == 0 and r + size <= at + 16 + n, (r, size)
        if rid < 0xfff0:
            calls += 1
            sizes.add(size)
        elif rid != 0xfffe:  # a thread's name
            other.append(hex(rid))
        r += size
    at += 16 + n
print(calls, " ".join(map(str, sorted(sizes))), " ".join(other) or "-")
PY
  read -r ncalls sizes other <counts.txt
  [ "$ncalls" -ge 768 ] && pass "the raw file holds $ncalls call records" || fail "only $ncalls call records"
  [ "$sizes" = 64 ] && pass "each of 64 bytes, as the call needs" || fail "record sizes: $sizes"
  [ "$other" = - ] && pass "no record but calls and thread names" || fail "other records: $other"
  timeout 30 "$CLI" trace -o "$dir/whole.json" "$raw" >conv.out 2>conv.err; rc=$?
  [ $rc = 0 ] && pass "converted" || fail "status $rc: $(head -2 conv.err)"
  "$PYTHON" "$CHECK_JSON" trace whole.json cuDeviceGetCount >check.txt 2>&1 || fail "trace JSON: $(tail -2 check.txt)"
  expect_log 1 "^cuDeviceGetCount events=$ncalls\$" check.txt
  ;;
raw_trace_thread_without_a_recorded_name_is_main_or_thread_tid)
  # A thread's first record carries its name; a block without it (a damaged record, a raw
  # file of an older layout rewritten) names the thread whose id is the pid "main", others
  # "thread TID".
  raw_file
  "$PYTHON" - >want.txt <<'PY'
import struct
H = 96
d = bytearray(open("first.raw", "rb").read())
pid = struct.unpack_from("<Q", d, 24)[0]
size, rid = struct.unpack_from("<IH", d, H + 16)  # struct cua_rec_head (rt/callrec.h)
assert rid == 0xfffe, hex(rid)  # the block's first record: its thread's name
tid = struct.unpack_from("<I", d, H + 16 + 8)[0]
struct.pack_into("<H", d, H + 16 + 4, 0xfff0)  # no longer a name: an unknown record, skipped
open("noname.raw", "wb").write(d)
print(tid, "main" if tid == pid else f"thread {tid}")
struct.pack_into("<Q", d, 24, tid)  # the same block as the process's main thread's
open("mainname.raw", "wb").write(d)
PY
  read -r tid want <want.txt
  name_of() { "$PYTHON" -c 'import json,sys; ev=json.load(open(sys.argv[1]))["traceEvents"]; print({e["tid"]: e["args"]["name"] for e in ev if e.get("name") == "thread_name"}.get(int(sys.argv[2])))' "$@"; }
  "$CLI" trace -o "$dir/noname.json" noname.raw >conv.out 2>conv.err || fail "convert: $(cat conv.err)"
  got=$(name_of noname.json "$tid")
  [ -n "$tid" ] && [ "$got" = "$want" ] && pass "thread $tid without a recorded name: '$got'" || fail "thread $tid: '$got', want '$want'"
  "$CLI" trace -o "$dir/mainname.json" mainname.raw >conv.out 2>conv.err || fail "convert: $(cat conv.err)"
  got=$(name_of mainname.json "$tid")
  [ "$got" = main ] && pass "the pid's own thread without a recorded name: '$got'" || fail "main thread: '$got'"
  "$CLI" trace -o "$dir/named.json" first.raw >/dev/null 2>&1
  got=$(name_of named.json "$tid")
  [ "$got" = trace_exit ] && pass "with its record: '$got'" || fail "with its record: '$got'"
  ;;
no_output_replaces_or_appends_to_a_file_cuaudit_did_not_write)
  # Before: CUAUDIT_METRICS replaced a file it did not write; the log appended to
  # one. One rule for every output: left alone, said once, written to NAME.1.ext.
  for f in log.txt s.json t.json m.prom; do printf 'not cuaudit\x27s %s\n' "$f" >"$f"; cp "$f" "$f.orig"; done
  native "$PROG" calls 100
  env LD_AUDIT="$AUDIT" CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" \
    CUAUDIT_METRICS="$dir/m.prom" "$PROG" calls 100 >audited.out 2>audited.err
  echo $? >audited.rc
  same_results
  for f in s.json t.json m.prom; do
    cmp -s "$f" "$f.orig" && pass "$f left alone" || fail "$f was changed: $(head -c 80 "$f")"
  done
  "$PYTHON" -c 'import json; json.load(open("s.1.json")); json.load(open("t.1.json"))' && pass "summary and trace went to s.1.json and t.1.json" || fail "no s.1.json/t.1.json: $(ls)"
  expect_log 1 'api="cuDeviceGetCount".*\} 100$' m.1.prom
  for out in summary trace metrics; do
    expect_log 1 "^cuaudit: warning: .* was not written by cuaudit and is left alone; cuaudit writes its $out to " audited.err
  done
  expect_log 3 'was not written by cuaudit' audited.err
  # The log, at verbose: never appended to a file that is not a log of cuaudit's.
  CUAUDIT_LOG_FILE="$dir/log.txt" audited "$PROG" calls 100
  cmp -s log.txt log.txt.orig && pass "log.txt left alone" || fail "log.txt was appended to"
  expect_log 100 "$(call cuDeviceGetCount plt)" log.1.txt
  expect_log 1 "^cuaudit: warning: $dir/log.txt was not written by cuaudit and is left alone; cuaudit writes its log to $dir/log.1.txt\$" audited.err
  # cuaudit's own files are reused in place, silently.
  CUAUDIT_LOG_FILE="$dir/log.txt" audited "$PROG" calls 100
  expect_log 200 "$(call cuDeviceGetCount plt)" log.1.txt
  [ ! -e log.2.txt ] && pass "the log of cuaudit's is appended to" || fail "log.2.txt made"
  ;;
long_metrics_labels_give_whole_rows_promtool_accepts)
  # Before: 8 accepted labels of 120 characters cut each row at 1 KiB.
  v=$(printf 'v%.0s' $(seq 120))
  labels=""
  for i in 1 2 3 4 5 6 7 8; do labels+="${labels:+,}label$i=$i$v"; done
  # A program that calls many APIs: dozens of rows fill the writer's 16 KiB buffer.
  native "$BIN/driver_lazy"
  CUAUDIT_LOG=warn CUAUDIT_METRICS="$dir/m.prom" CUAUDIT_METRICS_LABELS="$labels" audited "$BIN/driver_lazy"
  same_results
  rows=$(grep -c '^cuaudit_' m.prom)
  whole=$(grep -cE "^cuaudit_[a-z_]+\\{host=\"[^\"]+\",pid=\"[0-9]+\",program=\"driver_lazy\",label1=\"1v{120}\",label2=\"2v{120}\",label3=\"3v{120}\",label4=\"4v{120}\",label5=\"5v{120}\",label6=\"6v{120}\",label7=\"7v{120}\",label8=\"8v{120}\",api=\"[A-Za-z_0-9]+\",layer=\"(driver|runtime)\",nested=\"(true|false)\"\\} [0-9.]+\$" m.prom)
  [ "$rows" -gt 0 ] && [ "$rows" = "$whole" ] && pass "all $rows rows whole" || fail "$whole of $rows rows whole: $(grep '^cuaudit_' m.prom | head -1 | cut -c1-200)"
  [ "$rows" -gt 40 ] && pass "$rows rows (more than the buffer holds)" || fail "only $rows rows"
  expect_log 1 '^cuaudit_calls_total\{.*api="cuMemAlloc_v2".*\} 1$' m.prom
  if command -v promtool >/dev/null; then
    promtool check metrics <m.prom >promtool.txt 2>&1 && pass "promtool accepts it" || fail "promtool: $(head -3 promtool.txt)"
  elif [ "${CI:-}" = true ]; then
    fail "promtool is not installed"
  fi
  ;;
utf8_command_line_of_any_length_stays_valid_json_and_text)
  # Before: 1,600 CJK characters cut the summary at 16 KiB (each byte became a
  # 6-byte escape); café read back as cafÃ©. A program name the kernel cuts inside a character
  # (comm keeps 15 bytes) must not turn into U+FFFD either.
  prog="$dir/aaaaaaaaaaaaaaé"
  cp "$PROG" "$prog"
  cjk=$("$PYTHON" -c 'print("中" * 1600)')
  native "$prog" args "$cjk" café
  CUAUDIT_LOG=verbose CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_TRACE="$dir/t.json" CUAUDIT_METRICS="$dir/m.prom" \
    audited "$prog" args "$cjk" café
  same_results
  "$PYTHON" - "$prog" "$cjk" <<'PY' >check.txt 2>&1 && pass "summary command is exact: $(cat check.txt)" || fail "summary: $(tail -3 check.txt)"
import json, sys
d = json.load(open("s.json", encoding="utf-8"))
want = f"{sys.argv[1]} args {sys.argv[2]} café"
got = d["process"]["command"]
# /proc/self/cmdline is read up to 4095 bytes: a prefix of whole characters.
assert want.startswith(got) and len(got.encode()) > 4000, (len(got), got[-20:])
assert "\ufffd" not in json.dumps(d, ensure_ascii=False)
print(len(got), "characters")
PY
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/short.json" audited "$prog" args café
  "$PYTHON" -c 'import json,sys; c=json.load(open("short.json"))["process"]["command"]; sys.exit(0 if c.endswith(" args café") else 1)' &&
    pass "café reads back as café" || fail "café: $(grep -o '"command":"[^"]*"' short.json)"
  "$PYTHON" "$CHECK_JSON" trace t.json cuInit >check.txt 2>&1 || fail "trace JSON: $(tail -2 check.txt)"
  for f in s.json t.json m.prom log.txt; do
    utf8_ok "$f" && pass "$f is well-formed UTF-8 without U+FFFD" || fail "$f is not clean UTF-8"
  done
  expect_log + 'program="aaaaaaaaaaaaaa",' m.prom
  grep -q '"name":"aaaaaaaaaaaaaa"' t.json && pass "thread name cut by the kernel ends on a whole character" || fail "thread name: $(grep -o 'thread_name[^}]*' t.json | head -1)"
  # The text summary: the command quoted, at most about 512 bytes, whole characters.
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.txt" audited "$prog" args "$cjk" café
  utf8_ok s.txt && grep -q '中中中"\.\.\.' s.txt && pass "text summary: the command cut between characters" || fail "text summary: $(head -c 300 s.txt)"
  ;;
exec_of_itself_110_times_keeps_every_image_summary)
  # Before: names stopped at NAME.99.json; images 101 and later were lost.
  args=()
  for i in $(seq 110); do args+=(launch 1 "$PROG"); done
  native "$PROG" "${args[@]}" calls 1
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" audited "$PROG" "${args[@]}" calls 1
  same_results
  [ ! -s audited.err ] && pass "nothing said" || fail "stderr: $(head -3 audited.err)"
  "$PYTHON" - <<'PY' >check.txt 2>&1 && pass "$(cat check.txt)" || fail "$(tail -3 check.txt)"
import json, os
names = ["s.json"] + [f"s.{k}.json" for k in range(1, 111)]
missing = [n for n in names if not os.path.exists(n)]
assert not missing, f"missing {missing[:5]}"
calls = [next(a["calls"] for a in json.load(open(n))["apis"] if a["name"] == "cuDeviceGetCount" and not a["nested"]) for n in names]
assert calls == [1] * 111, calls
assert not os.path.exists("s.111.json")
print("111 images, 111 whole summaries (s.json to s.110.json), one call each")
PY
  # One pid, 111 images: cuaudit report counts each image once.
  "$CLI" report --csv s.json s.*.json >r.csv 2>r.err
  expect_log 1 '^false,driver,cuDeviceGetCount,111,' r.csv
  [ ! -s r.err ] && pass "report: nothing said" || fail "report: $(head -2 r.err)"
  ;;
report_counts_one_process_once_and_escapes_terminal_controls)
  # Before: the same file twice was merged twice; names with escape sequences
  # reached the terminal raw.
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.json" audited "$PROG" calls 1000
  cp s.json copy.json
  for twice in "s.json s.json" "s.json copy.json" "s.json ./s.json"; do
    "$CLI" report --csv $twice >r.csv 2>r.err; rc=$?
    [ $rc = 0 ] && pass "report $twice: status 0" || fail "report $twice: $rc $(head -2 r.err)"
    expect_log 1 '^false,driver,cuDeviceGetCount,1000,' r.csv
    expect_log 1 'counted once' r.err
  done
  # Copies that describe two images of one pid (an exec in the same second, with the same
  # command) differ only in process.image: counted twice. An old summary without an image id
  # is compared by start time and command.
  "$PYTHON" - <<'PY'
import json
d = json.load(open("s.json"))
assert d["process"]["image"].startswith("0x"), d["process"]
d["process"]["image"] = "0x1"
json.dump(d, open("image2.json", "w"))
del d["process"]["image"]
json.dump(d, open("old1.json", "w"))
json.dump(d, open("old2.json", "w"))
PY
  "$CLI" report --csv s.json image2.json >r.csv 2>r.err
  expect_log 1 '^false,driver,cuDeviceGetCount,2000,' r.csv
  [ ! -s r.err ] && pass "two images of one pid: nothing said" || fail "two images: $(head -2 r.err)"
  "$CLI" report --csv old1.json old2.json >r.csv 2>r.err
  expect_log 1 '^false,driver,cuDeviceGetCount,1000,' r.csv
  expect_log 1 'counted once' r.err
  # Two real processes are still two.
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/other.json" audited "$PROG" calls 1000
  "$CLI" report --csv s.json other.json >r.csv 2>r.err
  expect_log 1 '^false,driver,cuDeviceGetCount,2000,' r.csv
  [ ! -s r.err ] && pass "two processes: nothing said" || fail "two processes: $(head -2 r.err)"
  # Hostile names: OSC (title), CSI (clear screen), C1 CSI, BEL, DEL, a bad byte.
  "$PYTHON" - <<'PY'
import json
d = json.load(open("s.json"))
d["apis"][0]["name"] = "cuInit\x1b]0;owned\x07"
d["process"]["command"] = "x\x1b[2J\x1b[H\u009b1m\x7f"
d["process"]["pid"] = 1
d["kernels"] = [{"name": "k\x1b[31mred", "launches": 1, "errors": 0, "total_ns": 5}]
open("evil.json", "w").write(json.dumps(d))
PY
  for how in "" --csv "--csv --table=kernels" "--csv --table=processes"; do
    "$CLI" report $how evil.json >r.txt 2>r.err; rc=$?
    [ $rc = 0 ] && pass "report $how: status 0" || fail "report $how: $rc $(head -2 r.err)"
    if "$PYTHON" -c 'import sys; t=open(sys.argv[1],"rb").read().decode("utf-8"); sys.exit(1 if any(ord(c)<32 and c not in "\n" or 0x7f<=ord(c)<0xa0 for c in t) else 0)' r.txt; then
      pass "report $how: no control character reaches the output"
    else
      fail "report $how: control characters: $(od -c r.txt | grep -m2 '033\|007\|302')"
    fi
  done
  "$CLI" report evil.json >r.txt 2>&1
  grep -qF 'cuInit\x1b]0;owned\x07' r.txt && grep -qF 'x\x1b[2J\x1b[H\x9b1m\x7f' r.txt && grep -qF 'k\x1b[31mred' r.txt &&
    pass "escapes shown visibly" || fail "escapes not visible: $(grep -a -m3 -e owned -e red -e 2J r.txt)"
  "$CLI" report -j merged.json evil.json >/dev/null 2>&1
  "$PYTHON" -c 'import json; d=json.load(open("merged.json")); assert any(a["name"]=="cuInit\x1b]0;owned\x07" for a in d["apis"])' &&
    pass "the merged JSON keeps the name exactly (escaped as JSON)" || fail "merged JSON"
  ! grep -q $'\x1b' merged.json && pass "the merged JSON holds no raw ESC" || fail "raw ESC in merged.json"
  ;;
*)
  fail "unknown case $name"
  ;;
esac
finish
