#include "app/report/EventJson.h"

#include <string>

namespace fuselab {

nlohmann::ordered_json eventJson(const Trace& trace, EventRef r, int64_t origin) {
  const Track& t = trace.tracks[r.track];
  return {{"name", std::string(trace.name(r))},
          {"category", std::string(categoryName(t.category[r.index]))},
          {"track", r.track},
          {"index", r.index},
          {"start_ns", t.start_ns[r.index] - origin},
          {"dur_ns", t.dur_ns[r.index]}};
}

}  // namespace fuselab
