#include "profiling/nccl_profiler/NcclProfilerProcess.h"

#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "profiling/nccl_profiler/NcclCommJson.h"
#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/NcclProfile.h"

namespace fuselab::nccl_profiler {

namespace {

using nlohmann::json;

int64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct ProcessState {
  std::mutex mutex;
  std::optional<PluginOptions> options;
  ncclDebugLogger_t log = nullptr;
  const char* version = "";
  int64_t realtime_ns = 0, monotonic_ns = 0;  // one instant on both clocks
  std::filesystem::path file;
  std::vector<json> finished;
  std::set<CommRecorder*> live;
};

// Where LeakSanitizer runs (sanitizer builds of the tests that load us),
// what is meant to outlive us is said so; elsewhere the symbol is absent.
extern "C" void __lsan_ignore_object(const void* p) __attribute__((weak));
void meantToOutlive(const void* p) {
  if (__lsan_ignore_object) __lsan_ignore_object(p);
}

// Never destroyed: the exit handler and late NCCL calls (a communicator
// finalized by a static destructor after our exit handler) may still reach it.
ProcessState& state() {
  static ProcessState* s = [] {
    auto* created = new ProcessState;
    meantToOutlive(created);
    return created;
  }();
  return *s;
}

template <class... Args>
void say(const ProcessState& s, ncclDebugLogLevel level, const char* fmt, Args... args) {
  if (s.log) s.log(level, NCCL_INIT, __FILE__, __LINE__, fmt, args...);
}

// Caller holds the mutex.
void writeSideFile(ProcessState& s, bool at_exit) {
  json comms = json::array();
  for (const json& c : s.finished) comms.push_back(c);
  for (const CommRecorder* c : s.live) comms.push_back(commJson(*c, *s.options, false));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const json file = {{"format", kNcclProfileFormat},
                     {"version", kNcclProfileVersion},
                     {"interface", s.version},
                     {"pid", int64_t(getpid())},
                     {"hostname", host},
                     {"clock", {{"realtime_ns", s.realtime_ns}, {"monotonic_ns", s.monotonic_ns}}},
                     {"communicators", std::move(comms)}};
  try {
    std::filesystem::create_directories(s.file.parent_path());
    writeFileAtomically(s.file, file.dump());
  } catch (const std::exception& e) {
    // At exit NCCL's logger may be gone with its library: stderr then.
    if (at_exit || !s.log)
      std::fprintf(stderr, "fuselab NCCL profiler: %s\n", e.what());
    else
      say(s, NCCL_LOG_WARN, "fuselab NCCL profiler: %s", e.what());
  }
}

// The communicators still live stay allocated: NCCL's threads may still
// report into them while the process exits.
void writeAtExit() {
  ProcessState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.live.empty()) return;
  writeSideFile(s, true);
  for (const CommRecorder* c : s.live) meantToOutlive(c);
}

}  // namespace

CommRecorder* openCommunicator(const CommInfo& info, int* event_mask, ncclDebugLogger_t log, const char* version) {
  ProcessState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (log) s.log = log;
  if (!s.options) {
    s.options = pluginOptionsFrom([](const char* name) { return std::getenv(name); });
    for (const std::string& w : s.options->warnings) say(s, NCCL_LOG_WARN, "fuselab NCCL profiler: %s", w.c_str());
    s.version = version;
    s.monotonic_ns = monotonicNs();
    s.realtime_ns = realtimeNs();
    const int rank = s.options->process_rank.value_or(info.rank);
    s.file = s.options->dir / ("rank-" + std::to_string(rank) + kNcclProfileSuffix);
    std::atexit(writeAtExit);
  }
  *event_mask = s.options->event_mask;
  if (s.options->event_mask == 0) {
    say(s, NCCL_LOG_INFO, "fuselab NCCL profiler: no events asked for (FUSELAB_NCCL_PROFILER_EVENTS)");
    return nullptr;
  }
  auto* comm = new CommRecorder(info, *s.options);
  s.live.insert(comm);
  say(s, NCCL_LOG_INFO, "fuselab NCCL profiler (%s): recording %s of communicator %s (rank %d of %d) into %s", version,
      eventWords(s.options->event_mask).c_str(), info.comm_name.c_str(), info.rank, info.nranks, s.file.c_str());
  return comm;
}

void finalizeCommunicator(CommRecorder* comm) {
  ProcessState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!comm || !s.live.erase(comm)) return;
  s.finished.push_back(commJson(*comm, *s.options, true));
  delete comm;
  writeSideFile(s, false);
}

std::filesystem::path sideFilePath() {
  ProcessState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.file;
}

}  // namespace fuselab::nccl_profiler
