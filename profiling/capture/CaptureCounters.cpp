#include "profiling/capture/CaptureCounters.h"

#include <optional>

#include "profiling/capture/KernelCounterMatch.h"
#ifdef FUSELAB_HAVE_CUPTI
#include "profiling/capture/CuptiRangeProfiler.h"
#endif

namespace fuselab {

namespace {

#ifdef FUSELAB_HAVE_CUPTI
// Ranges beyond the recorded step's kernels that the profiler may still
// record, so a forward that launches a few more is reported as a mismatch
// rather than as dropped ranges.
constexpr size_t kExtraRanges = 64;
// Kernels one counter pass takes at most: CUPTI refuses counter data images
// for a few thousand ranges.
constexpr size_t kMaxKernels = 2000;

std::vector<KernelCounterReading> readingsOf(const cupti::RangeProfile& profile) {
  const std::vector<std::string> names = profile.metrics.names();
  auto indexOf = [&](const std::string& metric) -> std::optional<size_t> {
    for (size_t i = 0; i < names.size(); ++i)
      if (!metric.empty() && names[i] == metric) return i;
    return std::nullopt;
  };
  const auto read = indexOf(profile.metrics.dram_read);
  const auto write = indexOf(profile.metrics.dram_write);
  const auto tensor = indexOf(profile.metrics.tensor_active);
  std::vector<KernelCounterReading> out;
  for (const cupti::KernelRange& r : profile.ranges) {
    KernelCounterReading k;
    k.name = r.name;
    if (read && write) k.counters.dram_bytes = r.values[*read] + r.values[*write];
    if (tensor) k.counters.tensor_active_pct = r.values[*tensor];
    out.push_back(std::move(k));
  }
  return out;
}
#endif

bool measure(const CaptureTarget& target, CaptureResult& result, std::string* why) {
#ifndef FUSELAB_HAVE_CUPTI
  (void)target, (void)result;
  *why = "this build has no CUPTI";
  return false;
#else
  if (!result.gpu_captured) {
    *why = "no GPU trace to put them on (CUPTI did not record this capture)";
    return false;
  }
  const size_t kernels = lastStepKernels(result.trace).size();
  if (kernels == 0) {
    *why = "the last recorded step ran no kernels";
    return false;
  }
  if (kernels > kMaxKernels) {
    *why = "the last recorded step ran " + std::to_string(kernels) + " kernels, more than one counter pass takes (" +
           std::to_string(kMaxKernels) + ")";
    return false;
  }
  auto forward = [&] {
    target.forward();
    target.synchronize();
  };
  const auto profile = cupti::profileKernelRanges(forward, kernels + kExtraRanges, why);
  if (!profile) return false;
  return attachKernelCounters(result.trace, readingsOf(*profile), why);
#endif
}

}  // namespace

std::string countersUnavailableMessage(const std::string& why) {
  return "hardware counters unavailable: " + why + "; the model's figures stand";
}

void addMeasuredCounters(const CaptureTarget& target, CaptureResult& result) {
  std::string why;
  if (measure(target, result, &why)) return;
  const std::string message = countersUnavailableMessage(why.empty() ? "unknown reason" : why);
  result.messages.push_back(message);
  result.trace.meta.warnings.push_back(message);
}

}  // namespace fuselab
