#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/run.sh: cuaudit's added cost per call in every configuration, side by side, with the TSC floor, a breakdown of a call's cost, the PyTorch loop and start-up; --mock runs the per-call part on the mock driver without a GPU.
# Usage: bench/run.sh BUILD_DIR          on a GPU machine (BUILD_DIR holds libcuaudit.so, bench/calls, bench/cupti_subscriber*.so)
#        bench/run.sh --mock BUILD_DIR   anywhere: the per-call columns on the mock (tests/cases/mock_calls)
# Environment: ROUNDS (3) rounds of the per-call columns; TORCH_ROUNDS (7) rounds and TORCH_SECONDS (3 s of
#              training per run) of the PyTorch loop; PART=calls|torch|all (all) to split a run across two
#              device calls; NO_TORCH=1 to skip the PyTorch columns;
#              BASELINE=/path/libcuaudit.so to measure another build of the module beside this one;
#              CONFIGS="summary live ..." to run only those per-call rows (and native);
#              TORCH_CONFIGS="native native_b summary ..." to run only those PyTorch rows;
#              MODES="plt procaddress" to measure only those per-call columns.
# The PyTorch rows print each row's paired slowdown too (median and range of each round's
# ratio to native in the same round); its targets are read on that median.
set -u
MOCK=0
[ "${1:-}" = --mock ] && { MOCK=1; shift; }
B=$(cd "${1:?usage: bench/run.sh [--mock] BUILD_DIR}" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROUNDS=${ROUNDS:-3}
TORCH_ROUNDS=${TORCH_ROUNDS:-7}
TORCH_SECONDS=${TORCH_SECONDS:-3}
PART=${PART:-all}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
AUDIT=$B/libcuaudit.so
A="LD_AUDIT=$AUDIT CUAUDIT_LOG=warn"
declare -A env_of=(
  [native]=""
  [native_b]=""
  [no_hook]="$A"
  [dispatch]="$A CUAUDIT_PLUGINS=$B/bench/breakdown_untimed.so"
  [dispatch_timed]="$A CUAUDIT_PLUGINS=$B/bench/breakdown_timed.so"
  [metrics]="$A CUAUDIT_METRICS=$W/metrics.%p.prom"
  [live]="$A CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  [summary_live]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  [trace_live]="$A CUAUDIT_TRACE=$W/trace.%p.json CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  [memlimit]="$A CUAUDIT_MEM_LIMIT=1TiB"
  [summary]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0"
  [sampled]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=64"
  [trace]="$A CUAUDIT_TRACE=$W/trace.%p.json"
  [verbose]="$A CUAUDIT_LOG=verbose CUAUDIT_LOG_FILE=$W/log.%p"
  [gputime]="$A CUAUDIT_GPU_TIME=on"
  [all]="$A CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_TRACE=$W/trace.%p.json CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live CUAUDIT_GPU_TIME=on"
  [cupti]="CUDA_INJECTION64_PATH=$B/bench/cupti_subscriber.so"
  [cupti_ts]="CUDA_INJECTION64_PATH=$B/bench/cupti_subscriber_ts.so"
)
# Every call writes output in these: fewer calls per pass keep the files small; ns per call
# stays comparable.
declare -A scale_of=([trace]=20 [trace_live]=20 [all]=20 [verbose]=200 [base_trace]=20 [base_trace_live]=20 [base_all]=20)
# BASELINE=/path/libcuaudit.so: another build of the module (an older commit) measured in the
# same interleaved rounds, with the same programs: its rows read base_*.
base_configs=""
if [ -n "${BASELINE:-}" ]; then
  BA="LD_AUDIT=$BASELINE CUAUDIT_LOG=warn"
  env_of[base_no_hook]="$BA"
  env_of[base_summary]="$BA CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0"
  env_of[base_trace]="$BA CUAUDIT_TRACE=$W/trace.%p.json"
  env_of[base_live]="$BA CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  env_of[base_summary_live]="$BA CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  env_of[base_trace_live]="$BA CUAUDIT_TRACE=$W/trace.%p.json CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live"
  env_of[base_sampled]="$BA CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=64"
  env_of[base_gputime]="$BA CUAUDIT_GPU_TIME=on"
  env_of[base_all]="$BA CUAUDIT_SUMMARY=$W/summary.%p.json CUAUDIT_SUMMARY_SAMPLE=0 CUAUDIT_TRACE=$W/trace.%p.json CUAUDIT_LIVE=1 CUAUDIT_LIVE_DIR=$W/live CUAUDIT_GPU_TIME=on"
  base_configs=" base_no_hook base_sampled base_summary base_trace base_live base_summary_live base_trace_live base_gputime base_all"
fi
if [ $MOCK = 1 ]; then
  CALLS=$B/tests/cases/mock_calls
  export LD_LIBRARY_PATH=$B/mock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  configs="native no_hook dispatch dispatch_timed memlimit metrics summary sampled trace verbose live summary_live trace_live$base_configs"
  # (e): cudaGetDevice through a patched entry of the runtime linked into the program
  # (CUAUDIT_STATIC_RUNTIME=1), to compare with (c), the shared runtime's PLT binding.
  calls_of() {
    if [ "$1" = entry ]; then CUAUDIT_STATIC_RUNTIME=1 "${CALLS}_static" cudart 200000 | awk '{print $2}'
    else "$CALLS" "$1" 200000 | awk '{print $2}'; fi
  }
  tsc_ns() { "$CALLS" tsc 2000000 | awk '{print $2}'; }
  NO_TORCH=1
else
  CALLS=$B/bench/calls
  configs="native no_hook dispatch dispatch_timed memlimit metrics summary sampled trace verbose live summary_live trace_live cupti cupti_ts$base_configs"
  # bench/calls does 16 passes of 2,000,000 calls; a quarter keeps each run near a second.
  calls_of() { BENCH_SCALE=$((4 * ${BENCH_SCALE:-1})) "$CALLS" "$1" | awk '{print $2}'; }
  tsc_ns() { "$CALLS" clock | awk '$1 == "rdtsc" {print $2}'; }
  [ -f "$B/bench/cupti_subscriber.so" ] || echo "note: no CUPTI subscriber built; its rows read nan"
fi
# CONFIGS="native summary ...": only these rows (a short device call); native is always kept.
[ -n "${CONFIGS:-}" ] && configs="native ${CONFIGS//native/}"
NO_TORCH=${NO_TORCH:-0}
python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null || NO_TORCH=1
PIN=""
command -v taskset >/dev/null && [ "$(nproc)" -gt 2 ] && PIN="taskset -c 2"
# The same addresses in every process (no ASLR): where code and data land changes a call by a
# few ns from one process to the next, the size of the targets (issue 25).
setarch "$(uname -m)" -R true 2>/dev/null && PIN="setarch $(uname -m) -R $PIN"
# The PyTorch loop on four cores of its own (its autograd engine runs a thread of its own
# beside the Python one), same addresses in every process.
TORCH_PIN=""
command -v taskset >/dev/null && [ "$(nproc)" -gt 6 ] && TORCH_PIN="taskset -c 2-5"
setarch "$(uname -m)" -R true 2>/dev/null && TORCH_PIN="setarch $(uname -m) -R $TORCH_PIN"
modes=${MODES:-"plt procaddress cudart launch"}
[ $MOCK = 1 ] && modes="$modes entry"
declare -A ns steps start rounds_of
clean() { rm -rf "$W"/trace.* "$W"/log.* "$W"/summary.* "$W"/metrics.* "$W"/live; }
[ "$PART" = torch ] && ROUNDS=0
[ "$PART" = calls ] && NO_TORCH=1
# The PyTorch rows: native twice, so the spread of native against native is measured in the
# same rounds as the rows it must be small against.
torch_configs="native native_b no_hook memlimit metrics sampled summary trace live gputime"
[ $MOCK = 0 ] && torch_configs+=" cupti cupti_ts"
if [ -n "${TORCH_CONFIGS:-}" ]; then # native twice is always kept
  torch_configs="native native_b"
  for c in $TORCH_CONFIGS; do case $c in native | native_b) ;; *) torch_configs+=" $c" ;; esac; done
fi
# A name with no environment would run every round as an unbound variable and print nan.
for c in $configs $torch_configs; do
  [ -n "${env_of[$c]+set}" ] && continue
  echo "bench/run.sh: unknown configuration '$c' in CONFIGS or TORCH_CONFIGS (base_* only with BASELINE); known: $(printf '%s\n' "${!env_of[@]}" | sort | tr '\n' ' ')" >&2
  exit 2
done

# Configurations interleaved, ROUNDS rounds, each one's median kept: drift hits all alike.
t_begin=$(date +%s)
# Every other round in the reverse order: a row measured late in a round (the baseline's
# rows come after this tree's) is not always measured late.
reversed=$(echo $configs | tr ' ' '\n' | tac | tr '\n' ' ')
for round in $(seq "$ROUNDS"); do
  order=$configs
  [ $((round % 2)) = 0 ] && order=$reversed
  for c in $order; do
    for mode in $modes; do
      v=$(env ${env_of[$c]} BENCH_SCALE=${scale_of[$c]:-1} $PIN bash -c "$(declare -f calls_of); CALLS='$CALLS' calls_of $mode" 2>/dev/null)
      ns[$c.$mode]="${ns[$c.$mode]:-} ${v:-nan}"
      # As it goes, so that a run cut by a time limit still shows what it measured.
      echo "round $round $c $mode: ${v:-nan}" >&2
      clean
    done
  done
done
# The PyTorch loop in rounds of its own: one process per configuration and round gives both
# the start-up (to the first CUDA tensor) and the loop's rate.
if [ "$NO_TORCH" = 0 ]; then
  for round in $(seq "$TORCH_ROUNDS"); do
    for c in $torch_configs; do
      out=$($TORCH_PIN env ${env_of[$c]} python3 "$HERE/torch_loop.py" "$(date +%s%N)" "$TORCH_SECONDS" 2>/dev/null | tail -1)
      start[$c]="${start[$c]:-} $(echo "$out" | awk '{print $2}')"
      steps[$c]="${steps[$c]:-} $(echo "$out" | awk '{print $4}')"
      # Round by round, a failed run marked (x), for the paired slowdowns.
      rounds_of[$c]="${rounds_of[$c]:-} $(echo "$out" | awk '{print $4}' | grep . || echo x)"
      # As it goes, so that a run cut by a time limit still shows what it measured.
      echo "torch round $round $c: ${out:-failed}" >&2
      clean
    done
  done
fi
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "nan")}'; }
lowest() { tr ' ' '\n' | grep -v '^$' | sort -g | awk 'NR == 1 {v = $1} END {print (NR ? v : "nan")}'; }
highest() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v = $1} END {print (NR ? v : "nan")}'; }
# The mean and twice its standard error (a 95% interval where the rounds are independent).
mean_2se() { tr ' ' '\n' | grep -v '^$' | awk '{s += $1; q += $1 * $1; n++}
  END {if (n < 2) {print "nan"; exit} m = s / n; v = (q - n * m * m) / (n - 1); if (v < 0) v = 0
       printf "%+.2f +- %.2f\n", m, 2 * sqrt(v / n)}'; }

declare -A m
for c in $configs; do
  for mode in $modes; do m[$c.$mode]=$(echo "${ns[$c.$mode]:-}" | median); done
done
for c in $torch_configs; do
  [ "$NO_TORCH" = 0 ] || break
  m[$c.steps]=$(echo "${steps[$c]}" | median); m[$c.start]=$(echo "${start[$c]}" | median)
  m[$c.lo]=$(echo "${steps[$c]}" | lowest); m[$c.hi]=$(echo "${steps[$c]}" | highest)
  # Paired: each round's slowdown against native's run in the same round, then the median and
  # the range of those. A drift of the machine between rounds (these are VMs of shared
  # hosts) moves both runs of a round alike and falls out of the ratio.
  pairs=$(paste -d' ' <(echo "${rounds_of[native]}" | tr ' ' '\n' | grep -v '^$') \
    <(echo "${rounds_of[$c]}" | tr ' ' '\n' | grep -v '^$') |
    awk '$1 != "x" && $2 != "x" && $1 > 0 && $2 > 0 {printf "%.3f ", ($1 / $2 - 1) * 100}')
  m[$c.pmed]=$(echo "$pairs" | median); m[$c.plo]=$(echo "$pairs" | lowest); m[$c.phi]=$(echo "$pairs" | highest)
done
tsc=$(tsc_ns)
added() { # a row not measured (CONFIGS) reads nan, and its targets "not measured"
  [ -n "${m[$1.$2]:-}" ] || { echo nan; return; }
  awk -v x="${m[$1.$2]}" -v b="${m[native.$2]}" 'BEGIN {print x - b}'; }

if [ "$ROUNDS" -gt 0 ]; then
  printf '%-14s %18s %18s %18s %18s' config "(a) PLT" "(b) procaddress" "(c) cudaGetDevice" "(d) launch"
  [ $MOCK = 1 ] && printf ' %18s' "(e) entry"
  echo
  for c in $configs; do
    row=$(printf '%-14s' "$c")
    for mode in $modes; do
      if [ -z "${m[$c.$mode]:-}" ]; then row+=$(printf ' %18s' nan)
      elif [ "$c" = native ]; then row+=$(printf ' %18s' "$(printf '%.2f ns' "${m[$c.$mode]}")")
      else row+=$(printf ' %18s' "$(awk -v x="${m[$c.$mode]}" -v b="${m[native.$mode]}" 'BEGIN {printf "%+.2f (%.2fx)", x - b, x / b}')"); fi
    done
    echo "$row"
  done
  echo "per-call cells: ns added to native and the ratio to native; medians of $ROUNDS interleaved rounds"
  awk -v t="$tsc" 'BEGIN {printf "one TSC read: %.2f ns; floor of an exactly timed call (two reads): %.2f ns\n", t, 2 * t}'
  # Where a call's time goes: each row is the difference of two configurations above.
  # dispatch = an empty subscriber without times; dispatch_timed = the same asking for times.
  echo
  echo "breakdown (ns per call)   (a) PLT  (b) procaddress  (c) cudaGetDevice"
  part() { # LABEL CONFIG BASE
    local row
    row=$(printf '%-24s' "$1")
    for mode in plt procaddress cudart; do
      if [ -z "${m[$2.$mode]:-}" ] || [ -z "${m[$3.$mode]:-}" ]; then row+=$(printf ' %10s' nan)
      elif [ "$3" = native ]; then row+=$(printf ' %10.2f' "$(added "$2" $mode)")
      else row+=$(printf ' %10.2f' "$(awk -v x="${m[$2.$mode]}" -v b="${m[$3.$mode]}" 'BEGIN {print x - b}')"); fi
    done
    echo "$row"
  }
  part "entry (no hook)" no_hook native
  part "record + subscriber loop" dispatch no_hook
  part "clock reads" dispatch_timed dispatch
  part "summary update" summary dispatch_timed
  part "trace record" trace dispatch_timed
  part "sampled summary, all" sampled native
  # The live view's own cost, paired: in each round, the row with the view against the same
  # row without it, measured minutes apart in one round; the median and range of those.
  echo
  echo "live view added, paired by round (ns; median [lowest, highest])  (a) PLT  (b) procaddress  (c) cudaGetDevice"
  for pair in summary_live:summary trace_live:trace live:dispatch base_summary_live:base_summary base_trace_live:base_trace; do
    with=${pair%%:*} without=${pair#*:}
    case " $configs " in *" $with "*) ;; *) continue ;; esac
    case " $configs " in *" $without "*) ;; *) continue ;; esac
    row=$(printf '%-24s' "$with")
    for mode in plt procaddress cudart; do
      d=$(paste -d' ' <(echo "${ns[$with.$mode]:-}" | tr ' ' '\n' | grep -v '^$') \
        <(echo "${ns[$without.$mode]:-}" | tr ' ' '\n' | grep -v '^$') |
        awk '$1 != "nan" && $2 != "nan" {printf "%.2f ", $1 - $2}')
      row+=$(printf ' %24s' "$(printf '%+.2f [%+.2f, %+.2f]' "$(echo "$d" | median)" "$(echo "$d" | lowest)" "$(echo "$d" | highest)")")
    done
    echo "$row"
  done
  # This tree against the baseline build, paired by round: each round's row less the same
  # row of the baseline, run beside it in that round; the median and range of those.
  if [ -n "$base_configs" ]; then
    echo
    printf '%-24s' "less the baseline, paired by round (ns; median [lowest, highest], mean +- 2 standard errors)"
    echo
    for c in no_hook sampled summary trace live summary_live trace_live gputime all; do
      case " $configs " in *" $c "*) ;; *) continue ;; esac
      case " $configs " in *" base_$c "*) ;; *) continue ;; esac
      row=$(printf '%-24s' "$c")
      for mode in $modes; do
        d=$(paste -d' ' <(echo "${ns[$c.$mode]:-}" | tr ' ' '\n' | grep -v '^$') \
          <(echo "${ns[base_$c.$mode]:-}" | tr ' ' '\n' | grep -v '^$') |
          awk '$1 != "nan" && $2 != "nan" {printf "%.2f ", $1 - $2}')
        row+=$(printf ' %s %24s, mean %s' "$mode" "$(printf '%+.2f [%+.2f, %+.2f]' "$(echo "$d" | median)" "$(echo "$d" | lowest)" "$(echo "$d" | highest)")" "$(echo "$d" | mean_2se)")
      done
      echo "$row"
    done
  fi
fi

if [ "$NO_TORCH" = 0 ]; then
  echo
  echo "PyTorch loop ($TORCH_ROUNDS interleaved rounds of ${TORCH_SECONDS} s of Adam steps on a 6-layer MLP; median steps/s [lowest-highest]; slowdown of the median against native's; paired: median [range] of each round's slowdown against native in that round)"
  for c in $torch_configs; do
    awk -v c="$c" -v x="${m[$c.steps]}" -v lo="${m[$c.lo]}" -v hi="${m[$c.hi]}" -v b="${m[native.steps]}" \
      -v s="${m[$c.start]}" -v sb="${m[native.start]}" -v pm="${m[$c.pmed]}" -v pl="${m[$c.plo]}" -v ph="${m[$c.phi]}" \
      'BEGIN {printf "%-14s %9.1f [%7.1f-%7.1f] %+6.1f%%   paired %+6.1f%% [%+.1f, %+.1f]   start-up %.3f s (%.2fx)\n", c, x, lo, hi, (b / x - 1) * 100, pm, pl, ph, s, s / sb}'
  done
  awk -v a="${m[native.steps]}" -v b="${m[native_b.steps]}" -v lo="${m[native.lo]}" -v hi="${m[native.hi]}" \
    -v pm="${m[native_b.pmed]}" -v pl="${m[native_b.plo]}" -v ph="${m[native_b.phi]}" \
    'BEGIN {printf "native against native: %+.1f%% between the medians, paired %+.1f%% [%+.1f, %+.1f]; native rounds spread %.1f%% (highest/lowest - 1)\n", (a / b - 1) * 100, pm, pl, ph, (hi / lo - 1) * 100}'
fi

# The targets of issue 25, each marked met or missed on the medians.
target() { # DESCRIPTION AWK-CONDITION
  case "$2" in *nan*) echo "not measured:  $1"; return ;; esac
  if awk "BEGIN {exit !($2)}" 2>/dev/null; then echo "target met:    $1"; else echo "target missed: $1"; fi
}
if [ "$ROUNDS" -gt 0 ] && [ $MOCK = 1 ]; then
  # Issue 23: a patched entry (its island stores the copy, then the shared wrapper) costs what
  # a shared-runtime binding costs.
  for c in no_hook summary; do
    target "$c: a patched entry within 2 ns of a shared-runtime binding ($(added $c entry) vs $(added $c cudart))" \
      "$(added $c entry) - $(added $c cudart) <= 2"
  done
fi
if [ "$ROUNDS" -gt 0 ]; then
  for mode in plt procaddress; do
    target "no hook on $mode <= +1 ns ($(added no_hook $mode))" "$(added no_hook $mode) <= 1"
    target "sampled summary on $mode <= +6 ns ($(added sampled $mode))" "$(added sampled $mode) <= 6"
    target "summary on $mode <= floor + 8 ns ($(added summary $mode) <= $(awk -v t="$tsc" 'BEGIN {print 2 * t + 8}'))" \
      "$(added summary $mode) <= 2 * $tsc + 8"
    target "trace on $mode <= floor + 16 ns ($(added trace $mode) <= $(awk -v t="$tsc" 'BEGIN {print 2 * t + 16}'))" \
      "$(added trace $mode) <= 2 * $tsc + 16"
  done
  # The live view (issue 22): with the summary or the trace it reuses their clock reads; alone
  # it adds one clock read and its slot stores to what any subscriber pays (the dispatch row).
  for mode in plt procaddress cudart; do
    for c in summary trace; do
      target "live view with the $c adds at most 3 ns on $mode ($(added ${c}_live $mode) vs $(added $c $mode))" \
        "$(added ${c}_live $mode) - $(added $c $mode) <= 3"
    done
    target "live view alone within one TSC read + 4 ns of the dispatch on $mode ($(added live $mode) vs $(added dispatch $mode) + $tsc + 4)" \
      "$(added live $mode) <= $(added dispatch $mode) + $tsc + 4"
  done
  case " $configs " in *" cupti "*)
    for mode in plt procaddress cudart; do
      target "summary at least 2x cheaper than CUPTI empty on $mode ($(added summary $mode) vs $(added cupti $mode))" \
        "2 * $(added summary $mode) <= $(added cupti $mode)"
      target "trace at least 1.8x cheaper than CUPTI empty on $mode ($(added trace $mode) vs $(added cupti $mode))" \
        "1.8 * $(added trace $mode) <= $(added cupti $mode)"
    done ;;
  esac
  # A hot path not slower than the baseline build's: read on the rounds' paired differences,
  # not shown above 1 ns (the mean less two standard errors at most 1 ns).
  if [ -n "$base_configs" ]; then
    for c in no_hook sampled summary trace live summary_live trace_live gputime all; do
      case " $configs " in *" base_$c "*) ;; *) continue ;; esac
      for mode in $modes; do
        d=$(paste -d' ' <(echo "${ns[$c.$mode]:-}" | tr ' ' '\n' | grep -v '^$') \
          <(echo "${ns[base_$c.$mode]:-}" | tr ' ' '\n' | grep -v '^$') |
          awk '$1 != "nan" && $2 != "nan" {printf "%.2f ", $1 - $2}')
        ms=$(echo "$d" | mean_2se)
        case $ms in nan) target "$c on $mode not slower than the baseline" nan; continue ;; esac
        target "$c on $mode not slower than the baseline (paired, mean $ms ns; at most 1 ns)" \
          "$(echo "$ms" | awk '{print $1 - $3}') <= 1"
      done
    done
  fi
fi
if [ "$NO_TORCH" = 0 ]; then
  # The targets are read on the paired median: the estimate the machine's drift moves least.
  slow() { # a row not run (TORCH_CONFIGS) reads nan, and its target "not measured"
    [ -n "${m[$1.pmed]:-}" ] && [ "${m[$1.pmed]}" != nan ] || { echo nan; return; }
    echo "${m[$1.pmed]}"; }
  for t in no_hook:1 memlimit:1 sampled:2 metrics:2 summary:5 trace:6; do
    c=${t%%:*} lim=${t#*:}
    target "PyTorch loop with $c at most $lim% slower ($(slow "$c")%)" "$(slow "$c") <= $lim"
  done
  # Issue 21: every launch timed on the GPU.
  case " $torch_configs " in *" gputime "*)
    target "PyTorch loop with GPU timing of every launch at most 5% slower ($(slow gputime)%)" "$(slow gputime) <= 5" ;;
  esac
fi
echo "took $(( $(date +%s) - t_begin )) s"
