# SPDX-License-Identifier: MIT
# scripts/gpu-lib.sh: the build step a GPU check script shares (sourced): only the targets it needs, the tests and the benchmark off, every core, Zydis from zydis-debs/ where the machine has none.
# gpu_build ROOT BUILD_DIR LOG TARGET...: configures ROOT in BUILD_DIR with BUILD_TESTING=OFF
#   and CUAUDIT_BUILD_BENCH=OFF (no nvcc detection), builds only the TARGETs (e.g. cuaudit:
#   libcuaudit.so; cuaudit_cli: the command) with -j$(nproc), and appends "build: N s" to LOG.
#   Returns cmake's status. A build directory kept from an earlier call is reused (only what
#   changed is rebuilt).
gpu_build() {
  # nproc counts OMP_NUM_THREADS (a check script sets it to 1 for its workers): not here.
  local root=$1 b=$2 log=$3 t0=$SECONDS d jobs
  jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
  shift 3
  local -a zydis_args=()
  if [ ! -f /usr/include/Zydis/Zydis.h ] && ls "$root"/zydis-debs/*.deb >/dev/null 2>&1; then
    mkdir -p "$b"
    for d in "$root"/zydis-debs/*.deb; do dpkg -x "$d" "$b/zydis"; done
    zydis_args=(-DZYDIS_INCLUDE_DIR="$b/zydis/usr/include"
      -DZYDIS_LIBRARY="$(ls "$b"/zydis/usr/lib/*/libZydis.so.4* | head -1)")
  fi
  cmake -S "$root" -B "$b" -DBUILD_TESTING=OFF -DCUAUDIT_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${zydis_args[@]}" >>"$log" 2>&1 &&
    cmake --build "$b" -j"$jobs" --target "$@" >>"$log" 2>&1 || return 1
  echo "build: $((SECONDS - t0)) s (targets: $*; -j$jobs)" >>"$log"
}
