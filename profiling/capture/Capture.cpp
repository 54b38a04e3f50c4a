#include "profiling/capture/Capture.h"

#include <ATen/record_function.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <chrono>

#include "profiling/capture/CaptureCounters.h"
#include "profiling/capture_api/CapturePlan.h"
#include "profiling/capture_api/WorkloadParams.h"
#include "profiling/capture/CuptiCollector.h"
#include "profiling/capture/DispatchCollector.h"
#include "profiling/capture/MemoryCollector.h"
#include "profiling/trace/MemoryEvents.h"

namespace fuselab {

namespace {

// Share of the progress bar each phase takes.
constexpr double kWarmupShare = 0.3;
constexpr double kStepsShare = 0.6;

void report(CaptureProgress* p, double done, std::string text) {
  if (p) p->setPhase(done, std::move(text));
}

bool cancelled(const CaptureProgress* p) { return p && p->cancel.load(); }

// Stops both collectors on every path out of a capture (exceptions included).
struct CollectorsGuard {
  DispatchCollector& dispatch;
  CuptiCollector& cupti;
  ~CollectorsGuard() {
    dispatch.stop();
    cupti.stop();
  }
};

// A user scope as RECORD_USER_SCOPE opens it, for a name known at run time.
class UserScope {
 public:
  explicit UserScope(const std::string& name) : guard_(at::RecordScope::USER_SCOPE) {
    if (guard_.isActive()) guard_.before(std::string_view(name));
  }

 private:
  at::RecordFunction guard_;
};

// One capture, phase by phase (runCapture). The collectors stop on every
// path out, exceptions included (CollectorsGuard).
class CaptureSession {
 public:
  CaptureSession(const CaptureTarget& target, const CaptureOptions& options, CaptureProgress* progress)
      : target_(target), options_(options), progress_(progress), plan_(planCapture(options)) {
    // Names built before recording, so the steps allocate nothing of ours.
    // Warm-up forwards are steps 0..warmup-1 (their scopes' code paths get warm too).
    for (int i = 0; i < options.warmup + options.steps; ++i) step_names_.push_back(profilerStepName(i));
  }

  CaptureResult run() {
    if (!warmUp()) return finishCancelled();
    startCollectors();
    profilerWarmUp();
    // CUPTI's clock only when CUPTI records: on a CPU capture the first
    // cuptiGetTimestamp would initialise CUPTI here, and its threads would
    // share the cores with the first recorded step (1.3-2.5x the others on a
    // 2-core box).
    const int64_t recording_from_ns = result_.gpu_captured ? CuptiCollector::nowNs() : DispatchCollector::nowNs();
    recordSteps();
    dispatch_.stop();
    memory_.stop();
    report(progress_, kWarmupShare + kStepsShare, "flushing GPU records");
    cupti_.stop();
    if (!result_.out_of_memory.empty()) return finishOutOfMemory(recording_from_ns);
    if (result_.steps_done < options_.steps) return finishCancelled();
    report(progress_, 0.92, "timing without the profiler");
    for (int b = 0; b < plan_.unprofiled_blocks_after; ++b) timeUnprofiled();
    const ObserverEffect effect = observerEffect();
    result_.observer_effect = effect;
    report(progress_, 0.95, "merging");
    merge(recording_from_ns, &effect);
    if (options_.counters) {  // apart from the timed steps: replay perturbs timing
      report(progress_, 0.97, "reading hardware counters");
      addMeasuredCounters(target_, result_);
    }
    report(progress_, 1.0, "done");
    return std::move(result_);
  }

 private:
  static constexpr const char* kProfilerWarmupName = "profiler warm-up";

  CaptureResult finishCancelled() {
    result_.cancelled = true;
    result_.messages.push_back("capture cancelled");
    report(progress_, 1.0, "cancelled");
    return std::move(result_);
  }

  // The steps recorded before the one that ran out of memory, and that one up
  // to the failed allocation: what led there is what the user needs to see.
  // No unprofiled forwards after it (they would fail the same way).
  CaptureResult finishOutOfMemory(int64_t recording_from_ns) {
    result_.messages.push_back("step " + std::to_string(result_.steps_done + 1) + " of " +
                               std::to_string(options_.steps) + " ran out of memory; the trace ends there" +
                               (memory_.started() ? ", at the failed allocation ([OutOfMemory])" : "") + ": " +
                               result_.out_of_memory);
    merge(recording_from_ns, nullptr);
    report(progress_, 1.0, "out of memory");
    return std::move(result_);
  }

  double warmupShare(int done) const {
    return kWarmupShare * done / (options_.warmup + kProfiledWarmups);
  }

  void runNamedStep(const std::string& name) {
    UserScope step(name);
    UserScope region(target_.region_label);
    target_.forward();
  }

  // The user's warm-up, with no profiler, then the first unprofiled block.
  // Each warm-up forward is timed for the estimate. False when cancelled.
  bool warmUp() {
    for (int i = 0; i < options_.warmup; ++i) {
      if (cancelled(progress_)) return false;
      report(progress_, warmupShare(i), "warmup " + std::to_string(i + 1) + "/" + std::to_string(options_.warmup));
      const auto start = std::chrono::steady_clock::now();
      runNamedStep(step_names_[i]);
      target_.synchronize();
      estimate(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    target_.synchronize();
    for (int b = 0; b < plan_.unprofiled_blocks_before; ++b) {
      if (cancelled(progress_)) return false;
      report(progress_, warmupShare(options_.warmup), "timing without the profiler");
      timeUnprofiled();
    }
    return true;
  }

  // The whole capture's time from the fastest warm-up forward so far (the
  // first is often the slowest: allocations, library set-up); the first
  // estimate past kLongCaptureSeconds is announced.
  void estimate(double forward_s) {
    if (!progress_) return;
    const double fastest = progress_->forward_s.load() > 0 ? std::min(progress_->forward_s.load(), forward_s) : forward_s;
    progress_->forward_s.store(fastest);
    const double total = estimateCaptureSeconds(plan_, fastest);
    progress_->estimated_s.store(total);
    if (total > kLongCaptureSeconds && !long_wait_said_) {
      long_wait_said_ = true;
      if (progress_->on_long_wait) progress_->on_long_wait(total, fastest);
    }
  }

  void startCupti() {
    if (!options_.gpu) return;
    report(progress_, warmupShare(options_.warmup), "starting CUPTI");
    CuptiOptions cupti_options;
    cupti_options.driver_api = options_.cupti_driver_api;
    cupti_options.api_source = options_.cupti_api_source;
    std::string why;
    result_.gpu_captured = cupti_.start(cupti_options, &why);
    if (!result_.gpu_captured) result_.messages.push_back("CUPTI unavailable: " + why + "; CPU-only capture");
  }

  void startCollectors() {
    startCupti();
    DispatchOptions dispatch_options;
    dispatch_options.record_shapes = options_.record_shapes;
    std::string why;
    if (!dispatch_.start(dispatch_options, &why)) throw CaptureError(why);
    if (options_.memory && !memory_.start(&why)) result_.messages.push_back("memory not recorded: " + why);
    profiled_from_ = std::chrono::steady_clock::now();
  }

  // With --warmup N >= 1 the N warm-up forwards run with no profiler, then
  // both collectors start and the profiler's own warm-up, kProfiledWarmups
  // more forwards, runs under them with its records left out (what
  // torch.profiler's schedule does with its warm-up steps): the first
  // launches after enabling CUPTI pay for its one-time setup, the second
  // forward under CUPTI is still several times slower than the rest (linear
  // on an H100: 190 us against 26 us), and the first run of each op with the
  // RecordFunction callback installed takes LibTorch's profiling code paths
  // cold. Five, because on the H100 two still left the first recorded step
  // up to 2.8x the median of the others. The device is synchronized after
  // those five, so their GPU work does not run far into the first recorded
  // step, where it would be idle time of the trace (it is cut out by launch)
  // while the GPU was in fact busy. Then one more forward, not waited for:
  // the first launch onto an idle GPU is the slow one (on the H100 up to
  // 25 us instead of 5), and the recorded steps should each find the GPU as
  // the one before left it. Its GPU work may still run into the first step,
  // as torch.profiler's warm-up steps do. With --warmup 0 there is none of
  // this: the first step is the real cold start.
  void profilerWarmUp() {
    if (options_.warmup == 0) return;
    report(progress_, warmupShare(options_.warmup + 1), "profiler warm-up");
    const std::string name = kProfilerWarmupName;
    for (int i = 0; i < kProfiledWarmups - 1; ++i) runNamedStep(name);
    target_.synchronize();
    // The profiled forwards timed for the observer effect: from a synchronized
    // device, as each unprofiled block is, so the last profiler warm-up counts.
    profiled_from_ = std::chrono::steady_clock::now();
    profiled_forwards_ = 1;
    profiled_starts_.push_back(profiled_from_);
    runNamedStep(name);
  }

  // The host time of each profiled forward the observer effect counts (the
  // last profiler warm-up and the steps: from its start to the next one's,
  // the last to the final synchronize) is kept: their spread is noise the
  // profiled side met (ObserverEffect::withinNoise).
  void recordSteps() {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::chrono::steady_clock::time_point>& starts = profiled_starts_;
    starts.reserve(starts.size() + size_t(options_.steps));
    for (int i = 0; i < options_.steps; ++i) {
      if (cancelled(progress_)) break;
      report(progress_, kWarmupShare + kStepsShare * i / options_.steps,
             "step " + std::to_string(i + 1) + "/" + std::to_string(options_.steps));
      starts.push_back(std::chrono::steady_clock::now());
      try {
        runNamedStep(step_names_[options_.warmup + i]);
      } catch (const WorkloadOutOfMemory& e) {  // our workloads' (TorchWorkload.h)
        result_.out_of_memory = e.what();
      } catch (const c10::OutOfMemoryError& e) {  // any other target's
        result_.out_of_memory = e.what_without_backtrace();
      }
      if (!result_.out_of_memory.empty()) {
        starts.pop_back();
        break;
      }
      ++result_.steps_done;
    }
    target_.synchronize();
    profiled_to_ = std::chrono::steady_clock::now();
    result_.steps_wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(profiled_to_ - t0).count();
    for (size_t i = 0; i < starts.size(); ++i) {
      const auto end = i + 1 < starts.size() ? starts[i + 1] : profiled_to_;
      profiled_step_ns_.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(end - starts[i]).count()));
    }
  }

  // The observer effect: the same forwards, back to back and synchronized
  // as the recorded steps are, timed with no profiler attached in a block
  // before the collectors start (after the warm-up) and blocks after they
  // stop. The fastest block counts: a block is only ever slowed by something
  // the recorded steps did not meet (GPU clocks still ramping up after an
  // idle start, a one-off stall), never made faster; the blocks' spread says
  // how much this machine moves the same forwards (ObserverEffect::withinNoise).
  void timeUnprofiled() {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < plan_.forwards_per_block; ++k) target_.forward();
    target_.synchronize();
    const double per_step =
        double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count()) /
        plan_.forwards_per_block;
    unprofiled_ns_per_step_ = unprofiled_done_ == 0 ? per_step : std::min(unprofiled_ns_per_step_, per_step);
    unprofiled_done_ += plan_.forwards_per_block;
    unprofiled_block_ns_.push_back(per_step);
  }

  ObserverEffect observerEffect() const {
    ObserverEffect effect;
    effect.profiled_ns_per_step =
        double(std::chrono::duration_cast<std::chrono::nanoseconds>(profiled_to_ - profiled_from_).count()) /
        (options_.steps + profiled_forwards_);
    effect.unprofiled_ns_per_step = unprofiled_ns_per_step_;
    effect.unprofiled_steps = unprofiled_done_;
    effect.unprofiled_block_ns = unprofiled_block_ns_;
    effect.profiled_step_ns = profiled_step_ns_;
    effect.unprofiled_blocks_before = plan_.unprofiled_blocks_before;
    return effect;
  }

  // The collectors' records into one trace, with what was lost said.
  void merge(int64_t recording_from_ns, const ObserverEffect* effect) {
    Trace& trace = result_.trace;
    dispatch_.appendTo(trace, recording_from_ns);
    if (result_.gpu_captured) cupti_.appendTo(trace, recording_from_ns);
    trace.meta.source = "live capture";
    result_.cpu_dropped = dispatch_.droppedEvents();
    result_.gpu_dropped = result_.gpu_captured ? cupti_.droppedRecords() : 0;
    if (result_.cpu_dropped > 0)
      result_.messages.push_back(std::to_string(result_.cpu_dropped) +
                                 " CPU ops were not recorded (per-thread buffer full): capture fewer steps");
    if (dispatch_.droppedShapes() > 0)
      result_.messages.push_back(std::to_string(dispatch_.droppedShapes()) +
                                 " CPU ops were recorded without input dims");
    // Our notes go into the trace; CUPTI's appendTo put its own (dropped count included).
    trace.meta.warnings.insert(trace.meta.warnings.end(), result_.messages.begin(), result_.messages.end());
    if (result_.gpu_dropped > 0)
      result_.messages.push_back(std::to_string(result_.gpu_dropped) + " GPU records were lost by CUPTI");
    if (effect) setObserverEffect(trace, *effect);
    trace.finalize();
    trace.meta.base_time_ns = std::min(trace.beginNs(), memory_.earliestNs(recording_from_ns).value_or(INT64_MAX));
    memory_.appendTo(trace, recording_from_ns, trace.meta.base_time_ns);
    if (memory_.started()) trace.meta.extra_fields.emplace_back(std::string(kMemoryRecordedField), "true");
  }

  const CaptureTarget& target_;
  const CaptureOptions& options_;
  CaptureProgress* progress_;
  CaptureResult result_;
  DispatchCollector dispatch_;
  MemoryCollector memory_;  // stops when the session ends, on its thread
  CuptiCollector cupti_;
  CollectorsGuard stop_on_exit_{dispatch_, cupti_};
  std::vector<std::string> step_names_;
  const CapturePlan plan_;
  double unprofiled_ns_per_step_ = 0;
  int unprofiled_done_ = 0;
  std::vector<double> unprofiled_block_ns_;
  std::vector<double> profiled_step_ns_;
  std::vector<std::chrono::steady_clock::time_point> profiled_starts_;
  std::chrono::steady_clock::time_point profiled_from_, profiled_to_;
  int profiled_forwards_ = 0;
  bool long_wait_said_ = false;
};

}  // namespace

CaptureResult runCapture(const CaptureTarget& target, const CaptureOptions& options, CaptureProgress* progress) {
  if (options.steps < 1 || options.steps > 10000)
    throw CaptureError("steps = " + std::to_string(options.steps) + " is out of range: allowed 1 to 10000");
  if (options.warmup < 0 || options.warmup > 10000)
    throw CaptureError("warmup = " + std::to_string(options.warmup) + " is out of range: allowed 0 to 10000");
  if (!target.forward || !target.synchronize) throw CaptureError("capture target has no forward/synchronize");
  if (progress)
    progress->started_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch()).count());
  return CaptureSession(target, options, progress).run();
}

}  // namespace fuselab
