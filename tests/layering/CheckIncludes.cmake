# ctest "layering_includes": every project #include must point down the layers
# of ../shared/DESIGN.md. Run as: cmake -DROOT=<source dir> -P CheckIncludes.cmake
# Rules: folder -> the project folders (with their sub-folders) its sources
# may include. Nothing outside app/live/ includes app/live/.
cmake_policy(VERSION 3.25)
set(rules
  "profiling/trace=profiling/trace"
  "profiling/analysis=profiling/trace|profiling/analysis"
  "profiling/capture_api=profiling/trace|profiling/capture_api"
  "profiling/capture=profiling/trace|profiling/capture_api|profiling/capture"
  "kernels=kernels|profiling/capture_api"
  "ui=ui|profiling/trace|profiling/analysis|profiling/capture_api"
  "app/live=app/live|kernels|profiling/trace|profiling/capture_api|profiling/capture"
  "app=app|ui|profiling/trace|profiling/analysis|profiling/capture_api")

# The only folders that may include LibTorch, CUDA or CUPTI headers.
set(live_folders kernels profiling/capture app/live)

set(violations "")
foreach(rule IN LISTS rules)
  string(REPLACE "=" ";" parts "${rule}")
  list(GET parts 0 folder)
  list(GET parts 1 allowed)
  file(GLOB_RECURSE sources "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.cu" "${ROOT}/${folder}/*.cuh")
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH rel "${ROOT}" "${source}")
    # A file is judged by the most specific rule (app/live/ before app/).
    if(folder STREQUAL "app" AND rel MATCHES "^app/live/")
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
