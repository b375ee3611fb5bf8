#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cases/packaging.sh: the .deb and `cmake --install` name one module path everywhere, and the cuaudit command behaves as documented.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$1" || exit 1
set -o pipefail
MODULE_PATH=/usr/lib/cuaudit/libcuaudit.so # README, the mission, docs/deploy.md, cuaudit(7)

# build_deb: the package of this build, unpacked into $dir/root as dpkg would install it.
build_deb() {
  (cd "$BUILD" && "$CPACK" -G DEB -B "$dir/pkg" >"$dir/cpack.txt" 2>&1) || { fail "cpack: $(tail -5 "$dir/cpack.txt")"; finish; }
  deb=$(ls "$dir"/pkg/*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || { fail "cpack made no .deb"; finish; }
  dpkg-deb -x "$deb" "$dir/root" || { fail "dpkg-deb -x $deb"; finish; }
  root=$dir/root
}

# value_of VAR FILE: the value of VAR= in an environment.d file, or of Environment=VAR= in a
# unit, with systemd's %% unescaped. Exactly one such line must exist.
value_of() {
  local n
  n=$(grep -cE "^(Environment=)?$1=" "$2")
  [ "$n" = 1 ] || { echo "<$n lines set $1 in $2>"; return 1; }
  grep -E "^(Environment=)?$1=" "$2" | sed -E "s/^(Environment=)?$1=//; s/%%/%/g"
}

# run_with_drop_in ROOT DROPIN PROG: runs PROG with the drop-in's Environment= settings and
# nothing else, ROOT standing for / (the package is unpacked there, not installed): a value
# that is an absolute path outside ROOT is taken inside it. LogsDirectory= is created, as
# systemd does.
run_with_drop_in() {
  local root=$1 dropin=$2 prog=$3 line var val
  local -a vars=()
  while IFS= read -r line; do
    var=${line%%=*} val=${line#*=} val=${val//%%/%}
    if [[ $val == /* && $val != "$root"/* ]]; then val=$root$val; fi
    vars+=("$var=$val")
  done < <(sed -n 's/^Environment=//p' "$dropin")
  local logs
  logs=$(sed -n 's/^LogsDirectory=//p' "$dropin")
  [ -n "$logs" ] && mkdir -p "$root/var/log/$logs"
  printf '%s\n' "${vars[@]}" >dropin-env.txt
  env "${vars[@]}" "$prog" >audited.out 2>audited.err
  echo $? >audited.rc
}

# check_drop_in_run ROOT: the log and the summary the drop-in asks for exist and say so.
check_drop_in_run() {
  local logs=("$1"/var/log/cuaudit/[0-9]*.log) sums=("$1"/var/log/cuaudit/summary.[0-9]*.json)
  same_results
  [ -f "${logs[0]}" ] && grep -q 'libcuda loaded' "${logs[0]}" && pass "the drop-in's log file names the audited driver" ||
    fail "no audited log in $1/var/log/cuaudit: $(cat dropin-env.txt) $(head -3 audited.err)"
  [ -f "${sums[0]}" ] && "$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(a["name"]=="cuInit" for a in d["apis"])' "${sums[0]}" &&
    pass "the drop-in's JSON summary counts cuInit" || fail "no summary with cuInit in $1/var/log/cuaudit"
}

# expect_status WANT CMD...: runs CMD (stdout in cmd.out, stderr in cmd.err) and checks its status.
expect_status() {
  local want=$1 rc; shift
  "$@" >cmd.out 2>cmd.err; rc=$?
  [ "$rc" = "$want" ] && pass "status $want: $*" || fail "status $rc, expected $want: $* ($(head -3 cmd.err))"
}

case $name in
deb_unpacked_pkg_config_examples_and_docs_name_the_installed_module)
  build_deb
  [ -f "$root$MODULE_PATH" ] && pass "the package installs $MODULE_PATH" || fail "no $MODULE_PATH in the package: $(dpkg-deb -c "$deb" | grep -F .so)"
  # Relocatable: found through PKG_CONFIG_PATH alone, no --define-variable.
  got=$(PKG_CONFIG_PATH="$root/usr/share/pkgconfig" pkg-config --variable=module cuaudit)
  [ -n "$got" ] && [ -f "$got" ] && [ "$(realpath "$got")" = "$(realpath "$root$MODULE_PATH")" ] &&
    pass "pkg-config --variable=module resolves to the installed module" || fail "pkg-config module: '$got'"
  cflags=$(PKG_CONFIG_PATH="$root/usr/share/pkgconfig" pkg-config --cflags cuaudit) &&
    cc -shared -fPIC -fvisibility=hidden $cflags -o pc.so "$root/usr/share/cuaudit/examples/plugin/launch_counter.c" 2>pc.txt &&
    pass "a plugin builds from the package with pkg-config --cflags" || fail "pkg-config build: $(head -3 pc.txt) [$cflags]"
  for f in usr/share/cuaudit/examples/systemd/cuaudit.conf usr/share/cuaudit/examples/environment.d/50-cuaudit.conf; do
    v=$(value_of LD_AUDIT "$root/$f")
    [ "$v" = "$MODULE_PATH" ] && [ -f "$root$v" ] && pass "$f: LD_AUDIT names the installed module" || fail "$f: LD_AUDIT=$v"
  done
  "$PYTHON" - "$root" "$MODULE_PATH" <<'PY' >cmakecfg.txt && pass "cuauditConfig.cmake names the module relative to its prefix" || fail "CMake package: $(cat cmakecfg.txt)"
import os, re, sys
root, module = sys.argv[1], sys.argv[2]
cfg = open(os.path.join(root, "usr/lib/cuaudit/cmake/cuauditConfig.cmake")).read()
m = re.search(r'set_and_check\(CUAUDIT_MODULE "\$\{PACKAGE_PREFIX_DIR\}/([^"]+)"\)', cfg)
assert m and "/usr/" + m.group(1) == module, cfg
PY
  # Every document that names the module's path names this one.
  for f in usr/share/man/man7/cuaudit.7.gz usr/share/man/man1/cuaudit.1.gz; do
    [ -f "$root/$f" ] && gzip -t "$root/$f" && pass "$f is compressed" || fail "$f missing or not gzip"
  done
  zgrep -q -F "$MODULE_PATH" "$root/usr/share/man/man7/cuaudit.7.gz" && pass "cuaudit(7) names $MODULE_PATH" || fail "cuaudit(7) lacks $MODULE_PATH"
  for f in README.md docs/deploy.md docs/man/cuaudit.7 docs/man/cuaudit.1 examples/systemd/cuaudit.conf.in; do
    bad=$(grep -noE '/usr/(local/)?lib/[^ )`"]*libcuaudit\.so' "$SRC/$f" | grep -vF "$MODULE_PATH" || true)
    [ -z "$bad" ] && pass "$f names no other installed module path" || fail "$f: $bad"
  done
  [ -f "$root/usr/share/doc/cuaudit/copyright" ] && [ -f "$root/usr/share/doc/cuaudit/changelog.Debian.gz" ] &&
    pass "copyright and changelog installed" || fail "copyright or changelog missing"
  [ -f "$root/usr/share/bash-completion/completions/cuaudit" ] && pass "bash completion installed" || fail "no bash completion"
  # The unpacked package's own command finds its own module.
  "$root/usr/bin/cuaudit" run --log=info --log-file="$dir/deb.log" -- "$BIN/driver_lazy" >/dev/null 2>&1
  grep -q "libcuda loaded" deb.log && grep -q "^.*cuaudit $(cat "$SRC/CMakeLists.txt" | sed -nE 's/^project\(cuaudit VERSION ([0-9.]+).*/\1/p')" deb.log &&
    pass "the unpacked package's cuaudit runs a program audited" || fail "unpacked package: $(head -2 deb.log 2>&1)"
  ;;
deb_drop_in_environment_audits_a_program_from_the_staging_root)
  build_deb
  dropin=$root/usr/share/cuaudit/examples/systemd/cuaudit.conf
  native "$BIN/driver_lazy"
  run_with_drop_in "$root" "$dropin" "$BIN/driver_lazy"
  grep -qx "LD_AUDIT=$root$MODULE_PATH" dropin-env.txt && pass "LD_AUDIT is the package's module" || fail "LD_AUDIT: $(cat dropin-env.txt)"
  check_drop_in_run "$root"
  # environment.d: the same module, and a program runs audited with exactly its lines.
  envd=$root/usr/share/cuaudit/examples/environment.d/50-cuaudit.conf
  mapfile -t lines < <(grep -E '^[A-Z_]+=' "$envd")
  env "${lines[@]/#LD_AUDIT=/LD_AUDIT=$root}" CUAUDIT_LOG=info "$BIN/driver_lazy" >envd.out 2>envd.err
  grep -q 'libcuda loaded' envd.err && pass "environment.d settings audit a program" || fail "environment.d: $(head -3 envd.err)"
  ;;
deb_package_is_lintian_clean)
  command -v lintian >/dev/null || { echo "lintian is not installed (scripts/setup.sh installs it with CUAUDIT_SETUP_EXTRAS=1)"; exit 77; }
  build_deb
  # Overrides live in the package (usr/share/lintian/overrides/cuaudit), each with its reason.
  lintian --fail-on error,warning --no-tag-display-limit "$deb" >lintian.txt 2>&1; rc=$?
  cat lintian.txt
  [ $rc = 0 ] && pass "lintian: no error or warning" || fail "lintian exit $rc"
  grep -qE '^[EW]:' lintian.txt && fail "lintian reports errors or warnings" || pass "no E: or W: line"
  ;;
deb_description_dependencies_and_docs_follow_debian_policy)
  build_deb
  dpkg-deb -f "$deb" Description >desc.txt
  # Policy 5.6.13: each extended line starts with exactly one space (two: shown verbatim).
  tail -n +2 desc.txt | grep -q '^  ' && fail "a description line starts with two spaces: $(grep -n '^  ' desc.txt | head -2)" || pass "no verbatim description line"
  [ "$(tail -n +2 desc.txt | grep -cv '^ [^ ]')" = 0 ] && [ "$(wc -l <desc.txt)" -ge 3 ] && pass "extended description lines start with one space" || fail "description: $(cat desc.txt)"
  awk 'length > 80 { exit 1 }' desc.txt && pass "description lines fit 80 columns" || fail "long description lines"
  # Dependencies computed by dpkg-shlibdeps: what the binaries link, not a hand-kept name.
  deps=$(dpkg-deb -f "$deb" Depends)
  for lib in $(objdump -p "$root/usr/bin/cuaudit" "$root/usr/lib/cuaudit/libcuaudit.so" | sed -n 's/^ *NEEDED *//p' | sort -u); do
    pkg=$(dpkg -S "$(ldconfig -p | sed -n "s/^\t$lib .*=> //p" | head -1)" 2>/dev/null | cut -d: -f1 | head -1)
    [ -n "$pkg" ] || continue
    grep -qE "(^|, )$pkg( |,|$)" <<<"$deps" && pass "Depends names $pkg ($lib)" || fail "Depends lacks $pkg for $lib: $deps"
  done
  grep -q 'libc6 (>= 2.34)' <<<"$deps" && pass "libc6 (>= 2.34) kept" || fail "Depends: $deps"
  # Every document an installed file points to is installed.
  doc=$root/usr/share/doc/cuaudit
  for f in README.md docs/summary-schema.json docs/hooks.md docs/export.md; do
    [ -s "$doc/$f" ] && pass "installed: $f" || fail "not installed: $f"
  done
  zcat "$root/usr/share/man/man1/cuaudit.1.gz" "$root/usr/share/man/man7/cuaudit.7.gz" | sed 's/\\//g' |
    grep -oE '/usr/share/doc/cuaudit/[A-Za-z0-9_./-]+[A-Za-z0-9_]' | sort -u >named.txt
  [ -s named.txt ] && pass "the man pages name installed documents" || fail "no document named by the man pages"
  while read -r f; do [ -e "$root$f" ] && pass "$f exists" || fail "the man page names $f, not installed"; done <named.txt
  for f in $(cat "$root/usr/include/cuaudit/cuaudit.h" "$doc/README.md" | grep -oE 'docs/[a-z-]+\.(md|json)' | sort -u); do
    [ -s "$doc/$f" ] && pass "README/header link $f installed" || fail "$f is named but not installed"
  done
  # Warnings are errors only where asked (scripts/test.sh): a plain configure has no -Werror.
  "$CMAKE" -S "$SRC" -B plain -DBUILD_TESTING=OFF -DCUAUDIT_BUILD_BENCH=OFF >plain.txt 2>&1 || fail "configure: $(tail -3 plain.txt)"
  grep -rq -- -Werror plain/CMakeFiles/cuaudit.dir/flags.make && fail "-Werror in a plain build" || pass "no -Werror in a plain build"
  grep -q 'CUAUDIT_WERROR:BOOL=ON' "$BUILD/CMakeCache.txt" && pass "the test build has it on" || echo "note: this build was configured without CUAUDIT_WERROR"
  ;;
systemd_drop_in_from_the_package_passes_systemd_analyze_verify)
  command -v systemd-analyze >/dev/null || { echo "systemd-analyze is not installed (scripts/setup.sh installs it with CUAUDIT_SETUP_EXTRAS=1)"; exit 77; }
  build_deb
  mkdir -p unit/demo.service.d && cp "$root/usr/share/cuaudit/examples/systemd/cuaudit.conf" unit/demo.service.d/
  printf '[Unit]\nDescription=demo\n[Service]\nExecStart=/bin/true\n' >unit/demo.service
  systemd-analyze verify unit/demo.service >verify.txt 2>&1; rc=$?
  [ $rc = 0 ] && pass "systemd-analyze verify accepts the drop-in" || fail "systemd-analyze verify ($rc): $(head -5 verify.txt)"
  # A broken drop-in must fail the same check, or the check proves nothing.
  mkdir -p bad/demo.service.d && cp unit/demo.service bad/ && printf '[Service]\nEnvironmentt=X=1\nLogsDirectory=/abs\n' >bad/demo.service.d/cuaudit.conf
  systemd-analyze verify bad/demo.service >bad.txt 2>&1 && grep -q . bad.txt && ! grep -qi 'unknown\|invalid\|not' bad.txt &&
    fail "systemd-analyze accepts a broken drop-in silently" || pass "systemd-analyze flags a broken drop-in"
  ;;
install_prefix_pkg_config_find_package_and_drop_in_name_the_module)
  root=$dir/root prefix=$dir/root/usr
  "$CMAKE" --install "$BUILD" --prefix "$prefix" >install.txt 2>&1 || fail "install: $(tail -3 install.txt)"
  module=$prefix/lib/cuaudit/libcuaudit.so
  [ -f "$module" ] && pass "module at <prefix>/lib/cuaudit/libcuaudit.so" || fail "no $module"
  # The NVTX injection library beside it, and the installed command sets it.
  [ -f "$prefix/lib/cuaudit/libcuaudit-nvtx.so" ] && pass "NVTX injection library beside the module" || fail "no libcuaudit-nvtx.so"
  "$prefix/bin/cuaudit" run --log warn --summary "$dir/nvtx.json" -- "$BIN/nvtx_prog" >/dev/null 2>&1
  grep -q '"name":"forward"' nvtx.json && pass "the installed command keeps NVTX ranges" || fail "installed run: no NVTX table"
  got=$(PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --variable=module cuaudit)
  [ -f "$got" ] && [ "$(realpath "$got")" = "$module" ] && pass "pkg-config --variable=module is the installed module" || fail "pkg-config: '$got'"
  cflags=$(PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --cflags cuaudit) &&
    cc -shared -fPIC -fvisibility=hidden $cflags -o pc.so "$prefix/share/cuaudit/examples/plugin/launch_counter.c" 2>pc.txt &&
    pass "plugin built with pkg-config --cflags" || fail "pkg-config build: $(head -5 pc.txt) [$cflags]"
  "$CMAKE" -S "$prefix/share/cuaudit/examples/plugin" -B pb -DCMAKE_PREFIX_PATH="$prefix" >pb.txt 2>&1 &&
    "$CMAKE" --build pb >>pb.txt 2>&1 && pass "plugin built with find_package(cuaudit)" || fail "find_package build: $(tail -5 pb.txt)"
  mkdir -p fp && cat >fp/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(probe LANGUAGES C)
find_package(cuaudit 1.0 REQUIRED)
file(WRITE ${CMAKE_BINARY_DIR}/module.txt "${CUAUDIT_MODULE}")
EOF
  "$CMAKE" -S fp -B fpb -DCMAKE_PREFIX_PATH="$prefix" >fp.txt 2>&1 && [ "$(realpath "$(cat fpb/module.txt)")" = "$module" ] &&
    pass "find_package's CUAUDIT_MODULE is the installed module" || fail "CUAUDIT_MODULE: $(cat fpb/module.txt 2>/dev/null) $(tail -3 fp.txt)"
  dropin=$prefix/share/cuaudit/examples/systemd/cuaudit.conf
  [ "$(value_of LD_AUDIT "$dropin")" = "$module" ] && pass "drop-in names the installed module exactly" || fail "drop-in: $(value_of LD_AUDIT "$dropin")"
  [ "$(value_of LD_AUDIT "$prefix/share/cuaudit/examples/environment.d/50-cuaudit.conf")" = "$module" ] &&
    pass "environment.d names the installed module exactly" || fail "environment.d"
  native "$BIN/driver_lazy"
  run_with_drop_in "$root" "$dropin" "$BIN/driver_lazy"
  grep -qx "LD_AUDIT=$module" dropin-env.txt && pass "the drop-in's LD_AUDIT is used as written" || fail "LD_AUDIT: $(cat dropin-env.txt)"
  check_drop_in_run "$root"
  for p in pb/launch_counter.so pc.so; do
    rm -f log.txt
    "$prefix/bin/cuaudit" run --log=info --log-file="$dir/log.txt" --plugin="$p" -- "$BIN/driver_lazy" >/dev/null 2>&1
    expect_log 1 "info: plugin launch_counter: stream 0x[0-9a-f]+: 1 launch$"
    grep -q "libcuda loaded" log.txt && pass "installed command found the installed module" || fail "module not found"
  done
  ;;
cli_run_takes_getopt_forms_and_a_program_without_double_dash)
  native "$BIN/driver_lazy"
  for form in "--log verbose" "--log=verbose" "-l verbose" "-lverbose"; do
    rm -f f.log
    # shellcheck disable=SC2086 # the form is two words on purpose
    "$CLI" run $form --log-file f.log "$BIN/driver_lazy" >audited.out 2>audited.err; echo $? >audited.rc
    cmp -s native.out audited.out && cmp -s native.rc audited.rc && grep -q ' cuInit(' f.log &&
      pass "form '$form' sets the level and the file" || fail "form '$form': $(head -3 audited.err)"
  done
  "$CLI" run -o "$dir/g.log" -l info -- "$BIN/driver_lazy" >/dev/null 2>&1
  expect_log + "libcuda loaded" g.log
  # The program's own options are its own, after its name.
  out=$("$CLI" run echo --log=loud -x); rc=$?
  [ $rc = 0 ] && [ "$out" = "--log=loud -x" ] && pass "options after the program's name are the program's" || fail "program's options: rc $rc '$out'"
  expect_status 0 "$CLI" run --help
  grep -q '^usage: cuaudit run' cmd.out && grep -q -- '--error-exitcode' cmd.out && pass "run --help" || fail "run --help: $(head -2 cmd.out)"
  expect_status 0 "$CLI" report --help
  grep -q 'usage: cuaudit report' cmd.out && pass "report --help" || fail "report --help"
  expect_status 0 "$CLI" --help
  expect_status 2 "$CLI" run
  grep -q 'no program to run' cmd.err && pass "no program: a message" || fail "no program: $(cat cmd.err)"
  expect_status 2 "$CLI" run --no-such-option "$BIN/no_cuda"
  grep -q "unknown option '--no-such-option'" cmd.err && pass "unknown option named" || fail "unknown option: $(cat cmd.err)"
  expect_status 2 "$CLI" run --log
  grep -q "needs a value" cmd.err && pass "missing value named" || fail "missing value: $(cat cmd.err)"
  expect_status 2 "$CLI" frobnicate
  expect_status 42 "$CLI" run "$BIN/no_cuda"
  expect_status 127 "$CLI" run "$dir/nonexistent"
  ;;
cli_run_refuses_bad_values_and_unwritable_paths_before_starting)
  # Each refusal: status 2, a message naming the option or variable, and the program never ran.
  refuse() { # WHAT-IN-MESSAGE ARGS...
    local want=$1; shift
    rm -f started
    "$CLI" run "$@" -- bash -c 'touch started' >cmd.out 2>cmd.err; rc=$?
    [ $rc = 2 ] && grep -q -- "$want" cmd.err && [ ! -e started ] && pass "refused: $* ($want)" ||
      fail "not refused: $* (rc $rc, $(head -2 cmd.err), started: $([ -e started ] && echo yes || echo no))"
  }
  refuse "--log: " --log loud
  refuse "cannot write into '/nonexistent/dir'" --log-file /nonexistent/dir/x.log
  refuse "cannot write into '/nonexistent'" --trace=/nonexistent/t.json
  refuse "cannot write into '/nonexistent'" --summary=/nonexistent/s.json
  refuse "not a usable file name" --trace "$dir/t.%z.json"
  refuse "CUAUDIT_MEM_LIMIT" --mem-limit lots
  refuse "unknown ELF name" --fault 'cuNope=1@every:1'
  refuse "cannot find" --plugin "$dir/none.so"
  refuse "cannot find" --libcuda "$dir/none.so"
  refuse "error-exitcode" --error-exitcode 300
  refuse "an empty value" --log ""
  CUAUDIT_LOG=loud refuse "CUAUDIT_LOG=\"loud\" is not valid"
  # Nothing is refused when every value is good, and relative paths become absolute.
  rm -f started
  "$CLI" run --summary=s.json --trace t.json --log info --log-file l.log -- bash -c 'cd / && "$0"' "$BIN/driver_lazy" >/dev/null 2>&1
  [ -s "$dir/s.json" ] && [ -s "$dir/t.json" ] && [ -s "$dir/l.log" ] && pass "relative output paths are taken from the command's directory" ||
    fail "relative paths: $(ls)"
  ;;
cli_run_has_an_option_for_every_CUAUDIT_variable)
  # One line per option: the option line and its description line joined.
  "$CLI" run --help | awk '/^ +(-., )?--/ { o = $0; getline; print o " " $0; next } { print }' >help.txt || fail "run --help"
  # Every variable the module's configuration reads (the shared one, the live view's and each
  # hook's own), except what the command itself sets (the error counter and its token, the
  # session start) and the test-only knobs (CUAUDIT_TEST_*: documented as never to be set).
  vars=$(grep -ohE '"CUAUDIT_[A-Z_]+"' "$SRC"/out/config.c "$SRC"/out/liveconfig.c "$SRC"/hooks/*/*_config.c "$SRC"/audit/*.c | tr -d '"' | sort -u | grep -vxE 'CUAUDIT_(ERROR_COUNT|ERROR_COUNT_TOKEN|SESSION_START|TEST_[A-Z_]+)')
  [ -n "$vars" ] || fail "no CUAUDIT_ variable found in the configuration"
  for v in $vars; do
    grep -qE "^ +(-., )?--[a-z-]+.* $v:" help.txt && pass "$v has an option" || fail "$v has no option in run --help"
  done
  # cuaudit(1) documents every option the command has.
  for o in $(sed -nE 's/^ +(-., )?--([a-z-]+).*/\2/p' help.txt); do
    grep -qF -- "\\-\\-${o//-/\\-}" "$SRC/docs/man/cuaudit.1" && pass "cuaudit(1) documents --$o" || fail "cuaudit(1) lacks --$o"
  done
  # Each row's option really sets its variable: a child prints its environment.
  while read -r opt var; do
    val=$("$CLI" run "--$opt=x1" -- bash -c 'printf %s "${!1}"' _ "$var" 2>/dev/null)
    case $var in CUAUDIT_LOG|CUAUDIT_MEM_LIMIT|CUAUDIT_FAULT|CUAUDIT_PLUGINS|CUAUDIT_LIBCUDA|CUAUDIT_LIBCUDART|CUAUDIT_LOG_FILE|CUAUDIT_TRACE|CUAUDIT_SUMMARY|CUAUDIT_METRICS|CUAUDIT_LIVE_DIR|CUAUDIT_SHARE_DIR) continue ;; esac
    # Values the module does not know yet pass through; a module that knows them may refuse x1.
    [ "$val" = x1 ] || grep -q "$var" <("$CLI" run "--$opt=x1" -- true 2>&1) && pass "--$opt sets $var" || fail "--$opt does not set $var ('$val')"
  done < <(sed -nE 's/^ +(-., )?--([a-z-]+)[ =\[].* (CUAUDIT_[A-Z_]+):.*/\2 \3/p' help.txt)
  ;;
error_counter_of_an_ended_run_is_never_written_in_another_process)
  # Before: `cuaudit run -e` ends, a grandchild starts later, and the pid of the
  # run now belongs to another process: CUAUDIT_ERROR_COUNT=/proc/PID/fd/3 names that
  # process's own file. Here PID is such a process, holding its data file at descriptor 3.
  printf 'foreign data: 0123456789abcdef0123456789abcdef\n' >foreign.dat
  cp foreign.dat foreign.orig
  (exec 3<>foreign.dat; exec sleep 60) &
  holder=$!
  for _ in $(seq 100); do [ -e "/proc/$holder/fd/3" ] && break; sleep 0.05; done
  [ -e "/proc/$holder/fd/3" ] || fail "the holder has no descriptor 3"
  token=0123456789abcdef0123456789abcdef
  native "$BIN/driver_lazy"
  # The variables as the ended run had exported them: its path, its token.
  CUAUDIT_ERROR_COUNT=/proc/$holder/fd/3 CUAUDIT_ERROR_COUNT_TOKEN=$token CUAUDIT_LOG=warn \
    CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  same_results
  cmp -s foreign.dat foreign.orig && pass "the other process's file is untouched" ||
    fail "the other process's file was written: $(od -An -c foreign.dat | head -2)"
  expect_log 1 'CUAUDIT_ERROR_COUNT=.* is not the counter of the `cuaudit run` this process descends from' audited.err
  [ "$(grep -c . audited.err)" = 1 ] && pass "one message" || fail "messages: $(cat audited.err)"
  # Without a token the counter is not used either.
  CUAUDIT_ERROR_COUNT=/proc/$holder/fd/3 CUAUDIT_LOG=warn CUAUDIT_LOG_FILE= audited "$BIN/driver_lazy"
  same_results
  cmp -s foreign.dat foreign.orig && pass "no token: untouched" || fail "no token: the file was written"
  expect_log 1 'CUAUDIT_ERROR_COUNT_TOKEN=.* is not valid; accepted: 32 lower-case hex digits' audited.err
  kill $holder 2>/dev/null; wait $holder 2>/dev/null
  # The control: a file that holds the token is the counter, and the failed call is counted.
  "$PYTHON" -c 'import sys; open(sys.argv[1], "wb").write(bytes(8) + bytes.fromhex(sys.argv[2]))' counter.bin $token
  CUAUDIT_ERROR_COUNT=$dir/counter.bin CUAUDIT_ERROR_COUNT_TOKEN=$token CUAUDIT_LOG=warn CUAUDIT_LOG_FILE= \
    audited "$BIN/driver_lazy"
  same_results
  got=$("$PYTHON" -c 'import sys,struct; print(struct.unpack_from("<Q", open(sys.argv[1],"rb").read())[0])' counter.bin)
  [ "$got" = 1 ] && pass "the run's own counter counts the failed call" || fail "own counter holds $got, want 1"
  # And through the command: the token it makes is accepted, its counter counts.
  expect_status 7 "$CLI" run --error-exitcode 7 -- "$BIN/driver_lazy"
  grep -q '^cuaudit run: 1 CUDA call(s) failed; exit status 7$' cmd.err && pass "cuaudit run counts" || fail "count: $(cat cmd.err)"
  ;;
cli_error_exitcode_is_returned_when_a_call_failed)
  native "$BIN/runtime_shared"
  fault='cuDeviceGetAttribute=CUDA_ERROR_INVALID_VALUE@every:1'
  expect_status "$(cat native.rc)" "$CLI" run --error-exitcode 7 -- "$BIN/runtime_shared"
  cmp -s native.out cmd.out && pass "no failed call: the program's own status and output" || fail "output differs"
  # The mock's cuGetExportTable fails for the program's unknown table id: a real failed call.
  expect_status 7 "$CLI" run --error-exitcode 7 -- "$BIN/driver_lazy"
  grep -q '^cuaudit run: 1 CUDA call(s) failed; exit status 7$' cmd.err && pass "one failure counted" || fail "count: $(cat cmd.err)"
  # Fault injection adds one failure per cuDeviceGetAttribute call.
  expect_status 7 "$CLI" run -e 7 -f "$fault" "$BIN/driver_lazy"
  grep -qE '^cuaudit run: [2-9] CUDA call\(s\) failed' cmd.err && pass "injected failures counted" || fail "count: $(cat cmd.err)"
  expect_status 7 "$CLI" run --error-exitcode=7 --fault "$fault" "$BIN/driver_lazy"
  grep -q 'CUDA call(s) failed; exit status 7' cmd.err && pass "a message says why" || fail "no message: $(cat cmd.err)"
  expect_status 9 "$CLI" run -e 9 -f "$fault" --summary stderr "$BIN/driver_lazy"
  grep -qE 'cuDeviceGetAttribute' cmd.err && pass "summary still printed" || fail "no summary"
  # A failure in a child process counts, and survives the program being killed with SIGKILL;
  # the kill, not N, is the status (-e once hid a crash, and -e 0 called it success).
  expect_status 137 "$CLI" run -e 5 -f "$fault" -- bash -c '"$0" >/dev/null; kill -KILL $$' "$BIN/driver_lazy"
  grep -qE '^cuaudit run: [1-9][0-9]* CUDA call\(s\) failed; the program was killed by signal 9$' cmd.err &&
    pass "the failures are still counted and said" || fail "count: $(cat cmd.err)"
  for n in 0 7; do
    "$CLI" run -e $n -f "$fault" -- bash -c '"$0" >/dev/null; kill -SEGV $$' "$BIN/driver_lazy" >/dev/null 2>&1; rc=$?
    [ $rc = 139 ] && pass "-e $n: a crash after a failed call is 139" || fail "-e $n: a crash gave $rc, want 139"
  done
  # Without the option, the failure does not change the status.
  "$CLI" run -f "$fault" "$BIN/driver_lazy" >/dev/null 2>&1; rc=$?
  CUAUDIT_FAULT=$fault LD_AUDIT="$AUDIT" "$BIN/driver_lazy" >/dev/null 2>&1; want=$?
  [ $rc = $want ] && pass "no --error-exitcode: the program's status ($rc)" || fail "status $rc, want $want"
  # Teardown after the driver shut down (DEINITIALIZED, as nvcc programs see at exit) is no failure.
  teardown='cudaFree=cudaErrorCudartUnloading@every:1'
  CUAUDIT_FAULT=$teardown LD_AUDIT="$AUDIT" "$BIN/runtime_shared" >/dev/null 2>&1; want=$?
  expect_status "$want" "$CLI" run -e 7 -f "$teardown" "$BIN/runtime_shared"
  expect_status 7 "$CLI" run -e 7 -f 'cudaFree=cudaErrorInvalidValue@every:1' "$BIN/runtime_shared"
  # A program without CUDA keeps its status.
  expect_status 42 "$CLI" run -e 7 "$BIN/no_cuda"
  ;;
cli_run_keeps_signals_and_forwards_SIGTERM)
  # A program ended by a signal: cuaudit ends by the same signal (the shell reads 128+N).
  expect_status 143 "$CLI" run -e 7 -- bash -c 'kill -TERM $$'
  expect_status 130 "$CLI" run -e 7 -- bash -c 'kill -INT $$'
  "$CLI" run -e 7 -- bash -c 'kill -SEGV $$' >/dev/null 2>&1; rc=$?
  [ $rc = 139 ] && pass "SIGSEGV: 139" || fail "SIGSEGV: $rc"
  ls core* >/dev/null 2>&1 && fail "a core file from cuaudit itself" || pass "no core file of cuaudit's own"
  # SIGTERM sent to cuaudit (as systemd or Slurm do) reaches the program, which reports it.
  "$CLI" run -e 7 -- bash -c 'trap "echo got TERM; exit 3" TERM; touch ready; while :; do sleep 0.1; done' >term.out 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -e ready ] && break; sleep 0.1; done
  kill -TERM $pid
  wait $pid; rc=$?
  [ $rc = 3 ] && grep -q 'got TERM' term.out && pass "SIGTERM forwarded; the program's status kept" || fail "forward: rc $rc $(cat term.out)"
  ;;
cli_version_is_the_modules_and_the_packages)
  ver=$(sed -nE 's/^project\(cuaudit VERSION ([0-9.]+).*/\1/p' "$SRC/CMakeLists.txt")
  [ "$("$CLI" --version)" = "cuaudit $ver" ] && pass "--version: cuaudit $ver" || fail "--version: $("$CLI" --version)"
  CUAUDIT_LOG=info audited "$BIN/driver_lazy"
  expect_log 1 "info: cuaudit $ver, glibc [0-9.]+$"
  grep -q "^Version: $ver$" "$BUILD/cuaudit.pc" && pass "pkg-config Version $ver" || fail "cuaudit.pc version"
  for page in cuaudit.1 cuaudit.7; do
    grep -q "^\.TH .*\"cuaudit $ver\"" "$SRC/docs/man/$page" && pass "$page names $ver" || fail "$page version"
  done
  ;;
bash_completion_completes_commands_options_and_values)
  comp=$SRC/cli/cuaudit.bash-completion
  complete_words() { # the words of a command line, the last one being completed
    bash --norc --noprofile -c 'source "$1"; shift; PATH="$(dirname "$1"):$PATH"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_WORDS[0]=cuaudit; _cuaudit; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$CLI" "${@:2}"
  }
  bash -n "$comp" && pass "completion file parses" || fail "bash -n"
  got=$(complete_words cuaudit r | sort | tr '\n' ' ')
  [ "$got" = "report run " ] && pass "subcommands: $got" || fail "subcommands: '$got'"
  got=$(complete_words cuaudit run --er)
  [ "$got" = "--error-exitcode" ] && pass "run option: $got" || fail "run option: '$got'"
  got=$(complete_words cuaudit run --tr | sort | tr '\n' ' ')
  [ "$got" = "--trace --trace-exit-time --trace-max " ] && pass "option from the command's own table: $got" || fail "--tr: '$got'"
  got=$(complete_words cuaudit run --libcudar)
  [ "$got" = "--libcudart" ] && pass "an option without a short form: $got" || fail "--libcudar: '$got'"
  got=$(complete_words cuaudit run --log ver)
  [ "$got" = "verbose" ] && pass "log level value" || fail "log level: '$got'"
  got=$(complete_words cuaudit run --log=de)
  [ "$got" = "--log=debug" ] && pass "--log= value" || fail "--log=: '$got'"
  touch "$dir/summary.1.json"
  got=$(cd "$dir" && complete_words cuaudit report summ)
  [ "$got" = "summary.1.json" ] && pass "report completes summaries" || fail "report: '$got'"
  # ps, top and ctl complete the pids that have a live file, in the directory the command
  # will read: --dir on the line, else CUAUDIT_LIVE_DIR.
  mkdir -p "$dir/lv" "$dir/lv2"
  touch "$dir/lv/4242-777.live" "$dir/lv/4243-778.live" "$dir/lv/notes.txt" "$dir/lv2/5151-9.live"
  got=$(CUAUDIT_LIVE_DIR="$dir/lv" complete_words cuaudit ps "" | tr '\n' ' ')
  [ "$got" = "4242 4243 " ] && pass "ps <TAB> completes the live pids: $got" || fail "ps <TAB>: '$got'"
  got=$(CUAUDIT_LIVE_DIR="$dir/lv" complete_words cuaudit ps 4243 | tr '\n' ' ')
  [ "$got" = "4243 " ] && pass "ps 4243<TAB>: $got" || fail "ps 4243<TAB>: '$got'"
  for form in "--dir $dir/lv2" "--dir=$dir/lv2"; do
    got=$(CUAUDIT_LIVE_DIR="$dir/lv" complete_words cuaudit ps $form "" | tr '\n' ' ')
    [ "$got" = "5151 " ] && pass "ps $form <TAB> reads that directory" || fail "ps $form <TAB>: '$got'"
  done
  got=$(CUAUDIT_LIVE_DIR="$dir/lv" complete_words cuaudit ctl 42 | tr '\n' ' ')
  [ "$got" = "4242 4243 " ] && pass "ctl <TAB> completes the live pids" || fail "ctl 42<TAB>: '$got'"
  ;;
removed_module_message_is_the_one_the_docs_quote)
  # After the package is removed a copied drop-in names a module that is gone: ld.so prints
  # one line per process, which docs/deploy.md quotes so that a search finds the cause.
  LD_AUDIT=$dir/gone/libcuaudit.so /bin/true 2>err.txt; rc=$?
  [ $rc = 0 ] && pass "the program still runs (status 0)" || fail "status $rc"
  msg=$(sed "s#$dir/gone/libcuaudit.so#$MODULE_PATH#" err.txt)
  [ -n "$msg" ] && grep -qxF "$msg" "$SRC/docs/deploy.md" && pass "docs/deploy.md quotes ld.so's line" || fail "not in docs/deploy.md: $msg"
  zcat -f "$SRC/docs/man/cuaudit.7" | grep -q "cannot be loaded as audit interface" && pass "cuaudit(7) names it" || fail "cuaudit(7)"
  for f in cuaudit.conf.in cuaudit.env.in; do
    grep -q "^#.*removing the package" "$SRC/examples/systemd/$f" && grep -q "^#.*cannot be loaded as audit interface" "$SRC/examples/systemd/$f" &&
      pass "$f says to delete a copy after removal" || fail "$f: no removal note"
  done
  ;;
deb_removal_names_the_copied_drop_ins_left_behind)
  # After removal a copied drop-in makes every process print ld.so's line: the package's
  # postrm names the copies (in dpkg's root, DPKG_ROOT), and says nothing when none is left.
  build_deb
  mkdir -p ctl && dpkg-deb -e "$deb" ctl || fail "dpkg-deb -e"
  [ -x ctl/postrm ] && pass "the package has a postrm" || { fail "no postrm: $(ls ctl)"; finish; }
  mkdir -p sysroot/etc/systemd/system/svc.service.d sysroot/etc/environment.d sysroot/etc/systemd/system/other.service.d
  cp "$root/usr/share/cuaudit/examples/systemd/cuaudit.conf" sysroot/etc/systemd/system/svc.service.d/
  cp "$root/usr/share/cuaudit/examples/environment.d/50-cuaudit.conf" sysroot/etc/environment.d/
  echo '[Service]' >sysroot/etc/systemd/system/other.service.d/mine.conf
  DPKG_ROOT="$dir/sysroot" sh ctl/postrm remove >rm.out 2>rm.err; rc=$?
  [ $rc = 0 ] && [ ! -s rm.out ] && pass "postrm remove: status 0" || fail "postrm: $rc $(cat rm.out rm.err)"
  grep -qx "cuaudit:   $dir/sysroot/etc/systemd/system/svc.service.d/cuaudit.conf" rm.err &&
    grep -qx "cuaudit:   $dir/sysroot/etc/environment.d/50-cuaudit.conf" rm.err && ! grep -q mine.conf rm.err &&
    grep -q 'cannot be loaded as audit interface' rm.err && pass "postrm names both copies: $(head -1 rm.err)" || fail "postrm: $(cat rm.err)"
  rm -r sysroot/etc/systemd/system/svc.service.d sysroot/etc/environment.d
  DPKG_ROOT="$dir/sysroot" sh ctl/postrm purge >rm2.out 2>rm2.err; rc=$?
  [ $rc = 0 ] && [ ! -s rm2.err ] && pass "no copy left: postrm says nothing" || fail "postrm without copies: $rc $(cat rm2.err)"
  DPKG_ROOT="$dir/sysroot" sh ctl/postrm upgrade >rm3.out 2>rm3.err; rc=$?
  [ $rc = 0 ] && [ ! -s rm3.err ] && pass "postrm upgrade: nothing" || fail "postrm upgrade: $rc"
  ;;
install_writes_the_examples_0644_from_a_group_writable_source)
  # A release tarball unpacked under umask 002 has 0664 sources; the examples written at
  # install time took that mode (lintian: non-standard-file-perm). The build's own install
  # script, run on a copy of the example sources made 0664.
  mkdir -p src664 && cp "$SRC"/examples/systemd/cuaudit.conf.in "$SRC"/examples/systemd/cuaudit.env.in src664/ &&
    chmod 0664 src664/*
  sed "s#$SRC/examples/systemd/#$dir/src664/#g" "$BUILD/cmake_install.cmake" >install.cmake
  grep -q "$dir/src664/cuaudit.conf.in" install.cmake && pass "the install script reads the copies" || fail "install script: no example source path"
  (cd "$BUILD" && DESTDIR="$dir/stage" "$CMAKE" -DCMAKE_INSTALL_PREFIX=/usr -P "$dir/install.cmake") >install.txt 2>&1 ||
    fail "install: $(tail -3 install.txt)"
  for f in usr/share/cuaudit/examples/systemd/cuaudit.conf usr/share/cuaudit/examples/environment.d/50-cuaudit.conf; do
    m=$(stat -c %a "$dir/stage/$f" 2>&1)
    [ "$m" = 644 ] && pass "$f: mode 644" || fail "$f: mode $m"
  done
  bad=$(find "$dir/stage" -type f ! -perm 0644 ! -perm 0755 -printf '%m %P\n' | head -5)
  [ -z "$bad" ] && pass "every installed file is 0644 or 0755" || fail "modes: $bad"
  ;;
*) fail "unknown case $name" ;;
esac
finish
