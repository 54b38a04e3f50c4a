// Complete events for traces built in memory (tests and benchmarks). Times
// in nanoseconds.
#pragma once

#include <cstdint>
#include <string>

#include "profiling/trace/Trace.h"

namespace fuselab::test {

// One complete event, not yet appended (tests that set more fields first).
inline Trace::NewEvent newEvent(Trace& t, const std::string& name, int64_t start, int64_t dur,
                                Category cat = Category::CpuOp) {
  Trace::NewEvent e;
  e.start_ns = start;
  e.dur_ns = dur;
  e.name_id = t.strings.intern(name);
  e.cat_id = t.strings.intern(categoryName(cat));
  e.category = cat;
  return e;
}

inline void addEvent(Trace& t, uint32_t track, const std::string& name, int64_t start, int64_t dur, Category cat,
                     int64_t correlation = -1) {
  Trace::NewEvent e = newEvent(t, name, start, dur, cat);
  e.correlation = correlation;
  t.append(track, e);
}

}  // namespace fuselab::test
