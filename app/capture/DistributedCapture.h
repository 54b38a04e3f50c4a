// A live capture of a distributed workload (tp_mlp): params.ranks worker
// processes of fuselab itself (`fuselab capture --rank-worker ...`), each
// joining the job through MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE and
// writing its own trace (same warm-up and ProfilerStep#k schedule, Kineto's
// distributedInfo), collected into one run folder: rank-K.json.gz. A run
// folder appears only complete: the ranks write into a staging folder that
// is renamed at the end, or removed when a rank failed.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/WorkloadParams.h"

namespace fuselab {

// Workloads that run as several processes (a job of params.ranks ranks).
bool isDistributedWorkload(const std::string& workload);

struct RunCaptureOptions {
  std::filesystem::path out;  // keep the run folder here (must not exist yet); "" = a temporary one
  std::chrono::seconds timeout{300};  // for the whole job
  const std::atomic<bool>* cancel = nullptr;
  // Receives what rank 0 said it captured ("captured 3 steps of tp_mlp (fused
  // -> eager: ...)"), so a fallback is seen; may be empty.
  std::function<void(const std::string&)> rank0_says;
};

// The run folder; a temporary one is removed with this object.
class RunFolder {
 public:
  RunFolder() = default;
  RunFolder(std::filesystem::path dir, bool keep) : dir_(std::move(dir)), keep_(keep) {}
  RunFolder(RunFolder&& o) noexcept : dir_(std::move(o.dir_)), keep_(o.keep_) { o.dir_.clear(); }
  RunFolder& operator=(RunFolder&& o) noexcept;
  ~RunFolder();
  const std::filesystem::path& path() const { return dir_; }
  bool kept() const { return keep_; }

 private:
  std::filesystem::path dir_;
  bool keep_ = false;
};

// Checks what can be checked here (sizes, the variant, hidden divisible by
// the ranks, enough GPUs for device cuda), then runs the workers. Throws
// NoGpuError / WorkloadError for bad values (before starting anything) and
// CaptureError when a rank failed, hung or was cancelled: the message names
// each failed rank with the end of its output; the others were stopped.
RunFolder captureRun(const WorkloadParams& params, const CaptureOptions& options, const RunCaptureOptions& run);

// The command line of rank `rank`'s worker (after the executable).
std::vector<std::string> rankWorkerArgs(const WorkloadParams& params, const CaptureOptions& options,
                                        const std::filesystem::path& trace_file);

// "R:US" (--delay-rank) into params.delay_rank / delay_us. Throws WorkloadError.
void parseDelayRank(const std::string& spec, WorkloadParams& params);

// The fuselab executable the workers run: $FUSELAB_EXECUTABLE, this process
// when it is fuselab, else the build tree's. Throws CaptureError when none exists.
std::filesystem::path fuselabExecutable();

}  // namespace fuselab
