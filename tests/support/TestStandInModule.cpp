// A stand-in capture module for the loader tests: it needs a library of its
// own (TestNeededLibrary.cpp) and exports the module's entry point, but was
// built "from other sources", so it refuses every app (returns no backend).
namespace fuselab {
class CaptureBackend;
}

extern "C" int fuselab_test_needed_library();

extern "C" fuselab::CaptureBackend* fuselab_capture_module(int abi, const char* fuselab_version) {
  (void)abi, (void)fuselab_version;
  (void)fuselab_test_needed_library();  // a real use, so the linker keeps the dependency
  return nullptr;
}
