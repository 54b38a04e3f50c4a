# Install layout and packages (README "Install").
#   bin/fuselab                       the viewer and every command   (component viewer)
#   share/fuselab/assets/             the tutorial presets          (viewer)
#   share/applications/fuselab.desktop                              (viewer)
#   lib/fuselab/libfuselab_capture_module.so  live capture          (capture)
#   lib/fuselab/torch_version.txt     the torch it was built with   (capture)
# The executable finds the assets and the module relative to itself
# (app/AssetPaths.cpp, app/capture/CaptureModule.cpp).
# `cpack` makes fuselab-viewer_VERSION_ARCH.deb: the viewer component alone,
# its library dependencies as Debian package names (dpkg-shlibdeps).
install(FILES ${CMAKE_CURRENT_LIST_DIR}/fuselab.desktop DESTINATION share/applications COMPONENT viewer)

# The Python wheel (scripts/package, app/packaging/wheel/) carries the
# libraries few systems have, in lib/ beside the executable's folder; the
# rest (GL, X11, libpng, FreeType) its launcher checks at start-up.
if(FUSELAB_WHEEL)
  set_target_properties(fuselab PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
  install(CODE "
    file(GET_RUNTIME_DEPENDENCIES EXECUTABLES \"$<TARGET_FILE:fuselab>\"
         RESOLVED_DEPENDENCIES_VAR _deps UNRESOLVED_DEPENDENCIES_VAR _unresolved
         PRE_INCLUDE_REGEXES \"simdjson|isal|glfw|stb|imgui\" PRE_EXCLUDE_REGEXES \".*\")
    file(MAKE_DIRECTORY \"\${CMAKE_INSTALL_PREFIX}/lib\")
    foreach(_dep \${_deps})  # one file per library, under the name the loader asks for (a wheel holds no links)
      file(REAL_PATH \${_dep} _real)
      get_filename_component(_name \${_dep} NAME)
      file(COPY_FILE \${_real} \"\${CMAKE_INSTALL_PREFIX}/lib/\${_name}\")
    endforeach()" COMPONENT viewer)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fuselab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "fuselab developers <fuselab@invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL viewer)
set(CPACK_DEBIAN_VIEWER_PACKAGE_NAME fuselab-viewer)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_VIEWER_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded at run time by glad, so not found by dpkg-shlibdeps: the window's GL,
# and EGL with Mesa's software renderer for screenshots without a display.
set(CPACK_DEBIAN_VIEWER_PACKAGE_DEPENDS "libgl1, libegl1, libegl-mesa0, libgl1-mesa-dri")
set(CPACK_COMPONENT_VIEWER_DESCRIPTION
    "GPU trace viewer for PyTorch profiles\n fuselab opens torch.profiler (Kineto) traces and runs of several ranks:\n CPU and GPU side by side, the GPU's idle gaps explained, the critical path\n of each step, a roofline, and comparisons. Without torch or CUDA: live\n capture comes with the Python wheel.")
include(CPack)
