#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/memgroup.sh: a memory quota shared by a group of processes: exact across processes, crash-safe, seen by the driver's and NVML's reports and by `cuaudit ps --groups`.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

mkdir share
export CUAUDIT_SHARE_DIR="$dir/share" CUAUDIT_MEM_GROUP=g CUAUDIT_MEM_LIMIT=64MiB CUAUDIT_LOG=warn
FILE="$dir/share/cuaudit-memgroup-$(id -u)-g"
PROG="$BIN/memgroup_prog"
# The slots of the file (docs/hooks.md, "A memory group"): 4096 bytes of head, then 1088 each.
SLOT_SIZE=1088

# group CMD...: runs CMD under cuaudit in the group (output in the caller's redirections);
# through env, which execs it, so that `group CMD &` gives CMD's own pid in $!.
group() { env LD_AUDIT="$AUDIT" "$@"; }
G=(env LD_AUDIT="$AUDIT")
# granted_alone: what one process gets by allocating 1 MiB chunks until refused.
granted_alone() { group "$PROG" fill 1024 2>>alone.err | sed -n 's/^granted //p'; }
# wait_for FILE REGEX: up to 30 s for a line.
wait_for() {
  for _ in $(seq 300); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# start_ticks PID: field 22 of /proc/PID/stat.
start_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $20 }'; }
# fake_slot INDEX PID TICKS USED_BYTES: writes a ready slot of process PID (started at TICKS)
# charged USED_BYTES on device 0, as a process that died just so would have left it.
# FAKE_NS: its pid namespace's inode (this one's by default); FAKE_FLAGS: its flags (0).
fake_slot() {
  "$PYTHON" - "$FILE" "$@" <<'PY'
import mmap, os, struct, sys
path, i, pid, ticks, used = sys.argv[1], *map(int, sys.argv[2:])
with open(path, "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    hwm_at = 8 + 4 * 2 + 8 + 4 * 4 + 8 * 64 + 8
    hwm = struct.unpack_from("<I", m, hwm_at)[0]
    struct.pack_into("<I", m, hwm_at, max(hwm, i + 1))
    at = 4096 + i * 1088
    ns = int(os.environ.get("FAKE_NS") or os.stat("/proc/self/ns/pid").st_ino)
    owner = pid | (12345 << 32) | (1 << 63)
    struct.pack_into("<QQQQ", m, at, owner, ticks, ns, int(os.environ.get("FAKE_FLAGS", "0")))
    struct.pack_into("<Q", m, at + 64 + 64 * 8, used)  # used[0]
    m.close()
PY
}

# file_quota: the MiB of the file's quota on device 0.
file_quota() { echo $(( $(od -An -t u8 -j 40 -N 8 "$FILE" | tr -d ' ') >> 20 )); }
# slot_used PID: the MiB charged on device 0 in the ready slot of process PID, or "none".
slot_used() {
  "$PYTHON" - "$FILE" "$1" <<'PY'
import struct, sys
path, pid = sys.argv[1], int(sys.argv[2])
m = open(path, "rb").read()
hwm = struct.unpack_from("<I", m, 8 + 4 * 2 + 8 + 4 * 4 + 8 * 64 + 8)[0]
got = "none"
for i in range(hwm):
    at = 4096 + i * 1088
    owner = struct.unpack_from("<Q", m, at)[0]
    if owner >> 63 and owner & 0xffffffff == pid:
        got = str(struct.unpack_from("<Q", m, at + 64 + 64 * 8)[0] >> 20)
print(got)
PY
}

case $name in
memgroup_three_processes_share_the_quota_exactly_round_after_round)
  # 64 MiB of 1 MiB chunks: whatever the interleaving, the three get 64 between them in
  # each round. Without the group each would get 64 (192 together).
  rounds=100
  start=$(date +%s)
  pids=()
  for i in 1 2 3; do
    "${G[@]}" "$PROG" rounds "$dir/barrier" 3 $rounds 1024 >p$i.out 2>p$i.err &
    pids+=($!)
  done
  rcs=""
  for p in "${pids[@]}"; do wait "$p"; rcs="$rcs $?"; done
  [ "$rcs" = " 0 0 0" ] && pass "three processes ran $rounds rounds" || { fail "statuses:$rcs"; cat p*.err | head; }
  bad=$(cat p1.out p2.out p3.out | awk '/^round/ { n[$2] += $4; c[$2]++ }
    END { for (r in n) if (n[r] != 64 || c[r] != 3) print "round " r ": " n[r] " from " c[r]; }')
  got=$(cat p1.out p2.out p3.out | awk '/^round/ { c[$2]++ } END { print length(c) }')
  [ "$got" = $rounds ] && [ -z "$bad" ] && pass "every one of $rounds rounds granted exactly 64 chunks together" ||
    fail "$got rounds; wrong: $(echo "$bad" | head -5)"
  shared=$(cat p1.out p2.out p3.out | awk '/^round/ && $4 > 0 { p[FILENAME]++ } END { print length(p) }')
  echo "took $(( $(date +%s) - start )) s"
  grep -q . p1.err p2.err p3.err && fail "messages: $(cat p*.err | head -3)" || pass "no message"
  ;;
memgroup_a_killed_holder_gives_its_share_back)
  # It holds 40 MiB and allocates and frees one more chunk without pause: SIGKILL lands in
  # the middle of an allocation, perhaps between the group's charge and the driver's call.
  # Each holder writes a file of its own round: `CMD >FILE &` truncates FILE in the child,
  # after the test may already have read the last round's "held 40" in it, and then would
  # start the second process before this holder (which then got all 64).
  for round in $(seq 10); do
    "${G[@]}" "$PROG" spin 1024 40 >spin.$round.out 2>spin.$round.err &
    sp=$!
    wait_for spin.$round.out '^held 40$' ||
      fail "the holder never held 40 MiB: $(cat spin.$round.out spin.$round.err)"
    # What the second process must meet: the holder's 40 MiB (41 with its extra chunk) in
    # its ready slot of the group's file.
    u=$(slot_used $sp)
    [ "$u" = 40 ] || [ "$u" = 41 ] || fail "round $round: the holder's slot holds $u MiB"
    n=$(granted_alone)
    [ "$n" = 23 ] || [ "$n" = 24 ] && pass "beside the holder a process gets $n of 64" || fail "beside the holder: $n"
    sleep 0.0$((RANDOM % 10))
    kill -9 $sp
    wait $sp 2>/dev/null
    n=$(granted_alone)
    [ "$n" = 64 ] && pass "round $round: after kill -9 the whole quota is back (64)" || fail "round $round: after kill -9: $n"
  done
  ;;
memgroup_sixty_four_processes_churning_never_pass_the_quota)
  # 16 MiB, 64 processes each holding up to 4 chunks at once: far more asked than granted.
  export CUAUDIT_MEM_LIMIT=16MiB
  pids=()
  for i in $(seq 64); do
    "${G[@]}" "$PROG" churn "$dir/held" 500 1024 4 64 >c$i.out 2>c$i.err &
    pids+=($!)
  done
  bad=0
  for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
  [ $bad = 0 ] && pass "64 processes churned" || { fail "$bad processes failed"; cat c*.err | head -5; }
  max=$(od -An -t u8 -j 16 -N 8 "$dir/held" | tr -d ' ')
  [ -n "$max" ] && [ "$max" -le $((16 << 20)) ] && [ "$max" -gt 0 ] &&
    pass "at most $((max >> 20)) MiB held at once (quota 16 MiB)" || fail "$max bytes held at once, quota 16 MiB"
  refused=$(cat c*.out | awk '{ r += $5 } END { print r + 0 }')
  [ "$refused" -gt 0 ] && pass "$refused allocations refused: the quota was reached" || fail "no refusal: the test did not press"
  n=$(granted_alone)
  [ "$n" = 16 ] && pass "afterwards one process gets the whole 16 MiB: nothing leaked" || fail "afterwards: $n of 16"
  ;;
memgroup_a_reused_pid_is_not_taken_for_the_dead_holder)
  n=$(granted_alone)
  [ "$n" = 64 ] && [ -f "$FILE" ] && pass "the group's file made, 64 granted" || fail "first run: $n"
  sleep 300 &
  sp=$!
  ticks=$(start_ticks $sp)
  # A slot of a process that died, whose pid a new process (sleep) now has: other start.
  fake_slot 7 $sp $((ticks + 1)) $((64 << 20))
  n=$(granted_alone)
  [ "$n" = 64 ] && pass "a dead holder whose pid was reused is taken back (64 granted)" || fail "pid reused: $n"
  # The same pid and start: the live process itself, whose charge stands.
  fake_slot 7 $sp $ticks $((64 << 20))
  n=$(granted_alone)
  [ "$n" = 0 ] && pass "a live holder's charge stands (0 granted)" || fail "live holder: $n"
  kill $sp; wait $sp 2>/dev/null
  n=$(granted_alone)
  [ "$n" = 64 ] && pass "once it is gone, its share is back (64)" || fail "after it ended: $n"
  ;;
memgroup_a_bad_group_file_leaves_the_own_limit_and_one_message)
  expect_own() { # WHAT REASON: one message naming the variable and the reason; 64 granted.
    local n
    : >alone.err
    n=$(granted_alone)
    [ "$n" = 64 ] && pass "$1: the process keeps its own 64 MiB limit" || fail "$1: granted $n"
    [ "$(grep -c 'CUAUDIT_MEM_GROUP=g' alone.err)" = 1 ] && grep -q -- "$2" alone.err &&
      pass "$1: one message: $(grep -o "$2" alone.err)" || fail "$1: $(cat alone.err)"
  }
  reset() { rm -f "$FILE"; granted_alone >/dev/null; }
  reset
  printf 'XXXXXXXX' | dd of="$FILE" conv=notrunc status=none
  sum=$(md5sum <"$FILE")
  expect_own "wrong magic" "its magic is wrong"
  [ "$(md5sum <"$FILE")" = "$sum" ] && pass "a bad file is left as it was" || fail "the bad file was changed"
  reset
  printf '\000\000\000\000' | dd of="$FILE" bs=1 seek=8 conv=notrunc status=none
  expect_own "version 0" "another format version"
  reset
  printf '\002\000\000\000' | dd of="$FILE" bs=1 seek=8 conv=notrunc status=none
  expect_own "version 2" "another format version"
  reset
  truncate -s 2000 "$FILE"
  expect_own "truncated" "truncated"
  reset
  chmod 0644 "$FILE"
  expect_own "mode 0644" "mode other than 0600"
  rm -f "$FILE"
  ln -s "$dir/elsewhere" "$FILE"
  expect_own "a symbolic link" "symbolic link"
  [ ! -e "$dir/elsewhere" ] && pass "the link was not followed" || fail "the link's target was made"
  rm -f "$FILE"
  mkdir "$FILE"
  expect_own "a directory" "EISDIR"
  rmdir "$FILE"
  if [ "$(id -u)" = 0 ]; then
    reset
    chown 65534 "$FILE"
    expect_own "another user's" "belongs to another user"
  fi
  # A file of another quota is no bad file: memgroup_a_file_of_another_limit_* below.
  ;;
memgroup_a_full_or_missing_share_dir_leaves_the_own_limit)
  : >alone.err
  n=$(CUAUDIT_SHARE_DIR="$dir/none" granted_alone)
  [ "$n" = 64 ] && grep -q "cannot be made: ENOENT" alone.err && pass "a missing directory: own limit, ENOENT said" ||
    fail "missing directory: $n $(cat alone.err)"
  # Full: the file cannot reach its size. Past RLIMIT_FSIZE the kernel would send SIGXFSZ
  # and end the program; cuaudit checks first and says EFBIG.
  : >alone.err
  n=$(ulimit -f 64; granted_alone)
  [ "$n" = 64 ] && grep -q "cannot be made: EFBIG" alone.err && pass "no room for the file: own limit, EFBIG said" ||
    fail "no room: $n $(cat alone.err)"
  ls share | grep -q tmp && fail "a temporary file was left: $(ls share)" || pass "no temporary file left"
  ;;
memgroup_bad_values_say_so_and_leave_no_group)
  for v in "a/b" ".hidden" "x%py" ""; do
    out=$(CUAUDIT_MEM_GROUP="$v" LD_AUDIT="$AUDIT" "$PROG" fill 1024 2>&1)
    echo "$out" | grep -q "CUAUDIT_MEM_GROUP=\"$v\" is not valid" && echo "$out" | grep -q '^granted 64$' &&
      pass "'$v' refused, own limit" || fail "'$v': $out"
  done
  out=$(env -u CUAUDIT_MEM_LIMIT LD_AUDIT="$AUDIT" "$PROG" fill 1024 2>&1)
  echo "$out" | grep -q "together with CUAUDIT_MEM_LIMIT" && pass "a group without a quota is refused" || fail "no quota: $out"
  ls share | grep -q . && fail "files made: $(ls share)" || pass "no file made"
  # %q{NAME} takes a variable's value, as file names do.
  POD_UID=abc-123 CUAUDIT_MEM_GROUP='pod-%q{POD_UID}' group "$PROG" fill 1024 >out.txt 2>err.txt
  [ -f "share/cuaudit-memgroup-$(id -u)-pod-abc-123" ] && grep -q '^granted 64$' out.txt && [ ! -s err.txt ] &&
    pass "pod-%q{POD_UID} is the group pod-abc-123" || fail "%q: $(ls share) $(cat err.txt)"
  # A process that loads no CUDA library makes no file and takes no slot.
  rm -f share/*
  group /bin/true
  ls share | grep -q . && fail "a process without CUDA made $(ls share)" || pass "no CUDA, no file"
  ;;
memgroup_memory_reports_show_the_quota_and_the_group_use)
  # Device 0 only has a quota; NVML's device 1 is reported as the mock has it.
  export CUAUDIT_MEM_LIMIT=0:64MiB
  native "$PROG" info
  grep -q '^nvml 0 v1 -> 0 total 16384 free 15360 used 1024' native.out && pass "natively NVML shows the mock's 16 GiB" ||
    fail "native: $(cat native.out)"
  "${G[@]}" "$PROG" hold 1024 10 60 >spin.out 2>spin.err &
  sp=$!
  wait_for spin.out '^held 10$' || fail "holder: $(cat spin.out spin.err)"
  held=54 used=10
  audited "$PROG" info
  expect_out "^cuMemGetInfo_v2 -> 0 free 54 total 64 \(MiB\)$"
  expect_out "^cuDeviceTotalMem_v2 -> 0 total 64 \(MiB\)$"
  expect_out "^nvml 0 v1 -> 0 total 64 free $held used $used \(MiB\)$"
  expect_out "^nvml 0 v2 -> 0 total 64 reserved 0 free $held used $used \(MiB\)$"
  expect_out '^nvml 1 v1 -> 0 total 16384 free 15360 used 1024 \(MiB\)$'
  expect_out '^nvml 1 v2 -> 0 total 16384 reserved 256 free 14336 used 2048 \(MiB\)$'
  # Linked with NVML, no CUDA at all (a monitoring tool): the same view through its PLT.
  group "$BIN/memgroup_nvml" >nvml.out 2>nvml.err
  grep -q "^nvml 0 v1 -> 0 total 64 free $held used $used (MiB)$" nvml.out &&
    grep -q "^nvml 0 v2 -> 0 total 64 reserved 0 free $held used $used (MiB)$" nvml.out &&
    pass "a program linked with NVML sees the quota and the group's use" || fail "PLT: $(cat nvml.out nvml.err)"
  # The metrics of a process that fills what is left: the group's use is the whole quota.
  CUAUDIT_METRICS="$dir/m.prom" group "$PROG" fill 1024 >fill.out 2>fill.err
  expect_log 1 '^cuaudit_memory_group_quota_bytes\{.*group="g",device="0"\} 67108864$' m.prom
  expect_log 1 '^cuaudit_memory_group_used_bytes\{.*group="g",device="0"\} 67108864$' m.prom
  if command -v promtool >/dev/null; then
    promtool check metrics <m.prom >promtool.txt 2>&1 && pass "promtool accepts the group's metrics" || fail "promtool: $(head -5 promtool.txt)"
  fi
  kill -9 $sp; wait $sp 2>/dev/null
  group "$PROG" info >after.out
  grep -q '^nvml 0 v1 -> 0 total 64 free 64 used 0 (MiB)$' after.out && pass "the killed holder's use is gone from NVML's report" ||
    fail "after kill: $(cat after.out)"
  ;;
memgroup_ps_groups_shows_quota_use_and_processes)
  "${G[@]}" "$PROG" hold 1024 10 60 >spin.out 2>&1 &
  sp=$!
  wait_for spin.out '^held 10$' || fail "holder: $(cat spin.out)"
  "${G[@]}" "$PROG" hold 1024 5 60 >dead.out 2>&1 &
  dp=$!
  wait_for dead.out '^held 5$' || fail "second holder: $(cat dead.out)"
  kill -9 $dp; wait $dp 2>/dev/null
  "$CLI" ps --groups >ps.txt 2>ps.err
  rc=$?
  cat ps.txt
  [ $rc = 0 ] && pass "ps --groups ran" || fail "ps --groups: $rc $(cat ps.err)"
  grep -qE "^g +0 +64 MiB +15 MiB +2$" ps.txt && pass "the group's line: quota 64 MiB, use 15 MiB, 2 processes" || fail "group line"
  grep -qE "^  pid $sp +alive +device 0 +10 MiB$" ps.txt && pass "the live holder" || fail "live holder line"
  grep -qE "^  pid $dp +dead +device 0 +5 MiB$" ps.txt && pass "the dead one, not yet taken back" || fail "dead holder line"
  "$CLI" ps --groups --json >ps.json
  "$PYTHON" - ps.json "$sp" "$dp" <<'PY' && pass "the JSON says the same" || fail "JSON: $(cat ps.json)"
import json, sys
g = json.load(open(sys.argv[1]))
assert len(g) == 1 and g[0]["group"] == "g", g
d = g[0]["devices"]
assert d[0]["device"] == 0 and d[0]["quota"] == 64 << 20 and d[0]["used"] == 15 << 20, d
p = {x["pid"]: x for x in g[0]["processes"]}
assert p[int(sys.argv[2])]["state"] == "alive" and p[int(sys.argv[2])]["used"]["0"] == 10 << 20, p
assert p[int(sys.argv[3])]["state"] == "dead" and p[int(sys.argv[3])]["used"]["0"] == 5 << 20, p
PY
  kill -9 $sp; wait $sp 2>/dev/null
  "$CLI" ps --groups --share-dir "$dir/none" >none.txt 2>none.err
  [ $? = 1 ] && grep -q "cannot read" none.err && pass "a missing directory is an error" || fail "missing: $(cat none.err)"
  ;;
memgroup_cli_run_mem_group_sets_the_group)
  env -u CUAUDIT_MEM_GROUP -u CUAUDIT_SHARE_DIR "$CLI" run --mem-limit 64MiB --mem-group cli-g --share-dir share \
    "$PROG" fill 1024 >out.txt 2>err.txt
  [ -f "share/cuaudit-memgroup-$(id -u)-cli-g" ] && grep -q '^granted 64$' out.txt &&
    pass "run --mem-group makes the group's file in --share-dir" || fail "$(cat out.txt err.txt)"
  env -u CUAUDIT_MEM_GROUP -u CUAUDIT_MEM_LIMIT "$CLI" run --mem-group cli-g "$PROG" fill 1024 >out.txt 2>err.txt
  [ $? = 2 ] && grep -q "CUAUDIT_MEM_LIMIT" err.txt && pass "--mem-group without a quota is refused" || fail "$(cat err.txt)"
  ;;
memgroup_ps_groups_shows_hostile_files_safely_and_sums_without_wrapping)
  # /dev/shm is writable by every user: a file under the group prefix may be anyone's, named
  # anything, and a file of this user may be damaged. `cuaudit ps --groups` prints names and
  # paths with their control bytes made visible, and adds the slots' use as the module
  # does, saturating: two slots of 2^63 bytes were shown as a group using 0 B, while every
  # allocation of the group was refused.
  rm -f "$FILE"; granted_alone >/dev/null
  fake_slot 0 $$ "$(start_ticks $$)" $((1 << 62))
  fake_slot 1 $$ "$(start_ticks $$)" $((1 << 62))
  fake_slot 2 $$ "$(start_ticks $$)" $((1 << 62))
  fake_slot 3 $$ "$(start_ticks $$)" $((1 << 62))
  "$PYTHON" - "$FILE" <<'PY'
import mmap, sys
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    name = b"g\x1b]0;owned\x07\x1b[2J"
    m[584:584 + len(name) + 1] = name + b"\0"
PY
  bad="$dir/share/cuaudit-memgroup-$(id -u)-x"$'\e[2J\e]0;owned\a'
  : >"$bad"; chmod 0644 "$bad"
  "$CLI" ps --groups >ps.txt 2>ps.err
  cat -v ps.txt ps.err
  grep -q $'\e' ps.txt ps.err && fail "an escape byte reached the terminal" || pass "no escape byte on stdout or stderr"
  grep -q 'x\\x1b\[2J' ps.err && pass "the foreign file is named, its controls visible" || fail "stderr: $(cat -v ps.err)"
  grep -qE '^g\\x1b\]0;owned\\x07\\x1b\[2J +0 +64 MiB +18446744073709551615 B +4$' ps.txt &&
    pass "the damaged group: its name's controls visible, its use saturated as the module sums it" ||
    fail "group line: $(head -2 ps.txt | cat -v)"
  "$CLI" ps --groups --json >ps.json 2>/dev/null
  "$PYTHON" - ps.json <<'PY' && pass "the JSON says the same" || fail "JSON: $(cat -v ps.json)"
import json, sys
g = json.load(open(sys.argv[1]))
assert g[0]["group"] == "g\x1b]0;owned\x07\x1b[2J", g
assert g[0]["devices"][0]["used"] == (1 << 64) - 1, g[0]["devices"]
PY
  rm -f "$bad" "$FILE"
  ;;
memgroup_a_file_cut_short_under_its_processes_kills_none)
  # `: > FILE` (an operator, a script) while processes of the group hold memory: the next
  # touch of the mapping past the file's new end raised SIGBUS and killed each of them at
  # its next allocation. Now each looks first, finds it cut short, says so once and keeps
  # CUAUDIT_MEM_LIMIT as its own limit: 10 MiB held, 54 more granted, never none.
  rm -f go
  "${G[@]}" "$PROG" later 1024 10 go >a.out 2>a.err &
  ap=$!
  "${G[@]}" "$PROG" later 1024 20 go >b.out 2>b.err &
  bp=$!
  wait_for a.out '^held 10$' && wait_for b.out '^held 20$' || fail "holders: $(cat a.out a.err b.out b.err)"
  n=$(granted_alone)
  [ "$n" = 34 ] && pass "beside the holders a process gets 34 of 64: one group" || fail "beside the holders: $n"
  : >"$FILE"
  touch go
  wait $ap; ra=$?
  wait $bp; rb=$?
  [ $ra = 0 ] && [ $rb = 0 ] && pass "both holders ended well after the truncation" ||
    fail "statuses $ra $rb (135: SIGBUS)"
  grep -q '^more 54$' a.out && grep -q '^more 44$' b.out &&
    pass "each then keeps its own 64 MiB limit: 54 and 44 more" || fail "after: $(cat a.out b.out)"
  for f in a.err b.err; do
    [ "$(grep -c . $f)" = 1 ] &&
      grep -q "CUAUDIT_MEM_GROUP=g: the group's file $FILE was cut short (truncated) under this process. It leaves the group: CUAUDIT_MEM_LIMIT is its own limit from now on" $f &&
      pass "$f: one message naming the file" || fail "$f: $(cat $f)"
  done
  # A process that comes later finds the file short: its own limit, one message.
  : >alone.err
  n=$(granted_alone)
  [ "$n" = 64 ] && grep -q "truncated" alone.err && pass "a newcomer keeps its own 64 MiB limit" || fail "newcomer: $n $(cat alone.err)"
  # Cut short between two allocations of one process, microseconds apart: the second still
  # looks first (a look at every use, not one a millisecond as the compute share's; with
  # that gap 3 to 5 runs of 10 died of SIGBUS).
  died=0 ok=0
  for i in 1 2 3 4 5 6 7 8 9 10; do
    rm -f "$FILE"
    "${G[@]}" "$PROG" cutself "$FILE" >cut.out 2>cut.err; rc=$?
    [ $rc = 135 ] && died=$((died + 1))
    [ $rc = 0 ] && grep -q '^second 0$' cut.out && grep -q 'was cut short (truncated)' cut.err && ok=$((ok + 1))
  done
  [ $died = 0 ] && [ $ok = 10 ] && pass "cut short between two allocations: 10 of 10 lived, each told once" ||
    fail "cut short between two allocations: $died of 10 died (SIGBUS), $ok well: $(cat cut.out cut.err)"
  ;;
memgroup_a_slot_of_a_pid_namespace_that_is_gone_is_taken_back)
  # A container that shares /dev/shm but not its pid namespace, restarted: its processes'
  # slots name pids no /proc here can show, and were never taken back: their charge stayed
  # in the group for good. Each process now holds a lock on its slot while it lives
  # (F_OFD_SETLK: the kernel drops it at exit, in any namespace); a slot of another
  # namespace that says so and whose lock no one holds is dead.
  rm -f "$FILE"
  n=$(granted_alone)
  [ "$n" = 64 ] && pass "the group's file made, 64 granted" || fail "first run: $n"
  other=$(( $(stat -L -c %i /proc/self/ns/pid) + 1 ))
  FAKE_NS=$other FAKE_FLAGS=1 fake_slot 7 4242 1 $((40 << 20))
  "$CLI" ps --groups >ps.txt 2>&1
  grep -qE "^  pid 4242 +dead +device 0 +40 MiB$" ps.txt && pass "ps --groups shows it dead" || fail "ps: $(cat ps.txt)"
  n=$(granted_alone)
  [ "$n" = 64 ] && pass "a slot of a gone namespace, its lock held by no one, is taken back (64 granted)" ||
    fail "gone namespace: $n granted"
  [ "$(slot_used 4242)" = none ] && pass "its slot is free" || fail "its slot: $(slot_used 4242)"
  # The same slot with its lock held: a live process there, whose charge stands.
  FAKE_NS=$other FAKE_FLAGS=1 fake_slot 7 4242 1 $((40 << 20))
  "$PYTHON" - "$FILE" $((4096 + 7 * SLOT_SIZE)) >lock.out <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, getattr(fcntl, "F_OFD_SETLK", 37), struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, int(sys.argv[2]), 1, 0))
print("locked", flush=True)
time.sleep(60)
PY
  lp=$!
  wait_for lock.out '^locked$' || fail "the lock holder did not start"
  "$CLI" ps --groups >ps.txt 2>&1
  grep -qE "^  pid 4242 +alive +device 0 +40 MiB$" ps.txt && pass "ps --groups shows it alive" || fail "ps: $(cat ps.txt)"
  n=$(granted_alone)
  [ "$n" = 24 ] && pass "its lock held: its 40 MiB stand (24 granted)" || fail "live other namespace: $n granted"
  kill $lp; wait $lp 2>/dev/null
  n=$(granted_alone)
  [ "$n" = 64 ] && pass "once its holder ends, its share is back (64)" || fail "after the holder: $n"
  # A slot written by a cuaudit before slot locks says nothing: it cannot be told, it stays.
  FAKE_NS=$other FAKE_FLAGS=0 fake_slot 7 4242 1 $((40 << 20))
  n=$(granted_alone)
  [ "$n" = 24 ] && pass "a slot without the lock flag is left (24 granted)" || fail "no flag: $n granted"
  # Processes of this namespace keep their slots: a live holder's lock is held.
  rm -f "$FILE"
  "${G[@]}" "$PROG" hold 1024 10 60 >h.out 2>h.err &
  hp=$!
  wait_for h.out '^held 10$' || fail "holder: $(cat h.out h.err)"
  n=$(granted_alone)
  [ "$n" = 54 ] && pass "beside a live holder 54 are granted" || fail "beside the holder: $n"
  "$PYTHON" - "$FILE" $hp <<'PY' && pass "the holder's slot says it is locked, and its lock is held" || fail "the holder's slot lock"
import fcntl, os, struct, sys
path, pid = sys.argv[1], int(sys.argv[2])
m = open(path, "rb").read()
hwm = struct.unpack_from("<I", m, 8 + 4 * 2 + 8 + 4 * 4 + 8 * 64 + 8)[0]
for i in range(hwm):
    at = 4096 + i * 1088
    owner, _, _, flags = struct.unpack_from("<QQQQ", m, at)
    if owner >> 63 and owner & 0xffffffff == pid:
        assert flags == 1, flags
        fd = os.open(path, os.O_RDWR)
        r = fcntl.fcntl(fd, getattr(fcntl, "F_OFD_GETLK", 36), struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, at, 1, 0))
        assert struct.unpack("hhqqi4x", r)[0] != fcntl.F_UNLCK, "not held"
        sys.exit(0)
sys.exit(1)
PY
  kill $hp; wait $hp 2>/dev/null
  # A forked child locks its slot on a description of its own: its parent's lock, on the
  # description the child inherited, goes when the parent ends, the child's stays.
  rm -f "$FILE"
  "${G[@]}" "$PROG" forked 1024 10 60 >f.out 2>f.err &
  fp=$!
  wait_for f.out '^child [0-9]+ held 10$' || fail "forked: $(cat f.out f.err)"
  cp=$(sed -n 's/^child \([0-9]*\) held.*/\1/p' f.out)
  held_of() { # PID: "held", "free" or "none" for the lock of PID's ready slot
    "$PYTHON" - "$FILE" "$1" <<'PY'
import fcntl, os, struct, sys
path, pid = sys.argv[1], int(sys.argv[2])
m = open(path, "rb").read()
hwm = struct.unpack_from("<I", m, 8 + 4 * 2 + 8 + 4 * 4 + 8 * 64 + 8)[0]
for i in range(hwm):
    at = 4096 + i * 1088
    owner, _, _, flags = struct.unpack_from("<QQQQ", m, at)
    if owner >> 63 and owner & 0xffffffff == pid and flags == 1:
        fd = os.open(path, os.O_RDONLY)
        r = fcntl.fcntl(fd, getattr(fcntl, "F_OFD_GETLK", 36), struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, at, 1, 0))
        print("free" if struct.unpack("hhqqi4x", r)[0] == fcntl.F_UNLCK else "held")
        sys.exit(0)
print("none")
PY
  }
  [ "$(held_of $fp)" = held ] && [ "$(held_of $cp)" = held ] && pass "parent and child each hold their slot's lock" ||
    fail "parent $(held_of $fp), child $(held_of $cp)"
  kill -9 $fp; wait $fp 2>/dev/null
  [ "$(held_of $fp)" = free ] && [ "$(held_of $cp)" = held ] &&
    pass "the parent killed, its lock is gone and the child's stays" || fail "after the parent: $(held_of $fp), child $(held_of $cp)"
  kill $cp 2>/dev/null
  # Where this user may make a pid namespace (root): the same with a real one.
  if unshare -pf --mount-proc true 2>/dev/null; then
    rm -f "$FILE"
    unshare -pf --mount-proc env LD_AUDIT="$AUDIT" "$PROG" hold 1024 40 60 >ns.out 2>ns.err &
    up=$!
    wait_for ns.out '^held 40$' || fail "holder in its own pid namespace: $(cat ns.out ns.err)"
    n=$(granted_alone)
    [ "$n" = 24 ] && pass "a live holder of another pid namespace keeps its 40 MiB (24 granted)" || fail "live, other namespace: $n"
    kill -9 "$(pgrep -P $up)"; wait $up 2>/dev/null
    n=$(granted_alone)
    [ "$n" = 64 ] && pass "its namespace gone, its share is back (64)" || fail "namespace gone: $n"
  fi
  ;;
memgroup_a_file_of_another_limit_is_made_anew_once_its_processes_are_gone)
  # A group's file keeps the quota it was made with. One made with another CUAUDIT_MEM_LIMIT
  # by processes that are all gone sent every later process to its own limit (one message
  # each, no group) until someone removed it. Now the newcomer makes it anew with its own.
  rm -f "$FILE"
  n=$(granted_alone)
  [ "$n" = 64 ] && [ "$(file_quota)" = 64 ] && pass "made with 64 MiB" || fail "first: $n $(file_quota)"
  : >alone.err
  n=$(CUAUDIT_MEM_LIMIT=32MiB granted_alone)
  [ "$n" = 32 ] && [ ! -s alone.err ] && [ "$(file_quota)" = 32 ] &&
    pass "its processes gone, a 32 MiB newcomer makes it anew: 32 granted, nothing said" ||
    fail "stale file: $n granted, quota $(file_quota), $(cat alone.err)"
  # Processes of one new limit that start at once on a stale file all meet in one new file.
  n=$(granted_alone)
  [ "$n" = 64 ] && [ "$(file_quota)" = 64 ] && pass "and back to 64 MiB the same way" || fail "back: $n $(file_quota)"
  pids=()
  for i in 1 2 3 4; do
    CUAUDIT_MEM_LIMIT=32MiB "${G[@]}" "$PROG" hold 1024 10 30 >h$i.out 2>h$i.err &
    pids+=($!)
  done
  for i in 1 2 3 4; do wait_for h$i.out '^held' || fail "holder $i: $(cat h$i.out h$i.err)"; done
  total=$(cat h1.out h2.out h3.out h4.out | awk '/^held/ { t += $2 } END { print t }')
  [ "$total" = 32 ] && [ "$(file_quota)" = 32 ] && pass "four at once hold 32 MiB together: one group of 32 MiB" ||
    fail "four at once: $total MiB held, quota $(file_quota)"
  cat h*.err | grep -q . && fail "messages: $(cat h*.err | head -3)" || pass "nothing said"
  for p in "${pids[@]}"; do kill $p; wait $p 2>/dev/null; done
  ;;
memgroup_a_file_of_another_limit_with_live_processes_keeps_the_stricter_rule)
  # Live processes use the file's 64 MiB: a newcomer of another limit joins under it and
  # keeps its own limit too. Before, it left the group: 32 more beside their 40.
  rm -f "$FILE"
  "${G[@]}" "$PROG" hold 1024 40 60 >h.out 2>h.err &
  hp=$!
  wait_for h.out '^held 40$' || fail "holder: $(cat h.out h.err)"
  for lim in 32 128 16; do
    : >alone.err
    n=$(CUAUDIT_MEM_LIMIT=${lim}MiB granted_alone)
    want=$(( lim < 24 ? lim : 24 ))
    [ "$n" = $want ] && pass "a ${lim} MiB newcomer beside 40 of 64 MiB gets $want: the stricter of the two" ||
      fail "${lim} MiB newcomer: $n granted"
    [ "$(grep -c . alone.err)" = 1 ] &&
      grep -q "CUAUDIT_MEM_GROUP=g: the group's file $FILE was made with another CUAUDIT_MEM_LIMIT, and live processes use it. This process joins the group under the file's quota and keeps its own CUAUDIT_MEM_LIMIT as well" alone.err &&
      pass "${lim} MiB: one message" || fail "${lim} MiB: $(cat alone.err)"
    [ "$(file_quota)" = 64 ] && pass "${lim} MiB: the file keeps 64 MiB" || fail "${lim} MiB: file quota $(file_quota)"
  done
  kill $hp; wait $hp 2>/dev/null
  ;;
esac
finish
