"""The `fuselab` console command: checks what the executable needs, then
replaces itself with it (arguments, exit code and signals are the
executable's own)."""
from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXECUTABLE = HERE / "bin" / "fuselab"
BUILT_FOR_TORCH = HERE / "lib" / "fuselab" / "torch_version.txt"

# Debian and Ubuntu packages of the libraries the executable links, for the
# message when one is missing (others: the package that provides it).
PACKAGES = {
    "libglfw.so.3": "libglfw3",
    "libsimdjson.so": "libsimdjson14 (Debian 12) or libsimdjson19 (Ubuntu 24.04)",
    "libisal.so.2": "libisal2",
    "libpng16.so.16": "libpng16-16",
    "libfreetype.so.6": "libfreetype6",
    "libstb.so.0": "libstb0",
}


def missing_libraries() -> list[str]:
    """The shared libraries the dynamic loader cannot find for the executable."""
    try:
        out = subprocess.run(["ldd", str(EXECUTABLE)], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []  # no ldd: the loader itself will say
    return [line.split()[0] for line in out.splitlines() if "not found" in line]


def package_of(library: str) -> str:
    for prefix, package in PACKAGES.items():
        if library.startswith(prefix):
            return package
    return "the package that provides " + library


def torch_warning() -> str | None:
    """Why capture may not load with this environment's torch, if it may not."""
    try:
        built = BUILT_FOR_TORCH.read_text().strip()
    except OSError:
        return None
    try:
        installed = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return f"torch is not installed: traces open, but capture needs torch {built}"
    if installed.split("+")[0] != built.split("+")[0]:
        return (f"this fuselab was built for torch {built} and this environment has torch {installed}: "
                f"capture may not load (install torch {built}, or a fuselab wheel built for {installed})")
    return None


def main() -> int:
    if not EXECUTABLE.is_file():
        print(f"fuselab: the executable is missing from the installed package ({EXECUTABLE}); reinstall fuselab",
              file=sys.stderr)
        return 1
    missing = missing_libraries()
    if missing:
        print("fuselab: these system libraries are missing: " + ", ".join(missing), file=sys.stderr)
        for library in missing:
            print(f"  {library}: apt install {package_of(library)}", file=sys.stderr)
        return 1
    warning = torch_warning()
    if warning:
        print("fuselab: warning: " + warning, file=sys.stderr)
    os.execv(EXECUTABLE, [str(EXECUTABLE), *sys.argv[1:]])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
