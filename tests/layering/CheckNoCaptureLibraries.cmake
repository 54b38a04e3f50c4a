# ctest "fuselab_links_no_capture_libraries": the fuselab executable must
# not need LibTorch, CUDA or CUPTI (capture is the module it opens at run
# time, app/capture/CaptureModule.h). Run as: cmake -DEXE=<fuselab> -P CheckNoCaptureLibraries.cmake
cmake_policy(VERSION 3.25)
execute_process(COMMAND ldd "${EXE}" OUTPUT_VARIABLE libraries RESULT_VARIABLE rc ERROR_VARIABLE error)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ldd ${EXE} failed: ${error}")
endif()
# Load addresses such as (0x00007fee206c1000) can spell "c10": drop them.
string(REGEX REPLACE "\\(0x[0-9a-fA-F]+\\)" "" libraries "${libraries}")
string(REGEX MATCHALL "[^\n\t ]*(torch|c10|cuda|cupti|cublas|cudnn|nccl)[^\n\t ]*" found "${libraries}")
if(found)
  list(REMOVE_DUPLICATES found)
  list(JOIN found "\n  " text)
  message(FATAL_ERROR "${EXE} needs capture's libraries:\n  ${text}")
endif()
message(STATUS "${EXE} needs no LibTorch, CUDA or CUPTI")
