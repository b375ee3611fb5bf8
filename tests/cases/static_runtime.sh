#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/static_runtime.sh: entry patching of a statically linked runtime (CUAUDIT_STATIC_RUNTIME, issue 14), on the mock.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1

patched_line='\(static runtime\): entries patched='

case $name in
static_runtime_calls_are_logged_at_runtime_level_with_identical_results)
  native "$BIN/static_rt"
  CUAUDIT_STATIC_RUNTIME=1 audited "$BIN/static_rt"
  same_results
  for f in cudaGetDevice cudaMalloc cudaLaunchKernel cudaFree cudaGetDriverEntryPoint cudaGetErrorString; do
    expect_log 1 "$(call "$f" entry)"
  done
  expect_log 2 "$(call cudaMemcpy entry)"
  expect_log 4 "$(call cudaGetDriverEntryPointByVersion entry)"
  # Called from a constructor: the patch is in place before the executable's initialisers.
  expect_log 1 "$(call __cudaRegisterFatBinary entry)"
  # Driver calls made inside runtime calls are one level deeper, as with a shared runtime.
  expect_log 1 "tid=[0-9]+   cuMemAlloc_v2\(dptr=.* procaddress$"
  expect_log 1 "tid=[0-9]+   cuLaunchKernel\(f=.* procaddress$"
  expect_log 1 "tid=[0-9]+ cudaMalloc\(devPtr=0x[0-9a-f]+->0x[0-9a-f]+, size=32\) -> cudaSuccess"
  expect_log 1 "\(executable\) $patched_line[1-9][0-9]* short-branch=0 unknown-opcode=0 branch-into-entry=0 too-short=0"
  ;;
static_and_shared_builds_give_the_same_runtime_summary)
  native "$BIN/shared_rt"
  CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/shared.json" audited "$BIN/shared_rt"
  same_results
  cp audited.out shared.out
  CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/static.json" audited "$BIN/static_rt"
  cmp -s shared.out audited.out && pass "static and shared builds print the same" ||
    { fail "static and shared builds print differently"; diff shared.out audited.out | head; }
  "$PYTHON" "$CASES_DIR/compare_summaries.py" shared.json static.json nested >cmp.txt 2>&1 &&
    pass "summaries agree call for call: $(tail -1 cmp.txt)" || { fail "summaries differ"; cat cmp.txt; }
  expect_log 1 'compared ([1-9][0-9]) rows, 0 differ' cmp.txt
  # The binding kind is what tells them apart.
  "$PYTHON" - shared.json static.json >kinds.txt <<'PY'
import json, sys
for p in sys.argv[1:]:
    doc = json.load(open(p))
    row = [a for a in doc["apis"] if a["name"] == "cudaMalloc" and not a["nested"]][0]
    print(p, " ".join(f"{k}={v}" for k, v in row["bindings"].items() if v))
PY
  expect_log 1 '^shared.json (plt|bindnow)=1$' kinds.txt
  expect_log 1 '^static.json entry=1$' kinds.txt
  ;;
static_runtime_messages_obey_CUAUDIT_LOG_levels)
  # Issue 19, defect 10: the patch line was printed at every level, off included.
  native "$BIN/static_rt"
  for level in off error warn; do
    CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LOG=$level CUAUDIT_LOG_FILE= audited "$BIN/static_rt"
    same_results
    cp audited.err "err.$level"
    [ -s "err.$level" ] && fail "CUAUDIT_LOG=$level: cuaudit wrote: $(head -3 "err.$level")" ||
      pass "CUAUDIT_LOG=$level: nothing written"
  done
  CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_SUMMARY="$dir/s.json" CUAUDIT_LOG=info CUAUDIT_LOG_FILE= audited "$BIN/static_rt"
  same_results
  expect_log 1 "$patched_line" audited.err
  ;;
static_runtime_is_left_alone_without_CUAUDIT_STATIC_RUNTIME)
  native "$BIN/static_rt"
  CUAUDIT_LOG=debug audited "$BIN/static_rt"
  same_results
  expect_log 0 "$(call cudaMalloc '[a-z]+')"
  expect_log 0 "$patched_line"
  CUAUDIT_STATIC_RUNTIME=0 CUAUDIT_LOG=debug CUAUDIT_LOG_FILE="$dir/log2.txt" audited "$BIN/static_rt"
  same_results
  expect_log 0 "$patched_line" log2.txt
  expect_log 0 "$(call cudaMalloc '[a-z]+')" log2.txt
  ;;
stripped_static_runtime_gets_one_info_message_and_runs)
  strip -o "$dir/static_rt_stripped" "$BIN/static_rt" || fail "strip"
  native "$dir/static_rt_stripped"
  CUAUDIT_STATIC_RUNTIME=1 audited "$dir/static_rt_stripped"
  same_results
  expect_log 1 'info: \(executable\) has no symbol table \(stripped\): its runtime calls are seen at the driver level only'
  expect_log 0 "$(call cudaMalloc '[a-z]+')"
  expect_log 2 "tid=[0-9]+ cuMemAlloc_v2\(dptr=.* procaddress$"
  # A shared runtime program's own objects are not a static runtime: no message for them.
  native "$BIN/shared_rt"
  CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_LOG_FILE="$dir/log2.txt" audited "$BIN/shared_rt"
  same_results
  expect_log 0 'stripped' log2.txt
  expect_log 0 "$patched_line" log2.txt
  ;;
hostile_prologues_are_refused_and_counted_and_the_rest_patched)
  native "$BIN/static_prologues"
  CUAUDIT_STATIC_RUNTIME=1 audited "$BIN/static_prologues"
  same_results
  expect_out '^cudaMalloc -> 0, 0x1234000$'
  expect_out '^cudaGetDeviceCount -> 0, 4$'
  expect_out '^cudaGetDevice -> 0, 6$'
  expect_log 1 "\(executable\) $patched_line""3 short-branch=1 unknown-opcode=1 branch-into-entry=1 too-short=1 out-of-reach=0"
  # Patched: endbr64 kept, RIP-relative lea and load relocated, call rel32 retargeted.
  for f in __cudaRegisterFatBinary cudaMalloc cudaGetDeviceCount; do
    expect_log 1 "$(call "$f" entry)"
  done
  expect_log 1 'entry of cudaFree in \(executable\) left alone: short-branch$'
  expect_log 1 'entry of cudaGetDevice in \(executable\) left alone: branch-into-entry$'
  expect_log 1 'entry of cudaMemGetInfo in \(executable\) left alone: unknown-opcode$'
  expect_log 1 'entry of cudaDeviceSynchronize in \(executable\) left alone: too-short$'
  for f in cudaFree cudaGetDevice cudaMemGetInfo cudaDeviceSynchronize; do
    expect_log 0 "$(call "$f" '[a-z]+')"
  done
  ;;
patched_program_forks_execs_and_runs_16_threads_with_exact_counts)
  native "$BIN/static_threads"
  CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_LOG=warn CUAUDIT_SUMMARY="$dir/s.%p.json" audited "$BIN/static_threads"
  same_results
  n=$(ls s.*.json 2>/dev/null | wc -l)
  [ "$n" -eq 3 ] && pass "three summaries: parent, forked child, exec'd child" || fail "$n summaries"
  for f in s.*.json; do
    "$PYTHON" "$CHECK_JSON" summary "$f" cudaMalloc:outer cudaFree:outer cudaMemGetInfo:outer \
      cudaGetDevice:outer >>check.txt 2>&1 || fail "summary JSON $f: $(tail -2 check.txt)"
  done
  # Parent: 16 x 200 each, plus its one cudaGetDevice. The fork inherits the patch; the exec'd
  # image is patched again by its own cuaudit.
  expect_log 1 '^cudaMalloc:outer calls=3200 errors=0$' check.txt
  expect_log 1 '^cudaFree:outer calls=3200 errors=0$' check.txt
  expect_log 1 '^cudaMemGetInfo:outer calls=7 errors=0$' check.txt
  expect_log 1 '^cudaGetDevice:outer calls=5 errors=0$' check.txt
  expect_log 1 '^cudaGetDevice:outer calls=1 errors=0$' check.txt
  ;;
dlopened_object_with_static_runtime_is_patched_before_its_constructors)
  native "$BIN/static_rt_dlopen"
  CUAUDIT_STATIC_RUNTIME=1 audited "$BIN/static_rt_dlopen"
  same_results
  expect_out '^dso: registered 1, cudaGetDevice -> 0, device 120$'
  expect_log 1 "libstatic_rt_dso.so $patched_line[1-9]"
  expect_log 1 "$(call __cudaRegisterFatBinary entry)"
  expect_log 1 "$(call cudaMalloc entry)"
  ;;
static_runtime_beside_shared_libcudart_each_reach_their_own)
  native "$BIN/static_rt_dlopen"
  CUAUDIT_STATIC_RUNTIME=1 audited "$BIN/static_rt_dlopen"
  same_results
  # The shared runtime reports device 100, the one linked into the object device 120.
  expect_out '^shared: cudaGetDevice -> 0, device 100$'
  expect_out '^dso: registered 1, cudaGetDevice -> 0, device 120$'
  expect_out '^shared again: cudaGetDevice -> 0, device 100$'
  expect_log 2 "$(call cudaGetDevice '(plt|bindnow)')"
  expect_log 1 "$(call cudaGetDevice entry)"
  ;;
writable_code_forbidden_falls_back_to_driver_level_once)
  native "$BIN/static_noexec" "$BIN/static_rt"
  CUAUDIT_STATIC_RUNTIME=1 audited "$BIN/static_noexec" "$BIN/static_rt"
  same_results
  expect_log 1 'warning: CUAUDIT_STATIC_RUNTIME: the system forbids executable memory \(SELinux execmem/execmod\?\): a statically linked runtime is seen at the driver level only'
  expect_log 0 "$(call cudaMalloc '[a-z]+')"
  expect_log 2 "tid=[0-9]+ cuMemAlloc_v2\(dptr=.* procaddress$"
  ;;
corrupt_section_headers_are_refused_and_the_program_runs)
  # The kernel runs a program without its section headers; cuaudit must not trust them.
  "$PYTHON" - "$BIN/static_rt" "$dir" <<'PY' || fail "could not write the corrupt copies"
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shnum, = struct.unpack_from("<H", data, 0x3C)
def save(name, buf):
    open(os.path.join(out, name), "wb").write(buf)
    os.chmod(os.path.join(out, name), 0o755)
a = bytearray(data); struct.pack_into("<Q", a, 0x28, 0xFFFFFFFFFFFF0000); save("far_shoff", a)
b = bytearray(data); struct.pack_into("<H", b, 0x3C, 0xFFFF); save("many_sections", b)
c = bytearray(data)
for i in range(shnum):
    off = shoff + i * 64
    if struct.unpack_from("<I", c, off + 4)[0] == 2:  # SHT_SYMTAB: size past the end
        struct.pack_into("<Q", c, off + 32, 1 << 62)
save("huge_symtab", c)
d = bytearray(data)
for i in range(shnum):
    off = shoff + i * 64
    if struct.unpack_from("<I", d, off + 4)[0] == 2:  # names far outside the string table
        sym_off, sym_size = struct.unpack_from("<QQ", d, off + 24)
        for j in range(sym_size // 24):
            struct.pack_into("<I", d, sym_off + j * 24, 0x7FFFFFF0)
save("bad_names", d)
PY
  native "$BIN/static_rt"
  for prog in far_shoff many_sections huge_symtab bad_names; do
    CUAUDIT_STATIC_RUNTIME=1 CUAUDIT_LOG_FILE="$dir/$prog.log" audited "$dir/$prog"
    same_results
    expect_log 0 "$patched_line" "$prog.log"
    expect_log 0 "$(call cudaMalloc '[a-z]+')" "$prog.log"
  done
  expect_log 1 'has no symbol table \(stripped\)' huge_symtab.log
  ;;
static_runtime_without_decoder_warns_once_and_runs)
  native "$BIN/static_rt"
  CUAUDIT_STATIC_RUNTIME=1 audited "$BIN/static_rt"
  same_results
  expect_log 1 'warning: CUAUDIT_STATIC_RUNTIME: this cuaudit was built without the Zydis decoder; a statically linked runtime is seen at the driver level only'
  expect_log 0 "$(call cudaMalloc '[a-z]+')"
  ;;
*) fail "unknown case $name" ;;
esac
finish
