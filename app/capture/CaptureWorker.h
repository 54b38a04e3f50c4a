// Runs workload captures on a worker thread so the window never blocks:
// submit parameters, watch progress, cancel, and pick up the newest finished
// result. One capture runs at a time; a request submitted while another
// waits replaces the waiting one.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "profiling/analysis/run/RunView.h"
#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/Workload.h"

namespace fuselab {

struct CaptureRequest {
  WorkloadParams params;
  CaptureOptions options;
};

struct CaptureJobResult {
  uint64_t id = 0;  // as returned by submit()
  CaptureRequest request;
  std::shared_ptr<const Trace> trace;  // null when it failed or was cancelled
  // A distributed workload (DistributedCapture.h): its run, every rank's
  // trace, instead of `trace`.
  std::shared_ptr<const RunView> run;
  std::vector<std::string> messages;   // CPU-only fallback, dropped records, ...
  std::string error;                   // for people; empty on success
  // Out of memory: before recording (no trace, `error` says it), or in a
  // recorded step (the trace ends there and `messages` says it).
  bool out_of_memory = false;
  bool no_gpu = false;  // device cuda on a machine without a CUDA GPU
  bool cancelled = false;
  bool gpu_captured = false;
  int steps_done = 0;
  int64_t steps_wall_ns = 0;
  double seconds = 0;  // the whole job: build, warmup, capture, merge

  bool ok() const { return trace != nullptr || run != nullptr; }
};

class CaptureWorker {
 public:
  CaptureWorker();
  ~CaptureWorker();  // cancels what runs and joins the thread
  CaptureWorker(const CaptureWorker&) = delete;
  CaptureWorker& operator=(const CaptureWorker&) = delete;

  // Queues a capture; returns its id. A request still waiting is replaced
  // (and reported as cancelled).
  uint64_t submit(CaptureRequest request);
  // Cancels the running capture (between steps) and drops a waiting one.
  void cancel();
  // The newest finished job not yet returned; older unreturned ones are dropped.
  std::optional<CaptureJobResult> poll();
  // Blocks until no job is running or waiting (tests, command line).
  void waitIdle();

  struct Status {
    bool busy = false;      // a job is running or waiting
    uint64_t job_id = 0;    // the running one (0 when none)
    double fraction = 0.0;  // its progress, 0..1
    std::string phase;      // "warmup 2/3", "step 1/3", ...
    double forward_s = 0;    // one warm-up forward (0 before the first)
    double estimated_s = 0;  // the whole capture, from it (CapturePlan.h)
    std::optional<double> seconds_left;
  };
  Status status() const;

 private:
  void run();
  CaptureJobResult execute(uint64_t id, const CaptureRequest& request);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::optional<std::pair<uint64_t, CaptureRequest>> waiting_;
  uint64_t running_id_ = 0;
  uint64_t next_id_ = 1;
  bool quit_ = false;
  std::optional<CaptureJobResult> finished_;
  std::unique_ptr<CaptureProgress> progress_;  // of the running job
  std::thread thread_;
};

}  // namespace fuselab
