// Whether rank traces come from one job: same world_size, backend and
// process groups (a group listed by several files has the same members in
// each). Part of loading a run (RunLoader.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "profiling/trace/Run.h"

namespace fuselab {

// nullopt when they agree, else a message naming the odd file: the one that
// disagrees with most of the others (ties: with the lowest rank).
std::optional<std::string> findJobMismatch(const std::vector<RankTrace>& ranks);

}  // namespace fuselab
