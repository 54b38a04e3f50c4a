// A library the stand-in capture module needs (tests/CMakeLists.txt): what
// LibTorch is to the real module.
extern "C" int fuselab_test_needed_library() { return 7; }
