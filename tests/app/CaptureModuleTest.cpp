// The capture module seen from the app (app/capture/CaptureModule.h): trace commands
// never open it (so never load LibTorch, CUDA or CUPTI), a capture without it
// says what is missing, and the loader names the file and the dynamic
// loader's message. This suite links nothing of capture; tests/app/capture/
// loads the real module.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "app/capture/CaptureModule.h"
#include "tests/app/CliRun.h"
#include "tests/support/TestPaths.h"

// The stand-in module built beside this suite (tests/CMakeLists.txt generates it).
const char* standInModulePath();

namespace fuselab {
namespace {

using test::CliRun;
using test::runFuselab;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kMlp = test::fixture("mlp_eager.json.gz").string();
const std::string kLinear = test::fixture("linear_eager.json.gz").string();

// The shared libraries this process has mapped.
std::string mappedFiles() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string captureMessage(const std::filesystem::path& module) {
  try {
    openCaptureModule(module);
  } catch (const CaptureUnavailable& e) {
    return e.what();
  }
  return "(no CaptureUnavailable)";
}

TEST(CaptureModule, TraceCommandsNeverOpenItNorLoadLibTorch) {
  const auto dir = test::scratchDir("CaptureModule.TraceCommands");
  EXPECT_EQ(runFuselab({"analyze", kMlp}).exit_code, 0);
  EXPECT_EQ(runFuselab({"analyze", kMlp, "--json"}).exit_code, 0);
  EXPECT_EQ(runFuselab({"export", kMlp, (dir / "out.json").string()}).exit_code, 0);
  EXPECT_EQ(runFuselab({"compare", kMlp, kLinear}).exit_code, 0);
  CliRun tutorial = runFuselab({"tutorial", "--step", "9", "--trace", kMlp});
  EXPECT_EQ(tutorial.exit_code, 0) << tutorial.err;
  EXPECT_EQ(runFuselab({"tutorial", "--list"}).exit_code, 0);
  EXPECT_EQ(runFuselab({"capture", "--help"}).exit_code, 0);
  EXPECT_EQ(runFuselab({"--version"}).exit_code, 0);

  EXPECT_FALSE(captureModuleLoaded());
  const std::string maps = mappedFiles();
  for (const char* lib : {kCaptureModuleFile, "libtorch", "libc10", "libcudart", "libcupti"})
    EXPECT_THAT(maps, Not(HasSubstr(lib))) << lib << " is mapped after trace commands";
}

TEST(CaptureModule, AFileThatIsNotAModuleIsNamedWithTheLoadersMessage) {
  const auto file = test::scratchDir("CaptureModule.NotAModule") / "libfuselab_capture_module.so";
  std::ofstream(file) << std::string(4096, 'x');  // long enough to be read as a header
  const std::string message = captureMessage(file);
  EXPECT_THAT(message, HasSubstr("cannot load the capture module " + file.string()));
  EXPECT_THAT(message, HasSubstr("invalid ELF header"));  // dlerror()'s words
}

TEST(CaptureModule, AMissingLibraryOfTheModuleIsNamed) {
  // The stand-in module alone, without the library it needs (as the real
  // module on a machine without LibTorch).
  const auto dir = test::scratchDir("CaptureModule.MissingLibrary");
  const std::filesystem::path module = dir / std::filesystem::path(standInModulePath()).filename();
  std::filesystem::copy_file(standInModulePath(), module);
  const std::string message = captureMessage(module);
  EXPECT_THAT(message, HasSubstr("cannot load the capture module " + module.string()));
  EXPECT_THAT(message, HasSubstr("libfuselab_test_needed_library.so: cannot open shared object file"));
}

TEST(CaptureModule, AModuleOfOtherSourcesIsRefused) {
  // Next to its library the stand-in loads, and refuses this app.
  const std::string message = captureMessage(standInModulePath());
  EXPECT_THAT(message, HasSubstr("was built from other sources than this fuselab"));
  EXPECT_THAT(message, HasSubstr(standInModulePath()));
}

TEST(CaptureModule, ALibraryWithoutTheEntryPointIsNotAModule) {
  const std::string message = captureMessage("libz.so.1");
  EXPECT_THAT(message, HasSubstr("is not a fuselab capture module"));
}

#ifdef FUSELAB_VIEWER_ONLY
TEST(CaptureModule, AViewerOnlyBuildSaysCaptureIsNotPartOfIt) {
  EXPECT_THROW(captureBackend(), CaptureUnavailable);
  CliRun capture = runFuselab({"capture", "--workload", "linear", "--device", "cpu", "--dtype", "fp32"});
  EXPECT_EQ(capture.exit_code, 1);
  EXPECT_THAT(capture.err, HasSubstr("live capture is not part of this build"));
  CliRun sweep = runFuselab({"sweep", "--workload", "linear", "--device", "cpu", "--dtype", "fp32", "--tokens", "1,8",
                             "--variants", "eager"});
  EXPECT_EQ(sweep.exit_code, 1);
  EXPECT_THAT(sweep.err, HasSubstr("live capture is not part of this build"));
  CliRun run = runFuselab({"tutorial", "--step", "1", "--run", "--device", "cpu"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err, HasSubstr("live capture is not part of this build"));
  EXPECT_THAT(runFuselab({"--version"}).out, HasSubstr("live capture is not part of this build"));
}
#else
TEST(CaptureModule, WithoutItTracesStillOpenAndACaptureSaysWhatIsMissing) {
  ASSERT_FALSE(captureModuleLoaded()) << "this test needs a process that has not loaded the module";
  const auto missing = test::scratchDir("CaptureModule.Missing") / "libfuselab_capture_module.so";
  ScopedEnv env(kCaptureModuleEnv, missing.string());

  CliRun analyze = runFuselab({"analyze", kMlp});
  EXPECT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_THAT(analyze.out, HasSubstr("Verdict:"));

  CliRun capture = runFuselab({"capture", "--workload", "linear", "--device", "cpu", "--dtype", "fp32"});
  EXPECT_EQ(capture.exit_code, 1);
  EXPECT_THAT(capture.err, HasSubstr("capture module not found"));
  EXPECT_THAT(capture.err, HasSubstr(missing.string()));

  CliRun version = runFuselab({"--version"});
  EXPECT_THAT(version.out, HasSubstr("fuselab " FUSELAB_VERSION));
  EXPECT_THAT(version.out, HasSubstr("capture module not found"));
  EXPECT_FALSE(captureModuleLoaded());
}

TEST(CaptureModule, VersionNamesTheModuleAndWhatItWasBuiltWithWithoutLoadingIt) {
  CliRun version = runFuselab({"--version"});
  EXPECT_THAT(version.out, HasSubstr("capture module "));
  EXPECT_THAT(version.out, HasSubstr(kCaptureModuleFile));
  EXPECT_THAT(version.out, HasSubstr("built with torch "));
  EXPECT_FALSE(captureModuleLoaded());
}
#endif

}  // namespace
}  // namespace fuselab
