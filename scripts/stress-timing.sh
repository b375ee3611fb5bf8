#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/stress-timing.sh: runs every test labelled "timing" (tests/timing.txt) RUNS times in a
# row on two cores that a load of its own keeps busy: two busy loops and THREADS runnable
# threads pinned to the same two cores, as CI's 2-core machine is when it is loaded. A machine
# with more cores runs several such pairs side by side, which take the runs from one queue: a
# test's runs are independent, each alone on a loaded pair with its own work directory, and
# may run at the same time. The queue holds the longest runs first, so that the last runs to
# end are short ones.
# Usage: scripts/stress-timing.sh   (environment: RUNS=20, THREADS=300, PAIRS=cores/2,
#        BUDGET_S=540: seconds from the start (the build included) by which every run must end
#        by its estimate: a pair starts only a run whose estimate fits in what is left, the
#        longest that fits, and the table says what was left;
#        BUILD=dir: an existing build with tests, else one is made in build-stress/;
#        ONLY=REGEX: only the tests whose names match;
#        STRESS_OUT=dir: where the runs' logs and the table go (build-stress/stress), so that
#        two sweeps of one BUILD may run side by side on disjoint cores (taskset -c);
#        PRIOR=table.txt: a table this script wrote before: a test that passed every one of
#        its N runs there runs RUNS-N more times, numbered from N+1, and this table reports the
#        two together (a test with a failure there starts again at run 1); its seconds a run
#        are the test's estimate;
#        EST=file: "NAME SECONDS" lines, a run's estimate for the tests PRIOR has no runs of;
#        any other test is estimated at 60 s. SIGTERM stops the runs in flight, uncounted,
#        and the table is written of the runs that ended)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-20}
THREADS=${THREADS:-300}
BUDGET_S=${BUDGET_S:-540}
# The cores this script may use (taskset -c before it narrows them), in order: pair I takes
# the (2I)th and (2I+1)th.
cpu_list=()
for r in $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' ' '); do
  cpu_list+=($(seq "${r%-*}" "${r#*-}"))
done
cores=${#cpu_list[@]}
[ "$cores" -ge 1 ] || { cpu_list=($(seq 0 $(($(nproc) - 1)))); cores=${#cpu_list[@]}; }
PAIRS=${PAIRS:-$((cores / 2))}
[ "$PAIRS" -ge 1 ] || PAIRS=1
B=$(realpath -m "${BUILD:-$ROOT/build-stress}")
R=$(realpath -m "${STRESS_OUT:-$B/stress}")
rm -rf "$R"
mkdir -p "$R"
start=$(date +%s)

if [ -z "${BUILD:-}" ]; then
  zydis_args=()
  if [ ! -f /usr/include/Zydis/Zydis.h ] && ls "$ROOT"/zydis-debs/*.deb >/dev/null 2>&1; then
    for d in "$ROOT"/zydis-debs/*.deb; do dpkg -x "$d" "$B/zydis"; done
    zydis_args=(-DZYDIS_INCLUDE_DIR="$B/zydis/usr/include"
      -DZYDIS_LIBRARY="$(ls "$B"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
  fi
  # The unit tests need cmocka: where it is missing, from .deb files carried along
  # (apt-get download libcmocka0 libcmocka-dev, into cmocka-debs/), its .pc file pointed there.
  if ! pkg-config --exists cmocka 2>/dev/null && ls "$ROOT"/cmocka-debs/*.deb >/dev/null 2>&1; then
    for d in "$ROOT"/cmocka-debs/*.deb; do dpkg -x "$d" "$B/cmocka"; done
    pc=$(ls "$B"/cmocka/usr/lib/*/pkgconfig/cmocka.pc | head -1)
    sed -i "s|/usr/|$B/cmocka/usr/|g" "$pc"
    export PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    export LD_LIBRARY_PATH=$(dirname "$(dirname "$pc")")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
  # export --type sqlite needs SQLite's header; where it is missing, the header from a carried
  # .deb (apt-get download libsqlite3-dev, into sqlite-debs/) and the machine's own library.
  sqlite_args=()
  if [ ! -f /usr/include/sqlite3.h ] && ls "$ROOT"/sqlite-debs/*.deb >/dev/null 2>&1; then
    lib=$(ls /usr/lib/*/libsqlite3.so.0 /lib/*/libsqlite3.so.0 2>/dev/null | head -1)
    if [ -n "$lib" ]; then
      for d in "$ROOT"/sqlite-debs/*.deb; do dpkg -x "$d" "$B/sqlite"; done
      sqlite_args=(-DSQLite3_INCLUDE_DIR="$B/sqlite/usr/include" -DSQLite3_LIBRARY="$lib")
    fi
  fi
  cmake -S "$ROOT" -B "$B" "${zydis_args[@]}" "${sqlite_args[@]}" >"$R/build.log" 2>&1 &&
    cmake --build "$B" -j"$cores" >>"$R/build.log" 2>&1 || { tail -20 "$R/build.log"; echo "build failed"; exit 1; }
fi
echo "build ready after $(($(date +%s) - start)) s; $PAIRS pair(s) of cores, $RUNS runs, $THREADS threads"

# The load: busy threads that never sleep and THREADS threads that spin 200 us then yield.
cat >"$R/load.c" <<'C'
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static void *busy(void *a) { (void)a; for (volatile unsigned long i = 0;; i++) ; return NULL; }
static void *churn(void *a)
{
	(void)a;
	for (;;) {
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
		sched_yield();
	}
	return NULL;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (int i = 0; i < 2; i++) pthread_create(&t, &a, busy, NULL);
	for (int i = 0; i < n; i++) pthread_create(&t, &a, churn, NULL);
	pause();
	return 0;
}
C
cc -O2 -pthread -o "$R/load" "$R/load.c" || { echo "cannot build the load"; exit 1; }

(cd "$B" && ctest -N -L '^timing$' | sed -n 's/^ *Test *#[0-9]*: //p') >"$R/tests.txt"
if [ -n "${ONLY:-}" ]; then grep -E "$ONLY" "$R/tests.txt" >"$R/only.txt"; mv "$R/only.txt" "$R/tests.txt"; fi
want=$(grep -c '^[A-Za-z]' "$ROOT/tests/timing.txt")
have=$(grep -c . "$R/tests.txt")
[ -n "${ONLY:-}" ] && want=$have
echo "$have of the $want tests of tests/timing.txt are registered in this build"

# Runs already passed: NAME PASSED RUNS SECONDS from PRIOR, for the tests that never failed there.
: >"$R/prior.txt"
if [ -n "${PRIOR:-}" ]; then
  awk 'NR > 1 && $2 ~ /^[0-9]+\/[0-9]+$/ {
         split($2, r, "/"); s = $4; sub(/s$/, "", s)
         if (r[1] == r[2] && r[2] > 0) print $1, r[1], r[2], s }' "$PRIOR" >"$R/prior.txt" ||
    { echo "cannot read PRIOR=$PRIOR"; exit 1; }
fi
# The work: one line a run still to do ("SECONDS NAME RUN"), the estimate first, longest first,
# taken by whichever pair is free, so that a long test's runs spread over the pairs instead of
# holding one pair for the whole budget. Each run is alone on its pair's two loaded cores.
awk -v runs="$RUNS" '
  FILENAME == ARGV[1] { est[$1] = $2; next }
  FILENAME == ARGV[2] { done[$1] = $3; est[$1] = $4 / $3; next }
  { e = ($1 in est) ? est[$1] : 60
    for (n = done[$1] + 1; n <= runs; n++) printf "%.1f %s %d\n", e, $1, n }
' "${EST:-/dev/null}" "$R/prior.txt" "$R/tests.txt" | sort -s -k1,1gr >"$R/queue.txt"
: >"$R/taken"
echo "$(wc -l <"$R/queue.txt") runs to do, about $(awk '{ s += $1 } END { printf "%d", s }' "$R/queue.txt") pair-seconds"
take() { # prints "NAME RUN" of the first run not taken whose estimate fits, or nothing
  (
    flock 9
    awk -v left=$((start + BUDGET_S - $(date +%s))) '
      FILENAME == ARGV[1] { taken[$1] = 1; next }
      !(FNR in taken) && $1 <= left { print FNR >>ARGV[1]; print $2, $3; exit }
    ' "$R/taken" "$R/queue.txt"
  ) 9>"$R/taken.lock"
}

# Each pair runs its tests from its own copy of the tests' CTest file, whose WORK is the pair's
# own: a case starts by emptying $WORK/NAME, and two runs of one test on two pairs at once
# would otherwise empty each other's files (29 of 29 such failures on 2026-11-27, none alone).
grep -q "WORK=$B/tests/work" "$B/tests/CTestTestfile.cmake" ||
  { echo "no WORK=$B/tests/work in $B/tests/CTestTestfile.cmake"; exit 1; }
for i in $(seq 0 $((PAIRS - 1))); do
  mkdir -p "$R/ctest$i" "$R/work$i"
  sed -e "s|WORK=$B/tests/work|WORK=$R/work$i|g" -e '/^subdirs(/d' "$B/tests/CTestTestfile.cmake" \
    >"$R/ctest$i/CTestTestfile.cmake"
done

# pair I: its cores, its load, runs from the queue until none left fits in the budget; one line
# a run: NAME RUN STATUS SECONDS.
pair() {
  local i=$1 cpus name n t0 load item
  cpus="${cpu_list[$((2 * i % cores))]},${cpu_list[$(((2 * i + 1) % cores))]}"
  taskset -c "$cpus" "$R/load" "$THREADS" &
  load=$!
  while item=$(take) && [ -n "$item" ]; do
    read -r name n <<<"$item"
    t0=$(date +%s)
    if (cd "$R/ctest$i" && taskset -c "$cpus" ctest --output-on-failure -R "^${name}\$" --timeout 600 >"$R/$name.$n.log" 2>&1); then
      rm -f "$R/$name.$n.log"; echo "$name $n ok $(($(date +%s) - t0))"
    else
      echo "$name $n fail $(($(date +%s) - t0))"
    fi
  done >"$R/pair$i.txt"
  kill "$load" 2>/dev/null
  wait "$load" 2>/dev/null
}
# SIGTERM (from timeout(1), to the whole process group) ends the pairs, their loads and the
# runs in flight; this shell stays to write the table of the runs that ended.
stopped=0
trap 'stopped=1' TERM
for i in $(seq 0 $((PAIRS - 1))); do pair "$i" & done
until wait; do [ "$stopped" = 1 ] && [ -z "$(jobs -pr)" ] && break; done

# One line a test: NAME PASSED RUNS-DONE FIRST-FAILED-RUN SECONDS NEW-RUNS, PRIOR's runs included.
cat "$R"/pair*.txt | awk '
  FILENAME == ARGV[1] { ok[$1] = $2; runs[$1] = $3; secs[$1] = $4; next }
  FILENAME == ARGV[2] { order[++k] = $1; if (!($1 in runs)) runs[$1] = 0; first[$1] = "-"; next }
  { runs[$1]++; new[$1]++; secs[$1] += $4
    if ($3 == "ok") ok[$1]++
    else if (first[$1] == "-" || $2 < first[$1]) first[$1] = $2 }
  END { for (i = 1; i <= k; i++) { t = order[i]; print t, ok[t] + 0, runs[t], first[t], secs[t] + 0, new[t] + 0 } }
' "$R/prior.txt" "$R/tests.txt" - >"$R/results.txt"
complete=0 partial=0 failing=0 missing=0 credited=0
printf '%-96s %s\n' test "passed/runs (first failed run) seconds, runs of this sweep" >"$R/table.txt"
while read -r name ok n first secs new; do
  if [ "$ok" != "$n" ]; then failing=$((failing + 1)); fi
  if [ "$n" -ge "$RUNS" ]; then complete=$((complete + 1))
  elif [ "$n" = 0 ]; then missing=$((missing + 1))
  else partial=$((partial + 1)); fi
  [ "$new" = "$n" ] || credited=$((credited + 1))
  printf '%-96s %s/%s (%s) %ss %s new\n' "$name" "$ok" "$n" "$first" "$secs" "$new" >>"$R/table.txt"
done <"$R/results.txt"
cut=$(($(wc -l <"$R/taken") - $(cat "$R"/pair*.txt | wc -l)))
(cd "$R" && tar czf stress.tgz table.txt ./*.log 2>/dev/null)
awk -v runs="$RUNS" 'NR > 1 { split($2, r, "/"); if (r[1] != r[2] || r[2] < runs) print }' "$R/table.txt" | head -60
echo "tests: $have registered of $want listed; $complete ran $RUNS times, $partial fewer (budget), $missing not started; $failing with a failure; $credited counted runs of PRIOR; $cut cut short by a stop, not counted; $(($(date +%s) - start)) s"
[ "$stopped" = 0 ] && [ "$failing" = 0 ] && [ "$partial" = 0 ] && [ "$missing" = 0 ] && [ "$have" = "$want" ]
