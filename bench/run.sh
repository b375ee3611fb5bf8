#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run.sh: runs bench/calls and PyTorch start-up natively, under cuaudit (no hook, summary, trace, verbose log) and under CUPTI; prints one table.
# Usage: bench/run.sh BUILD_DIR   (BUILD_DIR holds libcuaudit.so and bench/{calls,cupti_subscriber.so})
set -u
B=$1
W=$(mktemp -d)
AUDIT=$B/libcuaudit.so
CALLS=$B/bench/calls
declare -A env_of=(
  [native]=""
  [cuaudit]="LD_AUDIT=$AUDIT"
  [summary]="LD_AUDIT=$AUDIT CUAUDIT_SUMMARY=$W/summary.%p.json"
  [trace]="LD_AUDIT=$AUDIT CUAUDIT_TRACE=$W/trace.%p.json"
  [verbose]="LD_AUDIT=$AUDIT CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE=$W/log.%p"
  [cupti]="CUDA_INJECTION64_PATH=$B/bench/cupti_subscriber.so"
  [cupti_ts]="CUDA_INJECTION64_PATH=$B/bench/cupti_subscriber_ts.so"
)
configs="native cuaudit summary trace verbose cupti cupti_ts"
# Calls per pass are divided by this where every call writes output (a log line, a trace
# event): the ns per call stays comparable, the files stay small.
declare -A scale_of=([trace]=20 [verbose]=200)
declare -A ns

# Interleave configurations, three rounds, and keep each one's median: drift hits all alike.
for round in 1 2 3; do
  for c in $configs; do
    for mode in plt procaddress cudart launch; do
      v=$(env ${env_of[$c]} BENCH_SCALE=${scale_of[$c]:-1} "$CALLS" $mode 2>/dev/null | awk '{print $2}')
      ns[$c.$mode]="${ns[$c.$mode]:-} ${v:-nan}"
      rm -f "$W"/trace.* "$W"/log.* "$W"/summary.*
    done
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

startup() { # CONFIG: median wall seconds of 5 runs of a PyTorch start
  local c=$1 t=()
  for i in 1 2 3 4 5; do
    local s=$(date +%s%N)
    env ${env_of[$c]} python3 -c "import torch; torch.zeros(1, device='cuda')" >/dev/null 2>&1
    local e=$(date +%s%N)
    t+=("$(awk -v a="$s" -v b="$e" 'BEGIN {printf "%.4f", (b - a) / 1e9}')")
    rm -f "$W"/trace.* "$W"/log.* "$W"/summary.*
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n 3p
}

printf '%-10s %12s %12s %12s %12s %12s\n' config "(a) plt" "(b) procaddr" "(c) cudart" "(d) launch" "torch start"
declare -A base
for c in $configs; do
  row=$(printf '%-10s' "$c")
  for mode in plt procaddress cudart launch; do
    m=$(echo "${ns[$c.$mode]}" | median)
    [ "$c" = native ] && base[$mode]=$m
    if [ "$c" = native ]; then
      row+=$(printf ' %12s' "$(printf '%.2f ns' "$m")")
    else
      row+=$(printf ' %12s' "$(awk -v m="$m" -v b="${base[$mode]}" 'BEGIN {printf "%+.2f %.2fx", m - b, m / b}')")
    fi
  done
  s=$(startup "$c")
  [ "$c" = native ] && base[startup]=$s
  if [ "$c" = native ]; then row+=$(printf ' %12s' "$(printf '%.3f s' "$s")")
  else row+=$(printf ' %12s' "$(awk -v s="$s" -v b="${base[startup]}" 'BEGIN {printf "%.3fx", s / b}')"); fi
  echo "$row"
done
echo "per-call columns: native ns/call, then ns added and the ratio to native; medians of 3 interleaved rounds of 15 passes"
echo "clock costs on this machine (ns per read): $("$CALLS" clock | tr '\n' ' ')"
rm -rf "$W"
