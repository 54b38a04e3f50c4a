// Folded stacks, the text flamegraph.pl, speedscope and inferno read: one
// "frame;frame;...;frame value" line per distinct stack, outermost frame
// first, the value its self time in integer microseconds. `fuselab export
// TRACE OUT.folded [--metric cpu|gpu]` writes them.
#pragma once

#include <string>

#include "profiling/analysis/stacks/FlameGraph.h"

namespace fuselab {

// The lines of `graph`'s frames with self time in `metric`, depth first.
// Microseconds are rounded so that the values add up to the graph's total,
// rounded; a stack whose share rounds to 0 is left out. ';' in a name
// becomes ',' and line breaks a space, so each line reads back as one stack.
std::string foldedStacks(const Trace& trace, const FlameGraph& graph, FlameMetric metric);

}  // namespace fuselab
