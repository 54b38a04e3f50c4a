# Precompiled headers: the heavy headers that most files of a target include
# (the standard library's, nlohmann-json, GoogleTest, CLI11) are compiled
# once per group of targets instead of once per file. With ccache this needs
# its pch sloppiness (scripts/lib.sh sets it).
option(FUSELAB_PCH "Precompile the common third-party headers of the tests and the app" ON)

set(FUSELAB_PCH_STD <algorithm> <chrono> <cstdint> <filesystem> <fstream> <functional> <map> <memory>
    <optional> <sstream> <string> <string_view> <unordered_map> <vector>)

# fuselab_precompile(TARGET GROUP HEADER...): the first target of GROUP
# compiles the headers, the others of the group reuse its result, so the
# targets of one group must be compiled with the same flags.
function(fuselab_precompile target group)
  if(NOT FUSELAB_PCH)
    return()
  endif()
  # clang writes the headers' times into a PCH: every fresh build dir would
  # then make a new one, and ccache miss every file that uses it.
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:Clang>:SHELL:-Xclang -fno-pch-timestamp>)
  get_property(first GLOBAL PROPERTY FUSELAB_PCH_${group})
  if(first)
    target_precompile_headers(${target} REUSE_FROM ${first})
  else()
    target_precompile_headers(${target} PRIVATE ${ARGN})
    set_property(GLOBAL PROPERTY FUSELAB_PCH_${group} ${target})
  endif()
endfunction()
