#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/docs.sh: every shell example of README.md, docs/*.md and the man pages runs as written on the mock, from a test install; the ones marked "[needs ...]" are listed and counted apart.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
EXTRACT="$CASES_DIR/doc_examples.py"
DOCS=("$SRC/README.md" "$SRC"/docs/*.md "$SRC"/docs/man/*)

# The world the examples assume, made from this build (the text rules are those of
# tests/cases/doc_examples.py):
#  - the package installed: DESTDIR=$DOC_ROOT cmake --install BUILD --prefix /usr, its
#    bin first in PATH; the examples' /usr/lib/cuaudit/, /tmp/, /var/tmp/ and /run/ are
#    moved under $DOC_ROOT (the only change to their text);
#  - the mock as the machine's CUDA: LD_LIBRARY_PATH and LIBRARY_PATH name build/mock;
#  - in the folder each document's session runs in: build (this build, for the README's
#    `$PWD/build/...`), app (a runtime program whose calls all succeed), app.c and app.cu (sources to build), train.py
#    and service (Python programs calling the runtime through ctypes: train.py for about six
#    seconds, service until killed), and torchrun, a stand-in starting N copies of its script
#    when PyTorch's is not installed;
#  - CUAUDIT_LIVE_DIR under $DOC_ROOT, so `cuaudit ps` sees this test's processes only;
#  - the raw trace a killed process left, named as the examples name it.
setup_world() {
  export DOC_ROOT=$dir/root
  rm -rf "$DOC_ROOT" && mkdir -p "$DOC_ROOT"/{tmp,var/tmp,run} "$dir/stand-in"
  DESTDIR="$DOC_ROOT" "$CMAKE" --install "$BUILD" --prefix /usr >install.txt 2>&1 ||
    { fail "test install: $(tail -3 install.txt)"; finish; }
  export PATH="$DOC_ROOT/usr/bin:$dir/stand-in:$PATH"
  export LD_LIBRARY_PATH="$MOCK_DIR" LIBRARY_PATH="$MOCK_DIR"
  export CUAUDIT_LIVE_DIR="$DOC_ROOT/tmp/cuaudit-live"
  command -v torchrun >/dev/null || cat >"$dir/stand-in/torchrun" <<'SH'
#!/bin/sh
# A stand-in for PyTorch's torchrun: --nproc-per-node N SCRIPT starts N copies of SCRIPT.
n=1
while [ $# -gt 1 ]; do case $1 in --nproc-per-node) n=$2; shift 2 ;; *) break ;; esac; done
i=0 pids=
while [ $i -lt "$n" ]; do RANK=$i python3 "$@" & pids="$pids $!"; i=$((i + 1)); done
st=0; for j in $pids; do wait "$j" || st=1; done; exit $st
SH
  chmod +x "$dir/stand-in/torchrun" 2>/dev/null
  cat >"$dir/train.py" <<'PY'
# A training loop on the CUDA runtime, through ctypes: about six seconds of copies and syncs
# (long enough for the `cuaudit ps` lines after an example that starts it with &).
import ctypes, sys, time
rt = ctypes.CDLL("libcudart.so.13")
p = ctypes.c_void_p()
assert rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(1 << 20)) == 0
buf = ctypes.create_string_buffer(1 << 20)
end = time.time() + (1e9 if sys.argv[0].endswith("service") else 6)
while time.time() < end:
    assert rt.cudaMemcpy(p, buf, ctypes.c_size_t(1 << 20), 1) == 0
    assert rt.cudaStreamSynchronize(None) == 0
    time.sleep(0.05)
assert rt.cudaFree(p) == 0
PY
  { echo '#!/usr/bin/env python3'; cat "$dir/train.py"; } >"$dir/service" && chmod +x "$dir/service"
  cat >"$dir/app.c" <<'C'
#include <cuda.h>
int main(void) { return cuInit(0) == CUDA_SUCCESS ? 0 : 1; }
C
  cat >"$dir/app.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
int main()
{
	float *a, *b, *c;
	cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&c, 4096);
	vecAdd<<<4, 256>>>(a, b, c, 1024);
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
CU
  # The raw trace of a process killed while tracing, under the name the examples give it.
  CUAUDIT_TRACE="$dir/killed.json" CUAUDIT_FLUSH_INTERVAL=1 LD_AUDIT="$AUDIT" "$dir/service" &
  local pid=$! raw
  for _ in $(seq 100); do raw=$(ls "$dir"/killed.json.*.raw 2>/dev/null | head -1); [ -s "$raw" ] && break; sleep 0.1; done
  sleep 1.5
  kill -KILL $pid; wait $pid 2>/dev/null
  raw=$(ls "$dir"/killed.json.*.raw 2>/dev/null | head -1)
  # Named as the docs say: TRACE.PID.0xNONCE.raw (the nonce in hex).
  [[ ${raw##*/} =~ ^killed\.json\.$pid\.0x[0-9a-f]+\.raw$ ]] && pass "the raw trace is named as documented: ${raw##*/}" ||
    fail "the raw trace's name is not TRACE.PID.0xNONCE.raw: '${raw##*/}'"
  [ -s "$raw" ] && cp "$raw" "$DOC_ROOT/tmp/t.json.4242.0x1f3a.raw" || fail "no raw trace from a killed process"
  [ -x "$BIN/docs_app" ] || fail "no $BIN/docs_app: build the tests first"
}

# doc_wait_live PID: after an example starts a job with &, waits (at most 30 s) until the job
# shows in the live view, as a reader would before typing `cuaudit ps`.
doc_wait_live() {
  for _ in $(seq 300); do
    ls "$CUAUDIT_LIVE_DIR/$1"-*.live >/dev/null 2>&1 && return 0
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
}
export -f doc_wait_live

case $name in
every_doc_example_runs_as_written_on_the_mock)
  setup_world
  for doc in "${DOCS[@]}"; do
    rel=${doc#"$SRC"/}
    work="$dir/run/${rel//\//_}"
    mkdir -p "$work" && cp "$dir"/{train.py,service,app.c,app.cu} "$work"/ && cp "$BIN/docs_app" "$work/app"
    ln -s "$BUILD" "$work/build"
    "$PYTHON" "$EXTRACT" session "$doc" "$work/session.sh" || { fail "extract $rel"; continue; }
    # One shell per document, as a reader types its examples in order; the jobs it leaves
    # are ended with it.
    (cd "$work" && bash -c 'source session.sh' >"$work/out.txt" 2>&1)
    sed -n 's/^@@ //p' "$work/out.txt" | sed "s|$SRC/||" >>results.txt
  done
  "$PYTHON" "$EXTRACT" list "${DOCS[@]}" | sed "s|$SRC/||" >list.txt
  ran=0 skipped=0
  while read -r where status; do
    case $status in
    0) ran=$((ran + 1)); pass "$where runs as written" ;;
    running) ran=$((ran + 1)); pass "$where runs as written (a service: still running at the end, ended by the test)" ;;
    skip) skipped=$((skipped + 1)) ;;
    *) fail "$where exits $status: $(grep -F "@@@ $SRC/$where:" -A8 "$dir"/run/*/out.txt | sed -n 2,8p | cut -c1-200)" ;;
    esac
  done <results.txt
  total=$(wc -l <list.txt)
  [ "$(wc -l <results.txt)" = "$total" ] && pass "every one of the $total examples has a result" ||
    fail "$total examples, $(wc -l <results.txt) results"
  echo "not run (marked [needs ...]), $skipped:"
  awk -F'\t' '$2 == "skip" { print "  " $1 ": " $3 }' list.txt
  [ "$ran" -gt 30 ] && pass "$ran examples ran, $skipped marked and not run" || fail "only $ran examples ran"
  ;;
readme_quick_start_is_exactly_two_commands)
  # Its first block: the two commands a newcomer types.
  "$PYTHON" "$EXTRACT" list "$SRC/README.md" >list.txt
  from=$(grep -n '^## Quick start' "$SRC/README.md" | cut -d: -f1)
  to=$(awk -v f="$from" 'NR > f && /^```sh/ { b++ } NR > f && b == 1 && /^```$/ { print NR; exit }' "$SRC/README.md")
  n=$(awk -F'\t' -v f="$from" -v t="$to" '{ split($1, a, ":"); if (a[2] > f && a[2] < t) n++ } END { print n + 0 }' list.txt)
  [ "$n" = 2 ] && pass "the quick start has 2 commands" || fail "the quick start has $n commands"
  ;;
every_environment_variable_read_is_in_the_readme_and_cuaudit_7)
  # The names the module and the command read are written as string literals in their C
  # sources; each must be explained where a user looks: README.md and cuaudit(7).
  # Every source folder docs/layers.txt lists, and the NVTX injection library.
  folders=$(sed 's/#.*//' "$SRC/docs/layers.txt" | awk 'NF { print "'"$SRC"'/" $1 }')
  grep -rhoE --include=*.c --include=*.h '"CUAUDIT_[A-Z0-9_]*[A-Z0-9]"' \
    $folders "$SRC/nvtx" | tr -d '"' | sort -u >vars.txt
  n=$(wc -l <vars.txt)
  [ "$n" -ge 30 ] && pass "$n variable names in the sources" ||
    fail "only $n variable names found: the sources no longer name them as this case expects"
  missing=0
  while read -r v; do
    for doc in README.md docs/man/cuaudit.7; do
      grep -qw -- "$v" "$SRC/$doc" || { fail "$doc does not name $v"; missing=$((missing + 1)); }
    done
  done <vars.txt
  [ "$missing" = 0 ] && pass "README.md and cuaudit(7) name every one"
  ;;
esac
finish
