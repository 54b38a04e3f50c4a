// What one live capture needs (the forward to record, options) and what it
// returns (a Trace and notes for people), plus the progress a watcher (the
// window) reads. Plain C++: the app and the UI use these without LibTorch;
// capture/ (Capture.h) does the recording.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/trace/ObserverEffect.h"
#include "profiling/trace/Trace.h"

namespace fuselab {

// Where the records of CUDA runtime/driver calls come from. Kernels, copies,
// memsets and syncs always come from the activity API.
enum class CuptiApiSource {
  // CUPTI's callback API, switched on only for the calls fuselab keeps (see
  // CuptiApiCallbacks.h). The default: on the H100 (CUDA 13.0) CUPTI's share
  // of the capture overhead was 1.08x against 1.12-1.13x with the activity
  // kinds (bench/app_capture_overhead), with the same trace.
  Callbacks,
  // The RUNTIME and DRIVER activity kinds, noise switched off call by call
  // (what LibTorch's Kineto does). CUPTI still intercepts every CUDA call.
  ActivityKinds,
};

struct CaptureTarget {
  std::string region_label;           // the user scope around each forward ("mlp_fwd")
  std::function<void()> forward;      // enqueues one forward
  std::function<void()> synchronize;  // waits for the device
};

struct CaptureOptions {
  int warmup = 3;              // unprofiled forwards before the profiler warm-up (0: cold start)
  int steps = 3;               // recorded steps, each "ProfilerStep#k" around one forward
  bool record_shapes = true;   // "Input Dims" of each op
  // LibTorch's allocations and frees as torch.profiler's `[memory]` events
  // (MemoryCollector.h); bench/capture_overhead measures what it costs.
  bool memory = true;
  bool gpu = true;             // use CUPTI when available
  bool cupti_driver_api = false;  // every CUDA driver call, not only launches
  CuptiApiSource cupti_api_source = CuptiApiSource::Callbacks;  // how CUDA calls are recorded
  // After the steps, one more forward under CUPTI's range profiler: DRAM
  // bytes and tensor pipe activity per kernel of the last step (CaptureCounters.h).
  bool counters = false;
};

// Shared between the capturing thread and a watcher (the GUI): the watcher
// sets `cancel`, the capture reports how far it is.
struct CaptureProgress {
  std::atomic<bool> cancel{false};  // checked before each warmup forward and each step
  std::atomic<double> fraction{0.0};
  // From the warm-up forwards (0 before the first, and with no warm-up): one
  // forward's time and the whole capture's estimate (CapturePlan.h), with
  // the steady clock's time when the capture began, for the time left.
  std::atomic<double> forward_s{0.0};
  std::atomic<double> estimated_s{0.0};
  std::atomic<int64_t> started_ns{0};
  // Called once, on the capturing thread, when the estimate first passes
  // kLongCaptureSeconds: the command line says so before the wait.
  std::function<void(double estimated_s, double forward_s)> on_long_wait;

  void setPhase(double done, std::string text);
  std::string phase() const;
  // Estimated seconds until the capture ends; nullopt before an estimate.
  std::optional<double> secondsLeft() const;

 private:
  mutable std::mutex mutex_;
  std::string phase_;
};

struct CaptureResult {
  Trace trace;  // finalized; empty when cancelled
  // For people: CPU-only fallback, dropped records, cancellation.
  std::vector<std::string> messages;
  bool cancelled = false;
  bool gpu_captured = false;   // CUPTI recorded this run
  int steps_done = 0;
  int64_t steps_wall_ns = 0;   // from the first step to the end of the final synchronize
  // The recorded steps against the same forwards timed with no profiler
  // (also in the trace, setObserverEffect); absent when cancelled.
  std::optional<ObserverEffect> observer_effect;
  uint64_t cpu_dropped = 0;    // dispatch events past the buffers
  uint64_t gpu_dropped = 0;    // CUPTI records lost
  // What LibTorch said when a recorded step ran out of memory (empty: none
  // did). The trace then ends with that step, up to the allocation that
  // failed (its [OutOfMemory] event), and has no observer effect.
  std::string out_of_memory;
};

// What `fuselab ceilings` measures on the present GPU with its own short
// benchmarks (kernels/CeilingBenchmarks.h): the best dense GEMM rate per dtype
// and the device-to-device copy bandwidth, counted as bytes read + written.
struct CeilingMeasurement {
  std::string gpu;  // CUDA's device name
  double bf16_tflops = 0;
  double fp16_tflops = 0;
  double tf32_tflops = 0;
  double fp32_tflops = 0;  // TF32 off (PyTorch's default for float32 matmul)
  double copy_gbps = 0;
  std::vector<std::string> details;  // the shapes and sizes behind each figure
};

class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Name of recorded step k, as torch.profiler spells it: "ProfilerStep#k".
// Steps are numbered by iteration, warmup forwards included.
std::string profilerStepName(int iteration);

}  // namespace fuselab
