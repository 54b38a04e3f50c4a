#include "ui/layout/FitExtent.h"

#include <algorithm>

namespace fuselab::ui {

namespace {

void widen(TimeExtent& x, bool& any, int64_t begin, int64_t end) {
  x.begin_ns = any ? std::min(x.begin_ns, begin) : begin;
  x.end_ns = any ? std::max(x.end_ns, end) : end;
  any = true;
}

}  // namespace

TraceExtents traceExtents(const Trace& trace, const PreRecordingOps& before_recording) {
  TraceExtents x;
  bool any = false, any_fit = false;
  for (uint32_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    for (uint32_t i = 0; i < t.size(); ++i) {
      widen(x.whole, any, t.start_ns[i], t.end_ns(i));
      if (!isGpuWork(t.category[i]) || !before_recording.contains({ti, i}))
        widen(x.fit, any_fit, t.start_ns[i], t.end_ns(i));
    }
  }
  return x;
}

}  // namespace fuselab::ui
