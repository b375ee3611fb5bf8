#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/stress-timing.sh: runs every test labelled "timing" (tests/timing.txt) RUNS times in a
# row on two cores that a load of its own keeps busy: two busy loops and THREADS runnable
# threads pinned to the same two cores, as CI's 2-core machine is when it is loaded. A machine
# with more cores runs several such pairs side by side, which take the runs from one queue: a
# test's runs are independent, each alone on a loaded pair, and may run at the same time.
# Usage: scripts/stress-timing.sh   (environment: RUNS=20, THREADS=300, PAIRS=cores/2,
#        BUDGET_S=540: no run starts after that many seconds, and the table says what was left;
#        BUILD=dir: an existing build with tests, else one is made in build-stress/;
#        ONLY=REGEX: only the tests whose names match)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-20}
THREADS=${THREADS:-300}
BUDGET_S=${BUDGET_S:-540}
cores=$(nproc)
PAIRS=${PAIRS:-$((cores / 2))}
[ "$PAIRS" -ge 1 ] || PAIRS=1
B=${BUILD:-$ROOT/build-stress}
R=$B/stress
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

# The work: every run of every test, one line each ("NAME RUN"), taken in order by whichever
# pair is free, so that a long test's runs spread over the pairs instead of holding one pair
# for the whole budget. Each run is alone on its pair's two loaded cores.
while read -r name; do
  for n in $(seq "$RUNS"); do echo "$name $n"; done
done <"$R/tests.txt" >"$R/queue.txt"
echo 0 >"$R/next"
take() { # prints the next line of the queue, or nothing when it is empty
  (
    flock 9
    k=$(cat "$R/next")
    echo $((k + 1)) >"$R/next"
    sed -n "$((k + 1))p" "$R/queue.txt"
  ) 9>"$R/next.lock"
}

# pair I: its cores, its load, runs from the queue until it is empty or the budget is spent;
# one line a run: NAME RUN STATUS SECONDS.
pair() {
  local i=$1 cpus name n t0 load item
  cpus="$((2 * i % cores)),$(((2 * i + 1) % cores))"
  taskset -c "$cpus" "$R/load" "$THREADS" &
  load=$!
  while [ $(($(date +%s) - start)) -lt "$BUDGET_S" ]; do
    item=$(take)
    [ -n "$item" ] || break
    read -r name n <<<"$item"
    t0=$(date +%s)
    if (cd "$B" && taskset -c "$cpus" ctest --output-on-failure -R "^${name}\$" --timeout 600 >"$R/$name.$n.log" 2>&1); then
      rm -f "$R/$name.$n.log"; echo "$name $n ok $(($(date +%s) - t0))"
    else
      echo "$name $n fail $(($(date +%s) - t0))"
    fi
  done >"$R/pair$i.txt"
  kill "$load" 2>/dev/null
  wait "$load" 2>/dev/null
}
for i in $(seq 0 $((PAIRS - 1))); do pair "$i" & done
wait

# One line a test: NAME PASSED RUNS-DONE FIRST-FAILED-RUN SECONDS (summed over its runs).
cat "$R"/pair*.txt | awk '
  { if (!($1 in runs)) { order[++k] = $1; first[$1] = "-" }
    runs[$1]++; secs[$1] += $4
    if ($3 == "ok") ok[$1]++
    else if (first[$1] == "-" || $2 < first[$1]) first[$1] = $2 }
  END { for (i = 1; i <= k; i++) { t = order[i]; print t, ok[t] + 0, runs[t], first[t], secs[t] } }
' >"$R/results.txt"
complete=0 partial=0 failing=0
printf '%-96s %s\n' test "passed/runs (first failed run) seconds" >"$R/table.txt"
while read -r name ok n first secs; do
  if [ "$ok" != "$n" ]; then failing=$((failing + 1)); fi
  if [ "$n" = "$RUNS" ]; then complete=$((complete + 1)); else partial=$((partial + 1)); fi
  printf '%-96s %s/%s (%s) %ss\n' "$name" "$ok" "$n" "$first" "$secs" >>"$R/table.txt"
done <"$R/results.txt"
missing=$((have - complete - partial))
(cd "$R" && tar czf stress.tgz table.txt ./*.log 2>/dev/null)
grep -v " \([0-9]*\)/\1 (-)" "$R/table.txt" | head -40
echo "tests: $have registered of $want listed; $complete ran $RUNS times, $partial fewer (budget), $missing not started; $failing with a failure; $(($(date +%s) - start)) s"
[ "$failing" = 0 ] && [ "$partial" = 0 ] && [ "$missing" = 0 ] && [ "$have" = "$want" ]
