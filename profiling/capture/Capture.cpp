#include "profiling/capture/Capture.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <chrono>

#include "profiling/capture/CaptureCounters.h"
#include "profiling/capture/CuptiCollector.h"
#include "profiling/capture/DispatchCollector.h"

namespace fuselab {

namespace {

// Share of the progress bar each phase takes.
constexpr double kWarmupShare = 0.3;
constexpr double kStepsShare = 0.6;
// The profiler's own warm-up: forwards after the user's warm-up, run with
// the collectors on and left out of the trace.
constexpr int kProfiledWarmups = 6;
// Forwards timed without profiling in each unprofiled block (observer effect).
constexpr int kMinUnprofiled = 3;
constexpr int kMaxUnprofiled = 64;

void report(CaptureProgress* p, double done, std::string text) {
  if (p) p->setPhase(done, std::move(text));
}

bool cancelled(const CaptureProgress* p) { return p && p->cancel.load(); }

// Stops both collectors on every path out of runCapture (exceptions included).
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

}  // namespace

CaptureResult runCapture(const CaptureTarget& target, const CaptureOptions& options, CaptureProgress* progress) {
  if (options.steps < 1 || options.steps > 10000)
    throw CaptureError("steps = " + std::to_string(options.steps) + " is out of range: allowed 1 to 10000");
  if (options.warmup < 0 || options.warmup > 10000)
    throw CaptureError("warmup = " + std::to_string(options.warmup) + " is out of range: allowed 0 to 10000");
  if (!target.forward || !target.synchronize) throw CaptureError("capture target has no forward/synchronize");

  CaptureResult result;
  auto finishCancelled = [&] {
    result.cancelled = true;
    result.messages.push_back("capture cancelled");
    report(progress, 1.0, "cancelled");
    return std::move(result);
  };

  DispatchCollector dispatch;
  CuptiCollector cupti;
  CollectorsGuard stop_on_exit{dispatch, cupti};
  auto startCupti = [&] {
    if (!options.gpu) return;
    report(progress, kWarmupShare * options.warmup / (options.warmup + kProfiledWarmups), "starting CUPTI");
    CuptiOptions cupti_options;
    cupti_options.driver_api = options.cupti_driver_api;
    cupti_options.api_source = options.cupti_api_source;
    std::string why;
    result.gpu_captured = cupti.start(cupti_options, &why);
    if (!result.gpu_captured) result.messages.push_back("CUPTI unavailable: " + why + "; CPU-only capture");
  };

  // Names built before recording, so the steps allocate nothing of ours.
  // Warm-up forwards are steps 0..warmup-1 (their scopes' code paths get warm too).
  std::vector<std::string> step_names;
  for (int i = 0; i < options.warmup + options.steps; ++i) step_names.push_back(profilerStepName(i));
  const std::string profiler_warmup_name = "profiler warm-up";
  auto runNamedStep = [&](const std::string& name) {
    UserScope step(name);
    UserScope region(target.region_label);
    target.forward();
  };

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
  DispatchOptions dispatch_options;
  dispatch_options.record_shapes = options.record_shapes;
  auto startCollectors = [&] {
    startCupti();
    std::string why;
    if (!dispatch.start(dispatch_options, &why)) throw CaptureError(why);
  };
  // The observer effect: the same forwards, back to back and synchronized
  // as the recorded steps are, timed with no profiler attached in a block
  // before the collectors start (after the warm-up) and one after they stop.
  // The faster block counts: a block is only ever slowed by something the
  // recorded steps did not meet (GPU clocks still ramping up after an idle
  // start, a one-off stall), never made faster.
  const int unprofiled_per_block = std::clamp(options.steps, kMinUnprofiled, kMaxUnprofiled);
  double unprofiled_ns_per_step = 0;
  int unprofiled_done = 0;
  auto timeUnprofiled = [&] {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < unprofiled_per_block; ++k) target.forward();
    target.synchronize();
    const double per_step =
        double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count()) /
        unprofiled_per_block;
    unprofiled_ns_per_step = unprofiled_done == 0 ? per_step : std::min(unprofiled_ns_per_step, per_step);
    unprofiled_done += unprofiled_per_block;
  };

  for (int i = 0; i < options.warmup; ++i) {
    if (cancelled(progress)) return finishCancelled();
    report(progress, kWarmupShare * i / (options.warmup + kProfiledWarmups),
           "warmup " + std::to_string(i + 1) + "/" + std::to_string(options.warmup));
    runNamedStep(step_names[i]);
  }
  target.synchronize();
  if (options.warmup > 0) {
    if (cancelled(progress)) return finishCancelled();
    report(progress, kWarmupShare * options.warmup / (options.warmup + kProfiledWarmups), "timing without the profiler");
    timeUnprofiled();
  }
  startCollectors();
  // The profiled forwards timed for the observer effect: from a synchronized
  // device, as each unprofiled block is, so the last profiler warm-up counts.
  auto profiled_from = std::chrono::steady_clock::now();
  int profiled_forwards = 0;
  if (options.warmup > 0) {
    report(progress, kWarmupShare * (options.warmup + 1) / (options.warmup + kProfiledWarmups), "profiler warm-up");
    for (int i = 0; i < kProfiledWarmups - 1; ++i) runNamedStep(profiler_warmup_name);
    target.synchronize();
    profiled_from = std::chrono::steady_clock::now();
    profiled_forwards = 1;
    runNamedStep(profiler_warmup_name);
  }
  // CUPTI's clock only when CUPTI records: on a CPU capture the first
  // cuptiGetTimestamp would initialise CUPTI here, and its threads would
  // share the cores with the first recorded step (1.3-2.5x the others on a
  // 2-core box).
  const int64_t recording_from_ns = result.gpu_captured ? CuptiCollector::nowNs() : DispatchCollector::nowNs();

  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < options.steps; ++i) {
    if (cancelled(progress)) break;
    report(progress, kWarmupShare + kStepsShare * i / options.steps,
           "step " + std::to_string(i + 1) + "/" + std::to_string(options.steps));
    runNamedStep(step_names[options.warmup + i]);
    ++result.steps_done;
  }
  target.synchronize();
  auto t1 = std::chrono::steady_clock::now();
  result.steps_wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();

  dispatch.stop();
  report(progress, kWarmupShare + kStepsShare, "flushing GPU records");
  cupti.stop();
  if (result.steps_done < options.steps) return finishCancelled();
  report(progress, 0.92, "timing without the profiler");
  timeUnprofiled();
  ObserverEffect effect;
  effect.profiled_ns_per_step =
      double(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - profiled_from).count()) /
      (options.steps + profiled_forwards);
  effect.unprofiled_ns_per_step = unprofiled_ns_per_step;
  effect.unprofiled_steps = unprofiled_done;
  result.observer_effect = effect;

  report(progress, 0.95, "merging");
  Trace& trace = result.trace;
  dispatch.appendTo(trace, recording_from_ns);
  if (result.gpu_captured) cupti.appendTo(trace, recording_from_ns);
  trace.meta.source = "live capture";
  result.cpu_dropped = dispatch.droppedEvents();
  result.gpu_dropped = result.gpu_captured ? cupti.droppedRecords() : 0;
  if (result.cpu_dropped > 0)
    result.messages.push_back(std::to_string(result.cpu_dropped) +
                              " CPU ops were not recorded (per-thread buffer full): capture fewer steps");
  if (dispatch.droppedShapes() > 0)
    result.messages.push_back(std::to_string(dispatch.droppedShapes()) + " CPU ops were recorded without input dims");
  // Our notes go into the trace; CUPTI's appendTo put its own (dropped count included).
  trace.meta.warnings.insert(trace.meta.warnings.end(), result.messages.begin(), result.messages.end());
  if (result.gpu_dropped > 0)
    result.messages.push_back(std::to_string(result.gpu_dropped) + " GPU records were lost by CUPTI");
  setObserverEffect(trace, effect);
  trace.finalize();
  trace.meta.base_time_ns = trace.beginNs();
  if (options.counters) {  // apart from the timed steps: replay perturbs timing
    report(progress, 0.97, "reading hardware counters");
    addMeasuredCounters(target, result);
  }
  report(progress, 1.0, "done");
  return result;
}

}  // namespace fuselab
