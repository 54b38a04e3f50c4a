# Shared by scripts/*: paths, pinned versions, the build step.
VENV="${FUSELAB_VENV:-$ROOT/.venv}"
BUILD_DIR="${FUSELAB_BUILD_DIR:-$ROOT/build}"
TORCH_VERSION=2.11.0
GLAD2_VERSION=2.0.8
HTA_VERSION=0.5.0
PSUTIL_VERSION=7.2.2
PANDAS_VERSION=2.2.3
SCIKIT_BUILD_CORE_VERSION=1.1.2  # builds the wheel (scripts/package)

say() { printf '[fuselab] %s\n' "$*"; }

# ccache keys relative to the checkout, so that a clone in another folder
# (CI's) reuses what a build here compiled: paths under ROOT are rewritten
# relative, and the build folder is left out of the hash (debug info then
# names the folder of the build that filled the cache).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# The precompiled headers (scripts/cmake/FuselabPch.cmake): without these
# ccache compiles every file that uses one instead of caching it.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"

# Configures (once) and builds. Usage: build_fuselab [DIR [CMAKE_ARGS...]];
# DIR defaults to $BUILD_DIR, the arguments go to the first configure.
build_fuselab() {
  local dir="${1:-$BUILD_DIR}"
  [ $# -gt 0 ] && shift
  local gen=() launcher=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$dir" "${gen[@]}" "${launcher[@]}" \
      -DFUSELAB_PYTHON="$VENV/bin/python" "$@"
  fi
  cmake --build "$dir" -j "$(nproc)"
}

# The sanitizer build (scripts/test, scripts/fuzz): the viewer alone (no
# LibTorch, CUDA or CUPTI) with clang, AddressSanitizer + UndefinedBehavior-
# Sanitizer and libFuzzer's coverage hooks; its importer fuzz target too.
SANITIZE_DIR="${FUSELAB_SANITIZE_DIR:-$ROOT/build-sanitize}"
build_sanitized() {
  CC=clang CXX=clang++ build_fuselab "$SANITIZE_DIR" -DFUSELAB_VIEWER_ONLY=ON \
    -DFUSELAB_SANITIZE=ON -DFUSELAB_BENCH=OFF
}

# Runs ctest in DIR, under Xvfb where there is no display (the GUI tests).
# A test that hangs fails after 10 minutes instead of holding up the run.
run_ctest() {
  local dir="$1"
  shift
  local runner=()
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    runner=(xvfb-run -a -s "-screen 0 1920x1080x24")
  fi
  (cd "$dir" && "${runner[@]}" ctest --output-on-failure --timeout 600 -j "$(nproc)" "$@")
}
