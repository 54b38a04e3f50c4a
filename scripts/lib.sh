# Shared by scripts/*: paths, pinned versions, the build step.
VENV="${FUSELAB_VENV:-$ROOT/.venv}"
BUILD_DIR="${FUSELAB_BUILD_DIR:-$ROOT/build}"
TORCH_VERSION=2.11.0
GLAD2_VERSION=2.0.8
HTA_VERSION=0.5.0
PSUTIL_VERSION=7.2.2

say() { printf '[fuselab] %s\n' "$*"; }

# Configures (once) and builds. Extra arguments go to the first configure.
build_fuselab() {
  local gen=() launcher=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" "${launcher[@]}" \
      -DFUSELAB_PYTHON="$VENV/bin/python" "$@"
  fi
  cmake --build "$BUILD_DIR" -j "$(nproc)"
}
