#include "profiling/capture_api/CaptureTypes.h"

#include <algorithm>
#include <chrono>

namespace fuselab {

void CaptureProgress::setPhase(double done, std::string text) {
  fraction.store(done);
  std::lock_guard lock(mutex_);
  phase_ = std::move(text);
}

std::string CaptureProgress::phase() const {
  std::lock_guard lock(mutex_);
  return phase_;
}

std::optional<double> CaptureProgress::secondsLeft() const {
  const double estimate = estimated_s.load();
  if (estimate <= 0) return std::nullopt;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count();
  return std::max(0.0, estimate - double(now - started_ns.load()) * 1e-9);
}

std::string profilerStepName(int iteration) { return "ProfilerStep#" + std::to_string(iteration); }

}  // namespace fuselab
