# The layers of ../shared/DESIGN.md, enforced where the build can see them:
# fuselab_check_layering() fails the configure step when a torch-free target
# (everything but capture, the kernels and the capture module) links (even
# indirectly) capture, the kernels or LibTorch/CUDA/CUPTI.
# tests/layering/CheckIncludes.cmake does the same for #include lines.

# Every library `target` links, directly or through others.
function(_fuselab_transitive_links target out_var)
  set(seen "")
  set(todo ${target})
  while(todo)
    list(POP_FRONT todo current)
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${current} ${property})
      if(NOT libs)
        continue()
      endif()
      foreach(lib IN LISTS libs)
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" lib "${lib}")
        if(lib STREQUAL "" OR lib IN_LIST seen)
          continue()
        endif()
        list(APPEND seen ${lib})
        if(TARGET ${lib})
          list(APPEND todo ${lib})
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out_var} ${seen} PARENT_SCOPE)
endfunction()

# Fails when `target` links anything matching one of the regular expressions.
function(fuselab_forbid_links target)
  if(NOT TARGET ${target})
    return()
  endif()
  _fuselab_transitive_links(${target} links)
  foreach(pattern IN LISTS ARGN)
    foreach(lib IN LISTS links)
      if(lib MATCHES "${pattern}")
        message(FATAL_ERROR "layering: ${target} must not link ${lib} (matches '${pattern}'); see ../shared/DESIGN.md")
      endif()
    endforeach()
  endforeach()
endfunction()

function(fuselab_check_layering)
  set(live "^fuselab_(capture|kernels|capture_module)$" "^torch" "^c10" "^CUDA::" "libtorch" "libc10" "cupti" "cudart")
  # The app and the executable too: capture reaches them only as the module
  # they open at run time (app/capture/CaptureModule.cpp).
  foreach(torch_free fuselab_trace fuselab_analysis fuselab_capture_api fuselab_ui_layout fuselab_ui fuselab_app fuselab)
    fuselab_forbid_links(${torch_free} ${live})
  endforeach()
  # The trace layer stands alone: no analysis, no capture interface.
  fuselab_forbid_links(fuselab_trace "^fuselab_(analysis|capture_api|ui.*|app)$")
  fuselab_forbid_links(fuselab_analysis "^fuselab_(capture_api|ui.*|app)$")
endfunction()
