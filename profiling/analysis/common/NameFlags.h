// A test of event names made once per interned name instead of once per
// event: at 10M events, reading each event's name text (a cache miss each)
// cost a tenth of a second per pass over the trace.
#pragma once

#include <cstdint>
#include <vector>

#include "profiling/trace/Trace.h"

namespace fuselab {

// flags[id]: whether `test` holds for the string with that id (or the small
// value it returns, for a test that sorts names into kinds).
template <typename Test>
std::vector<uint8_t> nameFlags(const StringTable& strings, Test test) {
  std::vector<uint8_t> flags(strings.size());
  for (uint32_t id = 0; id < strings.size(); ++id) flags[id] = static_cast<uint8_t>(test(strings.get(id)));
  return flags;
}

}  // namespace fuselab
