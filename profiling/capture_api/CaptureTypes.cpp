#include "profiling/capture_api/CaptureTypes.h"

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

std::string profilerStepName(int iteration) { return "ProfilerStep#" + std::to_string(iteration); }

}  // namespace fuselab
