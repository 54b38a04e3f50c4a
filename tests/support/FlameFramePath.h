// A flame graph's frame by its path of labels ("thread 7;outer;inner"), for
// the tests of the flame graph.
#pragma once

#include <string>

#include "profiling/analysis/stacks/FlameGraph.h"

namespace fuselab::test {

// nullptr where no frame has that path.
inline const FlameFrame* frameAtPath(const Trace& t, const FlameGraph& g, const std::string& path) {
  for (uint32_t f = 1; f < g.frames.size(); ++f) {
    std::string p;
    for (uint32_t k : g.path(f)) p += (p.empty() ? "" : ";") + frameLabel(t, g.frames[k]);
    if (p == path) return &g.frames[f];
  }
  return nullptr;
}

}  // namespace fuselab::test
