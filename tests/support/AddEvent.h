// Appends one complete event to a trace under construction (tests and
// benchmarks that build traces in memory). Times in nanoseconds.
#pragma once

#include <cstdint>
#include <string>

#include "profiling/Trace.h"

namespace fuselab::test {

inline void addEvent(Trace& t, uint32_t track, const std::string& name, int64_t start, int64_t dur, Category cat,
                     int64_t correlation = -1) {
  Trace::NewEvent e;
  e.start_ns = start;
  e.dur_ns = dur;
  e.name_id = t.strings.intern(name);
  e.cat_id = t.strings.intern(categoryName(cat));
  e.category = cat;
  e.correlation = correlation;
  t.append(track, e);
}

}  // namespace fuselab::test
