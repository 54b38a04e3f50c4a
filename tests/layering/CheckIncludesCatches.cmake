# ctest "layering_includes_catches": CheckIncludes.cmake fails, naming each
# one, on a small tree with an include up the analysis concerns, a source
# outside the concern folders and a folder no rule knows.
# Run as: cmake -DCHECK=<CheckIncludes.cmake> -DSCRATCH=<empty folder> -P CheckIncludesCatches.cmake
cmake_policy(VERSION 3.25)
file(REMOVE_RECURSE "${SCRATCH}")
file(WRITE "${SCRATCH}/profiling/analysis/work/Up.h" "#include \"profiling/analysis/run/RunView.h\"\n")
file(WRITE "${SCRATCH}/profiling/analysis/run/Down.h" "#include \"profiling/analysis/work/OpWork.h\"\n")
file(WRITE "${SCRATCH}/profiling/analysis/Stray.cpp" "\n")
file(WRITE "${SCRATCH}/profiling/analysis/misc/Unknown.h" "\n")
file(WRITE "${SCRATCH}/profiling/trace/Up.h" "#include \"profiling/analysis/single/Analysis.h\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${SCRATCH} -P ${CHECK}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(expected
  "profiling/analysis/work/Up.h includes profiling/analysis/run/RunView.h"
  "profiling/analysis/Stray.cpp: outside the concern folders"
  "profiling/analysis/misc/ is not a concern"
  "profiling/trace/Up.h includes profiling/analysis/single/Analysis.h")
if(rc EQUAL 0)
  message(FATAL_ERROR "the check passed a tree with violations:\n${out}${err}")
endif()
foreach(line IN LISTS expected)
  string(FIND "${err}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the check did not name \"${line}\":\n${err}")
  endif()
endforeach()
string(FIND "${err}" "run/Down.h" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "the check flagged an include down the concerns:\n${err}")
endif()
message(STATUS "layering check names every planted violation")
