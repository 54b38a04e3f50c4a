# Finds every dependency fuselab builds against. scripts/setup installs them;
# this file only looks.

if(FUSELAB_PREFIX)
  list(PREPEND CMAKE_PREFIX_PATH ${FUSELAB_PREFIX} ${FUSELAB_PREFIX}/usr)
endif()

# --- Python with torch (and glad2): LibTorch comes from the torch package ------
if(NOT FUSELAB_PYTHON)
  if(EXISTS ${CMAKE_SOURCE_DIR}/.venv/bin/python)
    set(FUSELAB_PYTHON ${CMAKE_SOURCE_DIR}/.venv/bin/python)
  else()
    find_program(FUSELAB_PYTHON_FOUND python3 REQUIRED)
    set(FUSELAB_PYTHON ${FUSELAB_PYTHON_FOUND})
  endif()
endif()
# --- LibTorch, CUDA and CUPTI: for capture only ------------------------------
# A viewer-only build (FUSELAB_VIEWER_ONLY) looks for none of them; it asks
# the python above only for glad2.
set(FUSELAB_HAVE_CUDA OFF)
set(FUSELAB_HAVE_CUPTI OFF)
if(NOT FUSELAB_VIEWER_ONLY)
  if(NOT Torch_DIR)
    execute_process(
      COMMAND ${FUSELAB_PYTHON} -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
      OUTPUT_VARIABLE _torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _torch_rc ERROR_QUIET)
    if(_torch_rc EQUAL 0)
      list(APPEND CMAKE_PREFIX_PATH ${_torch_prefix})
    else()
      message(FATAL_ERROR "No torch found for ${FUSELAB_PYTHON}. Run scripts/setup, or pass "
                          "-DTorch_DIR=<libtorch>/share/cmake/Torch for a downloaded LibTorch.")
    endif()
  endif()

  # CUDA + CUPTI (optional)
  if(NOT FUSELAB_CUDA STREQUAL "OFF")
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
      endif()
      enable_language(CUDA)
      set(CMAKE_CUDA_STANDARD 17)
      set(CMAKE_CUDA_STANDARD_REQUIRED ON)
      find_package(CUDAToolkit REQUIRED)
      set(FUSELAB_HAVE_CUDA ON)
      if(TARGET CUDA::cupti)
        set(FUSELAB_HAVE_CUPTI ON)
      endif()
    elseif(FUSELAB_CUDA STREQUAL "ON")
      message(FATAL_ERROR "FUSELAB_CUDA=ON but no CUDA compiler was found")
    else()
      message(STATUS "fuselab: no CUDA toolkit found, building CPU-only (no own kernels, no CUPTI capture)")
    endif()
  endif()

  # Name the architectures so torch's config does not probe for a GPU.
  if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(ENV{TORCH_CUDA_ARCH_LIST} "8.0;9.0+PTX")
  endif()
  find_package(Torch REQUIRED)
  # torch's config adds its flags (CXX11 ABI) through TORCH_CXX_FLAGS.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:${TORCH_CXX_FLAGS}>)
endif()

# --- Libraries from Debian packages ------------------------------------------
find_package(simdjson REQUIRED)
find_package(nlohmann_json REQUIRED)  # writing JSON (analysis --json, settings, presets)
find_package(ZLIB REQUIRED)  # writing .json.gz
# ISA-L (libisal-dev) inflates .json.gz 2-3x as fast as zlib; it ships no CMake config.
find_path(ISAL_INCLUDE_DIR isa-l/igzip_lib.h REQUIRED)
find_library(ISAL_LIBRARY isal REQUIRED)
add_library(ISAL::ISAL UNKNOWN IMPORTED)
set_target_properties(ISAL::ISAL PROPERTIES IMPORTED_LOCATION ${ISAL_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES ${ISAL_INCLUDE_DIR})
find_package(PNG REQUIRED)
find_package(Threads REQUIRED)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)

set(FUSELAB_GUI_ENABLED OFF)
if(FUSELAB_GUI)
  find_package(glfw3 REQUIRED)
  find_package(OpenGL REQUIRED)
  find_package(Freetype REQUIRED)
  find_path(IMGUI_INCLUDE_DIR imgui.h PATH_SUFFIXES imgui REQUIRED)
  find_library(IMGUI_LIBRARY imgui REQUIRED)
  # Debian's libimgui.a builds its font atlas with stb_truetype/stb_rect_pack from libstb (libstb-dev).
  find_library(STB_LIBRARY stb REQUIRED)
  add_library(fuselab_imgui INTERFACE)
  target_include_directories(fuselab_imgui INTERFACE ${IMGUI_INCLUDE_DIR} ${IMGUI_INCLUDE_DIR}/backends)
  target_link_libraries(fuselab_imgui INTERFACE ${IMGUI_LIBRARY} ${STB_LIBRARY} Freetype::Freetype ${CMAKE_DL_LIBS})
  include(FuselabGlad)
  set(FUSELAB_GUI_ENABLED ON)
endif()

if(FUSELAB_TESTS)
  find_package(GTest REQUIRED)
endif()
if(FUSELAB_BENCH)
  find_package(benchmark REQUIRED)
endif()
