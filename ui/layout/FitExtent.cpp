#include "ui/layout/FitExtent.h"

#include <algorithm>

namespace fuselab::ui {

TimeExtent fitAllExtent(const Trace& trace, const PreRecordingOps& before_recording) {
  TimeExtent x;
  bool any = false;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (isGpuWork(t.category[i]) && before_recording.contains({ti, i})) continue;
      x.begin_ns = any ? std::min(x.begin_ns, t.start_ns[i]) : t.start_ns[i];
      x.end_ns = any ? std::max(x.end_ns, t.end_ns(i)) : t.end_ns(i);
      any = true;
    }
  }
  return x;
}

}  // namespace fuselab::ui
