#include "app/capture/DistributedCapture.h"

#include <ftw.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "app/capture/CaptureModule.h"
#include "app/capture/NcclPluginPath.h"
#include "app/capture/RankLauncher.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {
namespace {

std::string traceFileName(int rank) { return "rank-" + std::to_string(rank) + ".json.gz"; }
std::string logFileName(int rank) { return "rank-" + std::to_string(rank) + ".log"; }


// Validates in the parent what needs no LibTorch, so bad values fail before any process starts.
WorkloadParams checkedParams(const WorkloadParams& params) {
  WorkloadParams p = params;
  const WorkloadInfo& info = catalogWorkload(p.workload);
  p.variant = catalogVariant(info, p.variant);
  checkSizes(p);
  if (p.hidden % p.ranks != 0)
    throw WorkloadError(p.workload + " splits hidden = " + std::to_string(p.hidden) + " across " +
                        std::to_string(p.ranks) + " ranks: hidden must be a multiple of the rank count");
  if (p.graph) {
    if (p.device != Device::Cuda) throw WorkloadError("CUDA graph mode needs --device cuda (Gloo runs on the CPU)");
    if (p.variant == "overlap")
      throw WorkloadError("overlap already replays its chunked forward as a CUDA graph on NCCL: drop --graph");
    if (p.delay_rank >= 0)
      throw WorkloadError("--delay-rank sleeps on the host, which a CUDA graph does not replay: drop --graph or "
                          "--delay-rank");
  }
  if (p.device == Device::Cuda) {
    const int gpus = captureBackend().gpuCount();
    if (gpus == 0) throw NoGpuError("no CUDA GPU available on this machine");
    if (p.ranks > gpus)
      throw WorkloadError("--ranks " + std::to_string(p.ranks) + " on cuda needs " + std::to_string(p.ranks) +
                          " GPUs (one per rank, NCCL), and this machine has " + std::to_string(gpus) +
                          ": use --ranks " + std::to_string(gpus) + " or fewer, or --device cpu (Gloo)");
  }
  return p;
}

std::filesystem::path stagingFolder(const RunCaptureOptions& run) {
  namespace fs = std::filesystem;
  if (!run.out.empty()) {
    if (fs::exists(run.out))
      throw WorkloadError("--out " + run.out.string() + " exists: name a new folder for the run");
    const fs::path staging = run.out.string() + ".incomplete-" + std::to_string(::getpid());
    fs::create_directories(staging);
    return staging;
  }
  std::string templ = (fs::temp_directory_path() / "fuselab-run-XXXXXX").string();
  if (!::mkdtemp(templ.data())) throw CaptureError("cannot create a temporary folder for the run in " + fs::temp_directory_path().string());
  return templ;
}

// Threads per rank: the machine's cores shared out, unless the caller chose.
std::string threadsPerRank(int ranks) {
  if (const char* v = std::getenv("OMP_NUM_THREADS"); v && *v) return v;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::to_string(std::max(1u, cores / static_cast<unsigned>(ranks)));
}

}  // namespace

bool isDistributedWorkload(const std::string& workload) {
  for (const WorkloadInfo& w : workloadCatalog())
    if (w.name == workload) return w.distributed;
  return false;
}

RunFolder& RunFolder::operator=(RunFolder&& o) noexcept {
  if (this != &o) {
    RunFolder old(std::move(*this));
    dir_ = std::move(o.dir_);
    keep_ = o.keep_;
    o.dir_.clear();
  }
  return *this;
}

RunFolder::~RunFolder() {
  if (dir_.empty() || keep_) return;
  // POSIX rather than std::filesystem::remove_all: libtorch.so exports its own
  // copy of that function, which crashes in a process that links LibTorch.
  ::nftw(dir_.c_str(), [](const char* path, const struct stat*, int, FTW*) { return ::remove(path); }, 16,
         FTW_DEPTH | FTW_PHYS);
}

void parseDelayRank(const std::string& spec, WorkloadParams& p) {
  const auto colon = spec.find(':');
  auto number = [&](std::string_view text, int64_t& v) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
  };
  int64_t rank = -1, us = 0;
  if (colon == std::string::npos || !number(std::string_view(spec).substr(0, colon), rank) ||
      !number(std::string_view(spec).substr(colon + 1), us) || rank < 0 || us < 0)
    throw WorkloadError("--delay-rank takes RANK:MICROSECONDS (e.g. 1:2000), got '" + spec + "'");
  p.delay_rank = static_cast<int>(std::min<int64_t>(rank, SizeLimits::kMaxRanks));
  p.delay_us = us;
}

std::vector<std::string> rankWorkerArgs(const WorkloadParams& p, const CaptureOptions& o,
                                        const std::filesystem::path& trace_file) {
  std::vector<std::string> a = {"capture", "--rank-worker", "--workload", p.workload, "--variant", p.variant,
                                "--batch", std::to_string(p.batch), "--seq", std::to_string(p.seq),
                                "--dim", std::to_string(p.dim), "--hidden", std::to_string(p.hidden),
                                "--dtype", dtypeName(p.dtype), "--device", deviceName(p.device),
                                "--seed", std::to_string(p.seed), "--ranks", std::to_string(p.ranks),
                                "--steps", std::to_string(o.steps), "--warmup", std::to_string(o.warmup),
                                "--out", trace_file.string()};
  if (p.delay_rank >= 0) a.insert(a.end(), {"--delay-rank", std::to_string(p.delay_rank) + ":" + std::to_string(p.delay_us)});
  if (p.graph) a.push_back("--graph");
  if (!o.record_shapes) a.push_back("--no-shapes");
  if (!o.memory) a.push_back("--no-memory");
  if (!o.gpu) a.push_back("--no-cupti");
  if (o.cupti_driver_api) a.push_back("--driver-api");
  return a;
}

std::filesystem::path fuselabExecutable() {
  namespace fs = std::filesystem;
  if (const char* v = std::getenv("FUSELAB_EXECUTABLE"); v && *v) {
    if (!fs::exists(v)) throw CaptureError(std::string("FUSELAB_EXECUTABLE=") + v + " does not exist");
    return v;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && self.filename() == "fuselab") return self;
#ifdef FUSELAB_APP_BUILD_DIR
  const fs::path built = fs::path(FUSELAB_APP_BUILD_DIR) / "fuselab";
  if (fs::exists(built)) return built;
#endif
  throw CaptureError("cannot find the fuselab executable to start the ranks with: set FUSELAB_EXECUTABLE");
}

RunFolder captureRun(const WorkloadParams& params, const CaptureOptions& options, const RunCaptureOptions& run) {
#ifdef FUSELAB_VIEWER_ONLY
  captureBackend();  // says that live capture is not part of this build, before any rank starts
#endif
  const WorkloadParams p = checkedParams(params);
  const std::filesystem::path exe = fuselabExecutable();
  RunFolder staging(stagingFolder(run), false);
  const std::string port = std::to_string(freeLoopbackPort());
  std::vector<WorkerSpec> workers;
  for (int r = 0; r < p.ranks; ++r) {
    WorkerSpec w;
    w.rank = r;
    w.executable = exe;
    w.args = rankWorkerArgs(p, options, staging.path() / traceFileName(r));
    w.env = {{"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}, {"RANK", std::to_string(r)},
             {"LOCAL_RANK", std::to_string(r)}, {"WORLD_SIZE", std::to_string(p.ranks)},
             {"LOCAL_WORLD_SIZE", std::to_string(p.ranks)}, {"NCCL_NVLS_ENABLE", "0"},
             {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}, {"OMP_NUM_THREADS", threadsPerRank(p.ranks)}};
    // The ranks load our NCCL profiler plugin: each writes its side file beside its trace.
    for (auto& var : ncclProfilerEnv(staging.path())) w.env.push_back(std::move(var));
    w.log = staging.path() / logFileName(r);
    workers.push_back(std::move(w));
  }
  LaunchOutcome outcome;
  try {
    outcome = runWorkers(workers, run.timeout, run.cancel);
  } catch (const std::runtime_error& e) {
    throw CaptureError(e.what());
  }
  if (!outcome.ok())
    throw CaptureError(std::string(outcome.cancelled ? "the run was cancelled" : "the run failed") + " (" +
                       std::to_string(p.ranks) + " ranks; the others were stopped, no run folder kept):\n" +
                       outcome.report());
  if (run.rank0_says) {
    std::ifstream log(staging.path() / logFileName(0));
    for (std::string line; std::getline(log, line);)
      if (line.starts_with("captured ")) run.rank0_says(line);
  }
  for (int r = 0; r < p.ranks; ++r) {
    if (!std::filesystem::exists(staging.path() / traceFileName(r)))
      throw CaptureError("rank " + std::to_string(r) + " exited without writing its trace");
    std::filesystem::remove(staging.path() / logFileName(r));
  }
  if (run.out.empty()) return staging;
  std::filesystem::rename(staging.path(), run.out);
  RunFolder kept(run.out, true);
  staging = RunFolder();  // renamed: nothing left to remove
  return kept;
}

}  // namespace fuselab
