#include "app/capture/CaptureModule.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <system_error>

#include "app/capture/BesideExecutable.h"

namespace fuselab {
namespace {

std::atomic<CaptureBackend*> g_backend{nullptr};

const char* moduleFromEnvironment() {
  const char* env = std::getenv(kCaptureModuleEnv);
  return env && *env ? env : nullptr;
}

#ifdef FUSELAB_VIEWER_ONLY
constexpr const char* kNotInThisBuild =
    "live capture is not part of this build (configured with FUSELAB_VIEWER_ONLY=ON: no LibTorch, CUDA or "
    "CUPTI); it opens, analyses and compares traces. Build fuselab without that option to capture";
#else
// The first candidate that exists; throws CaptureUnavailable listing them.
std::filesystem::path findCaptureModule() {
  std::string tried;
  for (const auto& file : captureModuleCandidates()) {
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) return file;
    tried += "\n  " + file.string();
  }
  const char* env = moduleFromEnvironment();
  throw CaptureUnavailable(std::string("capture module not found") +
                           (env ? std::string(": ") + kCaptureModuleEnv + " names a file that does not exist:"
                                : "; looked for:") +
                           tried + "\nTraces open without it; capturing needs the module of a full fuselab build");
}
#endif

}  // namespace

std::vector<std::filesystem::path> captureModuleCandidates() {
  if (const char* env = moduleFromEnvironment()) return {env};
#ifdef FUSELAB_CAPTURE_MODULE_BUILD_DIR
  return besideExecutable(kCaptureModuleFile, FUSELAB_CAPTURE_MODULE_BUILD_DIR);
#else
  return besideExecutable(kCaptureModuleFile, "");
#endif
}

CaptureBackend& openCaptureModule(const std::filesystem::path& file) {
  const std::string what = "the capture module " + file.string();
  // RTLD_LOCAL: the module's symbols (and LibTorch's) stay out of the app's way.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    throw CaptureUnavailable("cannot load " + what + ": " + (error ? error : "unknown error") +
                             "\n(it needs the LibTorch, CUDA and CUPTI libraries it was built with)");
  }
  // Never closed: LibTorch cannot be unloaded once its initialisers ran.
  auto entry = reinterpret_cast<CaptureModuleEntry>(dlsym(handle, kCaptureModuleEntry));
  if (!entry) throw CaptureUnavailable(what + " is not a fuselab capture module (it exports no " +
                                       kCaptureModuleEntry + ")");
  CaptureBackend* backend = entry(kCaptureModuleAbi, FUSELAB_VERSION);
  if (!backend)
    throw CaptureUnavailable(what + " was built from other sources than this fuselab " FUSELAB_VERSION
                                    ": build the two together");
  return *backend;
}

CaptureBackend& captureBackend() {
#ifdef FUSELAB_VIEWER_ONLY
  throw CaptureUnavailable(kNotInThisBuild);
#else
  if (CaptureBackend* b = g_backend.load(std::memory_order_acquire)) return *b;
  static std::mutex loading;
  std::lock_guard lock(loading);
  if (CaptureBackend* b = g_backend.load(std::memory_order_acquire)) return *b;
  CaptureBackend& b = openCaptureModule(findCaptureModule());
  g_backend.store(&b, std::memory_order_release);
  return b;
#endif
}

bool captureModuleLoaded() { return g_backend.load(std::memory_order_acquire) != nullptr; }

std::string captureModuleSummary() {
#ifdef FUSELAB_VIEWER_ONLY
  return std::string("capture: ") + kNotInThisBuild;
#else
  try {
    const std::filesystem::path file = findCaptureModule();
    return "capture module " + file.string() + (captureModuleLoaded() ? "" : " (loaded when a capture starts)") +
           "\n  built with " FUSELAB_CAPTURE_BUILT_WITH;
  } catch (const CaptureUnavailable& e) {
    return e.what();
  }
#endif
}

}  // namespace fuselab
