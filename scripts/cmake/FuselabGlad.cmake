# glad is generated at configure time by the glad2 Python package (OpenGL 3.3
# core, and EGL 1.5 with its loader, which opens libEGL at run time for
# rendering without a display); the output lives in the build tree only.
set(_glad_dir ${CMAKE_BINARY_DIR}/glad)
if(NOT EXISTS ${_glad_dir}/src/egl.c)
  execute_process(
    COMMAND ${FUSELAB_PYTHON} -m glad --reproducible --api gl:core=3.3,egl=1.5 --out-path ${_glad_dir} c --loader
    RESULT_VARIABLE _glad_rc OUTPUT_VARIABLE _glad_out ERROR_VARIABLE _glad_err)
  if(NOT _glad_rc EQUAL 0)
    message(FATAL_ERROR "glad generation failed (is glad2 installed for ${FUSELAB_PYTHON}? run scripts/setup):\n${_glad_err}")
  endif()
endif()
add_library(fuselab_glad STATIC ${_glad_dir}/src/gl.c ${_glad_dir}/src/egl.c)
target_link_libraries(fuselab_glad PUBLIC ${CMAKE_DL_LIBS})
target_include_directories(fuselab_glad PUBLIC ${_glad_dir}/include)
set_target_properties(fuselab_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
