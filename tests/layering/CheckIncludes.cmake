# ctest "layering_includes": every project #include must point down the layers
# of ../shared/DESIGN.md, and inside profiling/analysis/ down its concerns
# (docs/building.md). Run as: cmake -DROOT=<source dir> -P CheckIncludes.cmake
# Rules: folder -> the project folders (with their sub-folders) its sources
# may include; a file is judged by the most specific folder that has a rule
# (app/live/ before app/). Nothing outside app/live/ includes app/live/.
cmake_policy(VERSION 3.25)
set(rules
  "profiling/trace=profiling/trace"
  "profiling/capture_api=profiling/trace|profiling/capture_api"
  "profiling/capture=profiling/trace|profiling/capture_api|profiling/capture"
  "profiling/nccl_profiler=profiling/nccl_profiler|profiling/trace"
  "kernels=kernels|profiling/capture_api"
  "ui=ui|profiling/trace|profiling/analysis|profiling/capture_api"
  "app/live=app/live|kernels|profiling/trace|profiling/capture_api|profiling/capture"
  "app=app|ui|profiling/trace|profiling/analysis|profiling/capture_api")

# profiling/analysis/ is one library whose sub-folders are concerns, listed
# bottom-up: each may include the trace layer, itself and the concerns it
# names, which must come before it in this list (so there is no cycle).
# memory/ and stacks/ are the homes of memory and flame-graph analysis.
set(analysis_concerns
  "common="
  "collectives=common"
  "work=common|collectives"
  "memory=common"
  "single=common|collectives|work|memory"
  "stacks=common|single"
  "critical_path=common|collectives|single"
  "run=common|collectives|work|single|critical_path"
  "expectations=common|collectives|work|memory|single|stacks|critical_path|run"
  "compare=common|single|stacks")

# The only folders that may include LibTorch, CUDA or CUPTI headers.
set(live_folders kernels profiling/capture app/live)

set(violations "")
set(concerns_so_far "")
foreach(entry IN LISTS analysis_concerns)
  string(REPLACE "=" ";" parts "${entry}")
  list(GET parts 0 concern)
  list(LENGTH parts n)
  set(below "")
  if(n GREATER 1)
    list(GET parts 1 below)
  endif()
  string(REPLACE "|" ";" below_list "${below}")
  foreach(b IN LISTS below_list)
    if(NOT b IN_LIST concerns_so_far)
      list(APPEND violations "rule for analysis/${concern}: ${b} is not a concern listed before it")
    endif()
  endforeach()
  list(APPEND concerns_so_far ${concern})
  if(below)
    set(below "|${below}")
  endif()
  list(APPEND rules "profiling/analysis/${concern}=profiling/trace|profiling/analysis/(${concern}${below})")
endforeach()

# Every analysis source lives in a concern's folder.
file(GLOB analysis_entries RELATIVE "${ROOT}/profiling/analysis" "${ROOT}/profiling/analysis/*")
foreach(entry IN LISTS analysis_entries)
  if(IS_DIRECTORY "${ROOT}/profiling/analysis/${entry}")
    if(NOT entry IN_LIST concerns_so_far)
      list(APPEND violations "profiling/analysis/${entry}/ is not a concern of this check's list")
    endif()
  elseif(NOT entry STREQUAL "CMakeLists.txt")
    list(APPEND violations "profiling/analysis/${entry}: outside the concern folders")
  endif()
endforeach()

set(rule_folders "")
foreach(rule IN LISTS rules)
  string(REGEX REPLACE "=.*" "" folder "${rule}")
  list(APPEND rule_folders "${folder}")
endforeach()

foreach(rule IN LISTS rules)
  string(REGEX REPLACE "=.*" "" folder "${rule}")
  string(REGEX REPLACE "^[^=]*=" "" allowed "${rule}")
  file(GLOB_RECURSE sources "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.cu" "${ROOT}/${folder}/*.cuh")
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH rel "${ROOT}" "${source}")
    set(more_specific FALSE)
    foreach(other IN LISTS rule_folders)
      string(LENGTH "${other}" other_len)
      string(LENGTH "${folder}" folder_len)
      if(other_len GREATER folder_len AND rel MATCHES "^${other}/")
        set(more_specific TRUE)
      endif()
    endforeach()
    if(more_specific)
      continue()
    endif()
    file(STRINGS "${source}" includes REGEX "^#include \"(app|ui|kernels|profiling)/")
    # LibTorch, CUDA and CUPTI only where the rule allows capture.
    if(NOT folder IN_LIST live_folders)
      file(STRINGS "${source}" live_includes REGEX "^#include <(ATen|torch|c10|cuda|cupti)")
      foreach(line IN LISTS live_includes)
        list(APPEND violations "${rel}: ${line} (LibTorch/CUDA/CUPTI outside capture and kernels)")
      endforeach()
    endif()
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
      if(NOT header MATCHES "^(${allowed})/" OR (header MATCHES "^app/live/" AND NOT rel MATCHES "^app/live/"))
        list(APPEND violations "${rel} includes ${header}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "includes that go against the layers:\n  ${text}")
endif()
message(STATUS "layering: every include goes down the layers")
