#include "profiling/capture_api/CapturePlan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fuselab {

namespace {
constexpr double kProfiledSlowdown = 1.25;
}

CapturePlan planCapture(const CaptureOptions& options) {
  CapturePlan plan;
  plan.warmups = std::max(options.warmup, 0);
  plan.profiled_warmups = plan.warmups > 0 ? kProfiledWarmups : 0;
  plan.steps = std::max(options.steps, 0);
  plan.unprofiled_blocks_before = plan.warmups > 0 ? 1 : 0;
  plan.unprofiled_blocks_after = kUnprofiledBlocksAfter;
  plan.forwards_per_block = std::clamp(options.steps, kMinUnprofiledPerBlock, kMaxUnprofiledPerBlock);
  return plan;
}

double estimateCaptureSeconds(const CapturePlan& plan, double forward_s) {
  const int unprofiled = plan.warmups + plan.unprofiledBlocks() * plan.forwards_per_block;
  const int profiled = plan.profiled_warmups + plan.steps;
  return forward_s * (double(unprofiled) + kProfiledSlowdown * double(profiled));
}

WorkloadParams smallerForCapture(const WorkloadParams& params, double estimated_s, double target_s) {
  WorkloadParams p = params;
  double time = estimated_s;
  while (time > target_s && (p.batch > 1 || p.seq > 1)) {
    int64_t& halved = p.batch > 1 ? p.batch : p.seq;
    time *= double(halved / 2) / double(halved);
    halved /= 2;
  }
  return p;
}

std::string sizeOptions(const WorkloadParams& params) {
  return "--batch " + std::to_string(params.batch) + " --seq " + std::to_string(params.seq);
}

std::string roundedSeconds(double seconds) {
  char buf[48];
  if (seconds >= 90) std::snprintf(buf, sizeof buf, "%.0f min", std::round(seconds / 60));
  else if (seconds >= 10) std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  else std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  return buf;
}

std::string aboutSeconds(double seconds) { return "about " + roundedSeconds(seconds); }

}  // namespace fuselab
